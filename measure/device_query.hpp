// Device query: live DeviceSpecs of the visible GPUs (CUDA runtime + NVML),
// with datasheet ceilings from the built-in table.
#pragma once

#include <string>
#include <vector>

#include "space/device_spec.hpp"

namespace ktune {

struct LiveDevice {
  int ordinal = 0;
  std::string pci_bus_id;
  DeviceSpec spec;
  double memory_clock_mhz = 0;
  double current_sm_clock_mhz = 0;  ///< 0 when NVML is unavailable
};

struct DeviceQuery {
  std::vector<LiveDevice> devices;
  /// Why there are none ("no CUDA driver on this machine", "no CUDA device"),
  /// empty when devices were found.
  std::string none_reason;
};

/// Never throws for "no GPU" (no driver, no device): that is an empty result
/// with a reason. Throws std::runtime_error for other CUDA failures.
DeviceQuery query_devices();

}  // namespace ktune
