// WorkEstimate: a kernel family's description of what one configuration does,
// the input of the roofline cost model.
#pragma once

#include "space/device_spec.hpp"

namespace ktune {

/// What a configuration of a family costs, as the family describes it. The
/// cost model turns this and a DeviceSpec into a predicted time and bound.
struct WorkEstimate {
  double flops = 0;                      ///< useful floating-point operations
  double executed_flops = 0;             ///< including padding waste of partial tiles (>= flops)
  ComputeUnit unit = ComputeUnit::simt_fp32;
  double dram_bytes = 0;                 ///< moved through DRAM with the tile reuse of this config
  double min_bytes = 0;                  ///< each input read once, each output written once
  long long blocks = 0;                  ///< thread blocks launched (all kernels of the config)
  int threads_per_block = 0;
  int smem_per_block = 0;                ///< bytes
  int regs_per_thread = 0;               ///< estimate; 0 when unknown
  int kernels = 1;                       ///< launches (split-K reduction adds one)
  double extra_bytes = 0;                ///< e.g. split-K partials written and read back
};

}  // namespace ktune
