// The rmsnorm family's GPU harness: a RowwiseHarness of kind rmsnorm.
#include "kernels_templated/rmsnorm/gpu/rmsnorm_harness.hpp"

#include "kernels_templated/rowwise/gpu/rowwise_harness.hpp"

namespace ktune {

std::unique_ptr<FamilyHarness> make_rmsnorm_harness() {
  return std::make_unique<rowwise::RowwiseHarness>(rowwise::Kind::rmsnorm);
}

}  // namespace ktune
