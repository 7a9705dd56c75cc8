// The softmax kernel family's descriptor (see rowwise/rowwise_family.hpp).
#pragma once

#include "kernels_templated/family.hpp"

namespace ktune {

/// The softmax family, registered in kernels_templated/registry.cpp.
const KernelFamily& softmax_family();

}  // namespace ktune
