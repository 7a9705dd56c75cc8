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
  double extra_bytes = 0;                ///< e.g. split-K partials written and read back (not in dram_bytes: the cost model adds them)

  // The main loop of the kernel that does the work (optional). When
  // loop_iterations is 0 the family did not describe it and the cost model
  // uses only the roofline terms above; when set, a calibrated model also
  // prices shared-memory traffic, pipeline latency and load issue (see
  // search/README.md, "term model").
  long long loop_blocks = 0;             ///< blocks of the main-loop kernel (0 = `blocks`)
  int loop_iterations = 0;               ///< main-loop iterations of one block (GEMM: K tiles of one split)
  int pipeline_stages = 0;               ///< tiles in flight in shared memory (1 = loads do not overlap math)
  double loads_per_iteration = 0;        ///< warp-level global->shared copy instructions per block and iteration
  double shared_bytes = 0;               ///< shared-memory traffic of the whole launch (tile stores + operand reads)
  bool predicated_loads = false;         ///< every copy is bounds-checked
};

}  // namespace ktune
