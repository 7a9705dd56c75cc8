// gemm_smem_layout.cuh: shared-memory tile layouts of the tensor-core path
// (padding or XOR swizzle) and the per-lane ldmatrix offsets into them,
// precomputed once so that the main loop only adds constants. No CUDA
// header: the host tests check the offset algebra against SmemTile::offset.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define KTUNE_GEMM_HD __host__ __device__ __forceinline__
#else
#define KTUNE_GEMM_HD inline
#endif

namespace ktune_gemm {

/// A ROWS x COLS tile of T in shared memory, COLS contiguous. Rows are split
/// into 16-byte chunks; SWIZZLE permutes a row's chunks by XOR with a function
/// of the row so that the 8 rows one ldmatrix reads fall in 8 different bank
/// groups; otherwise each row is padded by one chunk, which does the same.
template <typename T, int ROWS, int COLS, bool SWIZZLE>
struct SmemTile {
  static constexpr int kChunk = 16 / static_cast<int>(sizeof(T));  // elements per 16 bytes
  static constexpr int kChunks = COLS / kChunk;
  static_assert(COLS % kChunk == 0, "a tile row must be a whole number of 16-byte chunks");
  static constexpr bool kSwizzle = SWIZZLE;
  static constexpr int kStride = SWIZZLE ? COLS : COLS + kChunk;
  static constexpr int kElems = ROWS * kStride;
  // Rows sharing one 128-byte line (when a row is shorter) are told apart by
  // row / kRowDiv; kXorMod distinct XOR values cover the 8 bank groups.
  static constexpr int kRowDiv = kChunks >= 8 ? 1 : 8 / kChunks;
  static constexpr int kXorMod = kChunks >= 8 ? 8 : kChunks;

  KTUNE_GEMM_HD static int offset(int row, int col) {
    if constexpr (SWIZZLE) {
      const int phys = (col / kChunk) ^ ((row / kRowDiv) % kXorMod);
      return row * kStride + phys * kChunk + col % kChunk;
    } else {
      return row * kStride + col;
    }
  }
};

// The 16-bit ldmatrix.x4 loads of a warp tile read 16 x 16 blocks: block t
// along M (or N) and k-step s (16 elements of K). Two tile orientations:
//
// K-contiguous (A not transposed, B transposed): a lane's row is
// row_lane + 16 t and its column 16 s + 8 h. Moving 16 rows keeps the XOR
// pattern (it repeats every 8 rows), so t adds 16 t rows; with the swizzle,
// the chunk index 2 s + h = 2 s ^ h, so s XORs the lane's offset with 16 s
// (rows start at multiples of the power-of-two row length, whose low bits
// the XOR touches only inside the row).
//
// MN-contiguous (A transposed, B not transposed): a lane's row is
// 16 s + r_lane and its column c_lane + 16 t. 16 rows further down the XOR
// pattern repeats, so s adds 16 s rows; t changes the chunk index in a way the
// XOR does not separate from in general, so each t keeps its own offset.

/// Offsets of a K-contiguous operand's loads for one lane.
template <typename Tile>
struct KContiguousFragments {
  static_assert(!Tile::kSwizzle || (Tile::kChunks & (Tile::kChunks - 1)) == 0,
                "swizzled rows of a power-of-two number of chunks");
  int base;  ///< element offset of block (0, 0) for this lane

  KTUNE_GEMM_HD KContiguousFragments(int row_lane, int h) : base(Tile::offset(row_lane, 8 * h)) {}
  /// Element offset of block t at k-step s.
  KTUNE_GEMM_HD int offset(int t, int s) const {
    const int in_row = Tile::kSwizzle ? (base ^ (16 * s)) : base + 16 * s;
    return in_row + 16 * t * Tile::kStride;
  }
};

/// Offsets of an MN-contiguous operand's loads for one lane (BLOCKS along M or N).
template <typename Tile, int BLOCKS>
struct MNContiguousFragments {
  int base[BLOCKS];  ///< element offset of block t at k-step 0

  KTUNE_GEMM_HD MNContiguousFragments(int r_lane, int c_lane) {
    for (int t = 0; t < BLOCKS; ++t) base[t] = Tile::offset(r_lane, c_lane + 16 * t);
  }
  KTUNE_GEMM_HD int offset(int t, int s) const { return base[t] + 16 * s * Tile::kStride; }
};

/// The loads of one operand: MN_CONTIGUOUS picks the orientation; the two
/// constructor arguments are (row_lane, h) for K-contiguous tiles and
/// (r_lane, c_lane) for MN-contiguous ones (see above).
template <typename Tile, bool MN_CONTIGUOUS, int BLOCKS>
struct OperandFragments : KContiguousFragments<Tile> {
  KTUNE_GEMM_HD OperandFragments(int a, int b) : KContiguousFragments<Tile>(a, b) {}
};
template <typename Tile, int BLOCKS>
struct OperandFragments<Tile, true, BLOCKS> : MNContiguousFragments<Tile, BLOCKS> {
  KTUNE_GEMM_HD OperandFragments(int a, int b) : MNContiguousFragments<Tile, BLOCKS>(a, b) {}
};

}  // namespace ktune_gemm
