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

/// The spec of a live device: the built-in row of its name, or else its
/// architecture's first row (for what the properties do not report: ceilings,
/// clock, registers per thread), updated by spec_from_properties.
DeviceSpec spec_of_device(const cudaDeviceProp& prop);

}  // namespace ktune
