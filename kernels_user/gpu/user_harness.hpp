// The GPU harness of a user kernel: buffers filled as its description says,
// launches from its grid/block expressions, and verification by reference
// kernel, reference file or the first configuration's output.
#pragma once

#include <memory>

#include "kernels_templated/harness.hpp"

namespace ktune::user {

class UserFamily;

/// A harness for `family` (which must outlive it).
std::unique_ptr<FamilyHarness> make_user_harness(const UserFamily& family);

}  // namespace ktune::user
