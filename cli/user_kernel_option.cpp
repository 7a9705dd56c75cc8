// --spec FILE: loads a user kernel's description as a family, and checks it
// against its source with NVRTC's front end.
#include "cli/user_kernel_option.hpp"

#include "cli/command.hpp"
#include "compile/compiler.hpp"
#include "kernels_user/source_check.hpp"
#include "kernels_user/user_family.hpp"
#include "kernels_user/user_kernels.hpp"

namespace ktune::cli {

std::string user_family_name(const std::string& kernel, const std::string& spec_file) {
  if (!kernel.empty()) throw UsageError("give --kernel FAMILY or --spec FILE, not both");
  return std::string(user::load_user_kernel(spec_file).name());
}

void check_user_kernel_source(const KernelFamily& family, const Problem& problem,
                              const DeviceSpec& device, const std::string& arch) {
  const auto* user = dynamic_cast<const user::UserFamily*>(&family);
  if (!user) return;
  CompilerOptions options;
  options.arch = arch;
  const Compiler compiler(options);
  user::check_against_source(*user, problem, device, [&compiler](const KernelSource& source) {
    const CompileOutput out = compiler.check_front_end(source);
    user::FrontEndOutput front_end{out.ok, out.log, {}};
    for (const KernelResources& k : out.kernels) front_end.lowered_names.push_back(k.lowered_name);
    return front_end;
  });
}

}  // namespace ktune::cli
