// The rmsnorm kernel family's descriptor (see rowwise/rowwise_family.hpp).
#pragma once

#include "kernels_templated/family.hpp"

namespace ktune {

/// The rmsnorm family, registered in kernels_templated/registry.cpp.
const KernelFamily& rmsnorm_family();

}  // namespace ktune
