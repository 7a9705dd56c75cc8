// --spec FILE: loads a user kernel's description as a family.
#include "engine/cli/user_kernel_option.hpp"

#include "engine/cli/command.hpp"
#include "kernels_user/user_kernels.hpp"

namespace ktune::cli {

std::string user_family_name(const std::string& kernel, const std::string& spec_file) {
  if (!kernel.empty()) throw UsageError("give --kernel FAMILY or --spec FILE, not both");
  return std::string(user::load_user_kernel(spec_file).name());
}

}  // namespace ktune::cli
