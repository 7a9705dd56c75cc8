// gemm_tile.cuh: the global -> shared tile copy of the tensor-core path
// (cp.async with zero-fill predication, or register staging where a vector is
// under 4 bytes) into the layouts of gemm_smem_layout.cuh.
#pragma once

#include "kernels_templated/gemm/gemm_common.cuh"
#include "kernels_templated/gemm/gemm_smem_layout.cuh"

namespace ktune_gemm {

/// Copies the ROWS x COLS tile at (row0, col0) of a row-major global matrix
/// (leading dimension ld, elements) into `tile`, VEC elements per copy. With
/// PRED, elements at rows >= row_lim or cols >= col_lim are zero-filled
/// (partial vectors included); without it the caller guarantees the whole
/// tile is in range. ld and col0 are multiples of VEC (the descriptor checks).
template <typename T, int ROWS, int COLS, bool SWIZZLE, int VEC, int THREADS, bool PRED>
__device__ __forceinline__ void copy_tile_async(T* tile, const T* base, long long ld, int row0, int col0,
                                                int row_lim, int col_lim) {
  using Tile = SmemTile<T, ROWS, COLS, SWIZZLE>;
  constexpr int kBytes = VEC * static_cast<int>(sizeof(T));
  constexpr int kPerRow = COLS / VEC;
  constexpr int kTotal = ROWS * kPerRow;
  constexpr int kIters = (kTotal + THREADS - 1) / THREADS;
  static_assert(COLS % VEC == 0, "vector width must divide the tile row");
#pragma unroll
  for (int i = 0; i < kIters; ++i) {
    const int v = static_cast<int>(threadIdx.x) + i * THREADS;
    if (kTotal % THREADS == 0 || v < kTotal) {
      const int row = v / kPerRow;
      const int col = (v % kPerRow) * VEC;
      const int grow = row0 + row;
      const int gcol = col0 + col;
      T* dst = tile + Tile::offset(row, col);
      if constexpr (kBytes >= 4) {
        const T* src = base + static_cast<long long>(grow) * ld + gcol;
        int bytes = kBytes;
        if constexpr (PRED) {
          int valid = col_lim - gcol;
          valid = valid < 0 ? 0 : (valid > VEC ? VEC : valid);
          if (grow >= row_lim) valid = 0;
          bytes = valid * static_cast<int>(sizeof(T));
          if (valid == 0) src = base;  // nothing is read; keep the address inside the allocation
        }
        cp_async<kBytes>(smem_addr(dst), src, bytes);
      } else {
        // A 2-byte element: cp.async cannot copy under 4 bytes, so load through a register.
        unsigned short value = 0;
        if (!PRED || (grow < row_lim && gcol < col_lim))
          value = *reinterpret_cast<const unsigned short*>(base + static_cast<long long>(grow) * ld + gcol);
        *reinterpret_cast<unsigned short*>(dst) = value;
      }
    }
  }
}

}  // namespace ktune_gemm
