// The shape group of a problem, as the emitted router and the emitter both
// compute it: row-wise families the splitter's rowwise_grouping key (dtype,
// axis, row alignment, length class); gemm its shape class and the
// floor(log2) bucket of M, N and K.
#pragma once

#include <string>

#include "kernels_templated/family.hpp"

namespace ktune::rt {

std::string emit_group_key(const KernelFamily& family, const Problem& normalized);

}  // namespace ktune::rt
