// The softmax kernel family: a RowwiseFamily of kind softmax.
#include "kernels_templated/softmax/softmax_family.hpp"

#include "kernels_templated/rowwise/rowwise_family.hpp"

namespace ktune {

const KernelFamily& softmax_family() {
  static const rowwise::RowwiseFamily family(rowwise::Kind::softmax);
  return family;
}

}  // namespace ktune
