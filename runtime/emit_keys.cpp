// Source identities and shape groups of the emitted tables.
#include "runtime/emit_keys.hpp"

#include "kernels_templated/rowwise/shape_group.hpp"

namespace ktune::rt {
namespace {

int floor_log2(long long v) {
  int l = 0;
  while (v > 1) v >>= 1, ++l;
  return l;
}

}  // namespace

std::string kernel_source_key(const KernelSource& s) {
  std::string key = s.program_name + '\n' + s.source + '\n';
  for (const std::string& k : s.kernels) key += k + '\n';
  for (const std::string& o : s.options) key += o + '\n';
  key += s.needs_arch_specific ? "a" : "-";
  return key;
}

std::string emit_group_key(const KernelFamily& family, const Problem& p) {
  if (family.name() == "gemm")
    return family.shape_class(p) + ".m" + std::to_string(floor_log2(p.integer("m"))) + ".n" +
           std::to_string(floor_log2(p.integer("n"))) + ".k" +
           std::to_string(floor_log2(p.integer("k")));
  return rowwise::group_key(p);
}

}  // namespace ktune::rt
