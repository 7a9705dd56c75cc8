// Source identities and shape groups of the emitted tables.
#include "runtime/emit_keys.hpp"

namespace ktune::rt {
std::string kernel_source_key(const KernelSource& s) {
  std::string key = s.program_name + '\n' + s.source + '\n';
  for (const std::string& k : s.kernels) key += k + '\n';
  for (const std::string& o : s.options) key += o + '\n';
  key += s.needs_arch_specific ? "a" : "-";
  return key;
}

std::string emit_group_key(const KernelFamily& family, const Problem& p) {
  return family.shape_group(p);
}

}  // namespace ktune::rt
