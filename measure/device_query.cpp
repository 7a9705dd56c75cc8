// Device query: reads the visible GPUs through the CUDA runtime and NVML.
#include "measure/device_query.hpp"

#include <stdexcept>

#include <cuda_runtime_api.h>

#include "kernels_templated/gpu/device_properties.hpp"
#include "measure/nvml.hpp"

namespace ktune {
namespace {

int attribute(cudaDeviceAttr attr, int device) {
  int v = 0;
  if (cudaDeviceGetAttribute(&v, attr, device) != cudaSuccess) return 0;
  return v;
}

std::string version_text(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

DeviceQuery query_devices() {
  DeviceQuery out;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  // Without a driver the runtime answers cudaErrorInsufficientDriver, not
  // cudaErrorNoDevice: both mean "no GPU here".
  if (err == cudaErrorInsufficientDriver) {
    out.none_reason = "no CUDA driver on this machine";
    return out;
  }
  if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
    out.none_reason = "no CUDA device visible";
    return out;
  }
  if (err != cudaSuccess)
    throw std::runtime_error(std::string("cudaGetDeviceCount: ") + cudaGetErrorString(err));

  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  const Nvml& nvml = Nvml::instance();
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    LiveDevice live;
    live.ordinal = i;
    char bus[32] = {};
    cudaDeviceGetPCIBusId(bus, sizeof bus, i);
    live.pci_bus_id = bus;

    DeviceSpec spec = spec_of_device(prop);
    spec.driver = nvml.driver_version().value_or("");
    spec.cuda_runtime = version_text(runtime);
    spec.sm_clock_mhz = attribute(cudaDevAttrClockRate, i) / 1000.0;
    live.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate, i) / 1000.0;
    live.current_sm_clock_mhz = nvml.sm_clock_mhz(live.pci_bus_id).value_or(0);
    live.spec = std::move(spec);
    out.devices.push_back(std::move(live));
  }
  if (out.devices.empty()) out.none_reason = "no CUDA device could be queried";
  return out;
}

}  // namespace ktune
