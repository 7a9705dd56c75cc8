// --spec FILE of `ktune tune`, `ktune space` and `ktune lookup`: a user
// kernel's description in place of --kernel FAMILY, checked against its source.
#pragma once

#include <string>

#include "kernels_templated/family.hpp"
#include "space/device_spec.hpp"

namespace ktune::cli {

/// Loads the user kernel described at `spec_file` and returns its family
/// name; UsageError when --kernel `kernel` is given too. A bad description
/// throws DescriptionError naming the field (exit 2).
std::string user_family_name(const std::string& kernel, const std::string& spec_file);

/// For a user kernel's family, checks its description against its source
/// (kernels_user/source_check.hpp) with NVRTC's front end for `arch`, before
/// any configuration compiles; throws DescriptionError naming the field and
/// what to change (exit 2). Does nothing for a built-in family.
void check_user_kernel_source(const KernelFamily& family, const Problem& problem,
                              const DeviceSpec& device, const std::string& arch);

}  // namespace ktune::cli
