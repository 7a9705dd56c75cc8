// Host test of the tensor-core path's shared-memory addressing: the
// precomputed per-lane ldmatrix offsets (gemm_smem_layout.cuh) equal
// SmemTile::offset of the row and column each lane reads, for every tile
// shape the space allows, both layouts (padding, XOR swizzle), every lane,
// block and k-step.
#include <gtest/gtest.h>

#include <string>

#include "kernels_templated/gemm/gemm_smem_layout.cuh"

namespace ktune_gemm {
namespace {

using Half = unsigned short;  // any 2-byte element: the layout only uses its size

int checked = 0;

/// K-contiguous tile (ROWS along M or N, COLS = BLOCK_K): lanes of a warp at
/// row `first` read rows first + lane%16 (A) or first + 8*(q/2) + lane%8 (B).
template <int ROWS, int COLS, bool SWIZZLE>
void check_k_contiguous() {
  using Tile = SmemTile<Half, ROWS, COLS, SWIZZLE>;
  for (int warp_rows = 16; warp_rows <= ROWS; warp_rows *= 2)
    for (int first = 0; first + warp_rows <= ROWS; first += warp_rows)
      for (int lane = 0; lane < 32; ++lane)
        for (int pattern = 0; pattern < 2; ++pattern) {
          const int q = lane / 8;
          const int row_lane = pattern == 0 ? first + lane % 16 : first + (q / 2) * 8 + lane % 8;
          const int h = pattern == 0 ? lane / 16 : q % 2;
          const KContiguousFragments<Tile> f(row_lane, h);
          for (int t = 0; 16 * t + 16 <= warp_rows; ++t)
            for (int s = 0; 16 * s < COLS; ++s) {
              ASSERT_EQ(f.offset(t, s), Tile::offset(row_lane + 16 * t, 16 * s + 8 * h))
                  << ROWS << "x" << COLS << (SWIZZLE ? " xor" : " pad") << " lane " << lane << " t " << t << " s "
                  << s;
              ++checked;
            }
        }
}

/// MN-contiguous tile (ROWS = BLOCK_K, COLS along M or N).
template <int ROWS, int COLS, bool SWIZZLE>
void check_mn_contiguous() {
  using Tile = SmemTile<Half, ROWS, COLS, SWIZZLE>;
  constexpr int kBlocks = COLS / 16;
  for (int warp_cols = 16; warp_cols <= COLS; warp_cols *= 2)
    for (int first = 0; first + warp_cols <= COLS; first += warp_cols)
      for (int lane = 0; lane < 32; ++lane)
        for (int pattern = 0; pattern < 2; ++pattern) {
          const int q = lane / 8;
          // A transposed: rows (q/2)*8 + lane%8, columns +(q%2)*8; B: the other way round.
          const int r_lane = (pattern == 0 ? q / 2 : q % 2) * 8 + lane % 8;
          const int c_lane = first + (pattern == 0 ? q % 2 : q / 2) * 8;
          const MNContiguousFragments<Tile, kBlocks> f(r_lane, c_lane);
          for (int t = 0; 16 * t + 16 <= warp_cols; ++t)
            for (int s = 0; 16 * s < ROWS; ++s) {
              ASSERT_EQ(f.offset(t, s), Tile::offset(16 * s + r_lane, c_lane + 16 * t))
                  << ROWS << "x" << COLS << (SWIZZLE ? " xor" : " pad") << " lane " << lane << " t " << t << " s "
                  << s;
              ++checked;
            }
        }
}

template <bool SWIZZLE>
void check_all() {
  // Block tiles 16..256 along M/N, BLOCK_K 16..128 (the space's ranges).
  check_k_contiguous<16, 16, SWIZZLE>();
  check_k_contiguous<64, 32, SWIZZLE>();
  check_k_contiguous<128, 32, SWIZZLE>();
  check_k_contiguous<128, 64, SWIZZLE>();
  check_k_contiguous<256, 128, SWIZZLE>();
  check_k_contiguous<32, 128, SWIZZLE>();
  check_mn_contiguous<16, 16, SWIZZLE>();
  check_mn_contiguous<32, 64, SWIZZLE>();
  check_mn_contiguous<32, 128, SWIZZLE>();
  check_mn_contiguous<64, 256, SWIZZLE>();
  check_mn_contiguous<128, 32, SWIZZLE>();
  check_mn_contiguous<16, 256, SWIZZLE>();
}

TEST(GemmSmemLayout, PrecomputedFragmentOffsetsMatchTheTileLayout) {
  checked = 0;
  check_all<false>();
  check_all<true>();
  EXPECT_GT(checked, 10000);
}

// The test is not vacuous: a wrong XOR step (e.g. 8 s instead of 16 s) is caught.
TEST(GemmSmemLayout, WrongSwizzleStepIsDetected) {
  using Tile = SmemTile<Half, 128, 64, true>;
  const KContiguousFragments<Tile> f(5, 1);
  bool differs = false;
  for (int s = 1; s < 4; ++s) differs |= (f.base ^ (8 * s)) != Tile::offset(5, 16 * s + 8);
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace ktune_gemm
