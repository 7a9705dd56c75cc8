// Checks of a kernel description against its CUDA source, before any
// configuration compiles: the kernel and reference names, the template
// parameters, the arguments against the kernel's signature, and that each
// #define parameter is read. The compiler judges; this file asks it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernels_templated/family.hpp"
#include "space/device_spec.hpp"

namespace ktune::user {

class UserFamily;

/// What NVRTC's front end says of a program: whether it compiled, its log,
/// and the lowered name of each of the source's name expressions (in order).
struct FrontEndOutput {
  bool ok = false;
  std::string log;
  std::vector<std::string> lowered_names;
};
/// Runs NVRTC's front end (no code generation) on a source.
using FrontEnd = std::function<FrontEndOutput(const KernelSource&)>;

/// Checks `family`'s description against its source for `sizes` on `device`,
/// compiling its default configuration with `front_end` (once for the kernel,
/// once for a reference kernel, once more for a #define parameter no file
/// names). Throws DescriptionError with one line naming the field and what to
/// change for the first mismatch: a kernel or reference name the source does
/// not declare, template arguments that instantiate no kernel, an argument
/// list that does not match the kernel's parameters, a #define parameter
/// nothing reads, or a source that does not compile with the default
/// configuration (its first error).
void check_against_source(const UserFamily& family, const Problem& sizes, const DeviceSpec& device,
                          const FrontEnd& front_end);

/// The parameter types of a kernel's signature from the lowered name of
/// ktune's probe `ktune_check_signature<decltype(&kernel)>`, as the
/// demangler writes them ("float*", "float const*", "int"). Empty optional
/// when the name is not such a probe of a function.
std::optional<std::vector<std::string>> signature_parameters(const std::string& lowered_name);

}  // namespace ktune::user
