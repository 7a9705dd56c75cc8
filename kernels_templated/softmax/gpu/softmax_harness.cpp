// The softmax family's GPU harness: a RowwiseHarness of kind softmax.
#include "kernels_templated/softmax/gpu/softmax_harness.hpp"

#include "kernels_templated/rowwise/gpu/rowwise_harness.hpp"

namespace ktune {

std::unique_ptr<FamilyHarness> make_softmax_harness() {
  return std::make_unique<rowwise::RowwiseHarness>(rowwise::Kind::softmax);
}

}  // namespace ktune
