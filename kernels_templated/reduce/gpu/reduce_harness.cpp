// The reduce family's GPU harness: a RowwiseHarness of kind reduce.
#include "kernels_templated/reduce/gpu/reduce_harness.hpp"

#include "kernels_templated/rowwise/gpu/rowwise_harness.hpp"

namespace ktune {

std::unique_ptr<FamilyHarness> make_reduce_harness() {
  return std::make_unique<rowwise::RowwiseHarness>(rowwise::Kind::reduce);
}

}  // namespace ktune
