// The reduce kernel family's descriptor (see rowwise/rowwise_family.hpp).
#pragma once

#include "kernels_templated/family.hpp"

namespace ktune {

/// The reduce family, registered in kernels_templated/registry.cpp.
const KernelFamily& reduce_family();

}  // namespace ktune
