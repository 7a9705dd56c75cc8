// resolve_asked_device: the GPU a lookup is asked about, from `--device` or
// this machine's GPU 0, with the specs the predictor evaluates for it.
#pragma once

#include <functional>
#include <string>

#include "db/lookup.hpp"
#include "measure/device_query.hpp"

namespace ktune {

struct AskedDevice {
  std::string name;  ///< empty: only an arch is asked
  std::string arch;
  DeviceSpec spec;  ///< cc_major 0: unknown (a name only the databases know)
  bool from_driver = false;
};

/// `device` resolved, in this order: empty, this machine's GPU 0 (as its
/// driver reports it); an arch ("sm_90"); a name of the device table or a
/// fragment of one ("h200", "h100 pcie"); a name this machine's driver
/// reports (a card the table lacks, e.g. an "NVIDIA H100 NVL", is served
/// from its arch with the driver's specs); a name the databases measured.
/// Throws std::invalid_argument, one line naming the known GPUs and archs,
/// for anything else, and for an empty `device` on a machine without a GPU.
AskedDevice resolve_asked_device(const std::string& device, const Lookup& lookup,
                                 const std::function<DeviceQuery()>& query = query_devices);

}  // namespace ktune
