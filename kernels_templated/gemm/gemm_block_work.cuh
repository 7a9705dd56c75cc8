// gemm_block_work.cuh: which part of C a block of the one-block-per-tile
// grids (SIMT and mma.sync) computes: its tile, in the rasterized order, and
// its K range (blockIdx.z is the K split).
#pragma once

#include "kernels_templated/gemm/gemm_common.cuh"

namespace ktune_gemm {

struct BlockWork {
  int m0, n0;          ///< the tile's first row and column of C
  int k_begin, k_end;  ///< this K split's range
  int k_tiles;         ///< BK-deep tiles covering it (0 for an empty split)
};

template <int BM, int BN, int BK, int GROUP_M>
__device__ __forceinline__ BlockWork block_work(const GemmParams& p) {
  int tile_m, tile_n;
  rasterize<GROUP_M>((p.M + BM - 1) / BM, (p.N + BN - 1) / BN, tile_m, tile_n);
  BlockWork w;
  w.m0 = tile_m * BM;
  w.n0 = tile_n * BN;
  w.k_begin = blockIdx.z * p.k_per_split;
  w.k_end = min(p.K, w.k_begin + p.k_per_split);
  w.k_tiles = w.k_end > w.k_begin ? (w.k_end - w.k_begin + BK - 1) / BK : 0;
  return w;
}

}  // namespace ktune_gemm
