// Main-loop description of a built-in `gemm` configuration (iterations,
// stages, copies, shared-memory traffic), derived from its knobs, for the
// cost model's term model while GemmFamily::estimate does not state it.
#pragma once

#include "space/value_map.hpp"
#include "space/work.hpp"

namespace ktune {

/// Fills the main-loop fields of `work` (loop_blocks, loop_iterations,
/// pipeline_stages, loads_per_iteration, shared_bytes, predicated_loads)
/// from the gemm knobs (BLOCK_M/N/K, WARP_M/N, STAGES, VEC, SPLIT_K,
/// PREDICATED) and the problem (m, n, k, dtype). Does nothing and returns
/// false when the estimate already describes its loop (loop_iterations > 0:
/// the family stated it), for the Hopper path (PATH other than "mma"), or
/// when a knob or problem key is missing (not a gemm configuration). Mirrors kernels_templated/gemm (gemm_tc.cuh,
/// gemm_simt.cuh): see search/README.md for each formula.
bool add_gemm_loop_features(WorkEstimate& work, const Problem& problem, const Config& config);

}  // namespace ktune
