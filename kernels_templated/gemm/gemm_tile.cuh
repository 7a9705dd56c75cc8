// gemm_tile.cuh: the global -> shared tile copies of the tensor-core path
// (cp.async with zero-fill predication, or register staging where a vector is
// under 4 bytes) into the layouts of gemm_smem_layout.cuh, addressed by a
// per-thread cursor set up once before the main loop.
#pragma once

#include "kernels_templated/gemm/gemm_common.cuh"
#include "kernels_templated/gemm/gemm_smem_layout.cuh"

namespace ktune_gemm {

/// Copies an operand's ROWS x COLS tiles, k-tile after k-tile, from a
/// row-major global matrix into shared-memory stages, VEC elements per copy.
/// K runs along the tile's rows when K_ALONG_ROWS (an MN-contiguous operand),
/// else along its columns. With PRED, elements at rows >= row_lim or columns
/// >= col_lim are zero-filled (partial vectors included); without it the
/// caller guarantees every tile is in range. ld and col0 are multiples of VEC
/// (the descriptor checks). The addresses are worked out in the constructor;
/// each load() adds constants (see TileCopyCursor).
template <typename T, int ROWS, int COLS, bool SWIZZLE, int VEC, int THREADS, bool PRED, bool K_ALONG_ROWS>
class TileLoader {
 public:
  using Tile = SmemTile<T, ROWS, COLS, SWIZZLE>;

  /// The first tile starts at (row0, col0) of the matrix at `base`.
  __device__ __forceinline__ TileLoader(const T* base, long long ld, int row0, int col0, int row_lim, int col_lim)
      : cursor_(base, ld, static_cast<int>(threadIdx.x), row0, col0, row_lim, col_lim), base_(base) {}

  /// Copies the current k-tile into the stage at shared address `stage` and
  /// moves to the next k-tile (calls must follow the k-tiles in order).
  __device__ __forceinline__ void load(unsigned stage) {
    constexpr int kBytes = VEC * static_cast<int>(sizeof(T));
    const T* base = base_;
    cursor_.step([stage, base](const T* src, int dst, int valid) {
      const unsigned addr = stage + static_cast<unsigned>(dst) * static_cast<unsigned>(sizeof(T));
      if constexpr (kBytes >= 4) {
        int bytes = kBytes;
        if constexpr (PRED) {
          bytes = valid * static_cast<int>(sizeof(T));
          if (valid == 0) src = base;  // nothing is read; keep the address inside the allocation
        }
        cp_async<kBytes>(addr, src, bytes);
      } else {
        // A 2-byte element: cp.async cannot copy under 4 bytes, so load through a register.
        unsigned short value = 0;
        if (!PRED || valid > 0) value = *reinterpret_cast<const unsigned short*>(src);
        asm volatile("st.shared.u16 [%0], %1;\n" ::"r"(addr), "h"(value) : "memory");
      }
    });
  }

 private:
  TileCopyCursor<Tile, VEC, THREADS, PRED, K_ALONG_ROWS, const T*> cursor_;
  const T* base_;
};

}  // namespace ktune_gemm
