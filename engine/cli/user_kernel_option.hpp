// --spec FILE of `ktune tune` and `ktune space`: a user kernel's description
// in place of --kernel FAMILY.
#pragma once

#include <string>

namespace ktune::cli {

/// Loads the user kernel described at `spec_file` and returns its family
/// name; UsageError when --kernel `kernel` is given too. A bad description
/// throws DescriptionError naming the field (exit 2).
std::string user_family_name(const std::string& kernel, const std::string& spec_file);

}  // namespace ktune::cli
