// Loading user kernels: a description file becomes a registered family (and
// GPU harness), in this process and in the worker processes it starts.
#pragma once

#include <string>

#include "kernels_templated/family.hpp"

namespace ktune::user {

/// Lists the descriptions loaded in this process, ':'-separated, for the
/// worker processes it starts (they inherit the environment).
inline constexpr const char* kUserKernelsEnv = "KTUNE_USER_KERNELS";

/// Loads the description at `path`, registers its family and harness, adds
/// the path to $KTUNE_USER_KERNELS and returns the family. The same file
/// again returns the same family. Throws DescriptionError (bad input).
const KernelFamily& load_user_kernel(const std::string& path);

/// Loads every description $KTUNE_USER_KERNELS lists (a worker's start).
void load_user_kernels_from_env();

}  // namespace ktune::user
