// What the gemm descriptor's files (gemm_family.cpp, gemm_space.cpp,
// gemm_resources.cpp) share: integer ceilings, the split-K mode of a
// configuration and the SIMT lane grid. Internal to the descriptor.
#pragma once

#include "kernels_templated/gemm/gemm_family.hpp"

namespace ktune::gemm_detail {

inline long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

/// 0: no split; 1: workspace split-K (a reduce kernel follows); 2: atomic split-K (a prescale
/// kernel precedes).
inline int split_mode(const GemmKnobs& k) {
  if (k.split_k <= 1) return 0;
  return k.reduce == "atomic" ? 2 : 1;
}

// SIMT lane grid: 4 x 8 lanes, or 8 x 4 when the warp tile is taller than wide
// (mirrors gemm_simt.cuh).
inline int simt_thread_m(int wm, int wn) { return wm / (wm > wn ? 8 : 4); }
inline int simt_thread_n(int wm, int wn) { return wn / (wm > wn ? 4 : 8); }

}  // namespace ktune::gemm_detail
