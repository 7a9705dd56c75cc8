// The DeviceSpec fields the CUDA runtime reports (cudaDeviceProp), filled in
// one place for the engine's device query and the runtime's live device.
#pragma once

#include <cuda_runtime_api.h>

#include "space/device_spec.hpp"

namespace ktune {

/// `base` (a built-in table row, or a blank spec) with its identity and
/// resources replaced by what `prop` reports: name, compute capability, SM
/// count, thread, block, shared-memory and register limits, L2 and global
/// memory. Ceilings, clock, driver and runtime versions stay as `base` has them.
DeviceSpec spec_from_properties(const cudaDeviceProp& prop, DeviceSpec base);

}  // namespace ktune
