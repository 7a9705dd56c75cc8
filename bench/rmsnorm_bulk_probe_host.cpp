// The rmsnorm family's element bound for the bulk-copy probe, asked of its
// RowwiseSpec on the host (the probe's nvcc translation unit is C++17; the
// family descriptors are C++20).
#include "kernels_templated/rowwise/rowwise_family.hpp"

namespace ktune {

verify::ElementBound rmsnorm_bf16_bound(long long cols) {
  return rowwise::find_rowwise_family("rmsnorm").spec().element_bound(verify::Precision::bf16, cols,
                                                                      Problem{});
}

}  // namespace ktune
