// The reduce kernel family: a RowwiseFamily of kind reduce.
#include "kernels_templated/reduce/reduce_family.hpp"

#include "kernels_templated/rowwise/rowwise_family.hpp"

namespace ktune {

const KernelFamily& reduce_family() {
  static const rowwise::RowwiseFamily family(rowwise::Kind::reduce);
  return family;
}

}  // namespace ktune
