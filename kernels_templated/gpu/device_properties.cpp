// spec_from_properties: a cudaDeviceProp's identity and resources over a spec.
#include "kernels_templated/gpu/device_properties.hpp"

#include <string>
#include <utility>

namespace ktune {

DeviceSpec spec_from_properties(const cudaDeviceProp& prop, DeviceSpec base) {
  DeviceSpec spec = std::move(base);
  spec.name = prop.name;
  spec.cc_major = prop.major;
  spec.cc_minor = prop.minor;
  spec.sm_count = prop.multiProcessorCount;
  spec.max_threads_per_block = prop.maxThreadsPerBlock;
  spec.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  spec.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
  spec.smem_per_sm = static_cast<int>(prop.sharedMemPerMultiprocessor);
  spec.smem_per_block_optin = static_cast<int>(prop.sharedMemPerBlockOptin);
  spec.regs_per_sm = prop.regsPerMultiprocessor;
  spec.l2_bytes = prop.l2CacheSize;
  spec.global_memory_bytes = static_cast<long long>(prop.totalGlobalMem);
  return spec;
}

DeviceSpec spec_of_device(const cudaDeviceProp& prop) {
  std::optional<DeviceSpec> base = find_builtin_device(prop.name);
  if (!base)
    base = find_builtin_device("sm_" + std::to_string(prop.major) + std::to_string(prop.minor));
  return spec_from_properties(prop, base.value_or(DeviceSpec{}));
}

}  // namespace ktune
