// The rmsnorm kernel family: a RowwiseFamily of kind rmsnorm.
#include "kernels_templated/rmsnorm/rmsnorm_family.hpp"

#include "kernels_templated/rowwise/rowwise_family.hpp"

namespace ktune {

const KernelFamily& rmsnorm_family() {
  static const rowwise::RowwiseFamily family(rowwise::Kind::rmsnorm);
  return family;
}

}  // namespace ktune
