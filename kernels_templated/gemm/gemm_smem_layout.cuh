// gemm_smem_layout.cuh: shared-memory tile layouts of the tensor-core path
// (padding or XOR swizzle), the per-lane ldmatrix offsets into them and the
// per-thread global -> shared copy addresses, both precomputed once so that
// the main loop only adds constants. No CUDA header: the host tests check the
// offset algebra against SmemTile::offset and the plain copy formula.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define KTUNE_GEMM_HD __host__ __device__ __forceinline__
#else
#define KTUNE_GEMM_HD inline
#endif
#if defined(__CUDA_ARCH__)
#define KTUNE_GEMM_UNROLL _Pragma("unroll")
#else
#define KTUNE_GEMM_UNROLL
#endif

namespace ktune_gemm {

/// A ROWS x COLS tile of T in shared memory, COLS contiguous. Rows are split
/// into 16-byte chunks; SWIZZLE permutes a row's chunks by XOR with a function
/// of the row so that the 8 rows one ldmatrix reads fall in 8 different bank
/// groups; otherwise each row is padded by one chunk, which does the same.
template <typename T, int ROWS, int COLS, bool SWIZZLE>
struct SmemTile {
  static constexpr int kRows = ROWS;
  static constexpr int kCols = COLS;
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
  /// Rows after which the XOR pattern repeats.
  static constexpr int kSwizzlePeriod = kRowDiv * kXorMod;

  /// The chunk-index XOR of a row (with SWIZZLE).
  KTUNE_GEMM_HD static constexpr int row_xor(int row) { return (row / kRowDiv) % kXorMod; }

  KTUNE_GEMM_HD static int offset(int row, int col) {
    if constexpr (SWIZZLE) {
      const int phys = (col / kChunk) ^ row_xor(row);
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
// pattern repeats, so s adds 16 s rows. c_lane is the warp's first column (a
// multiple of the power-of-two warp width) plus 0 or 8, and 16 t stays under
// the warp width, so the chunk indices of c_lane and 16 t have disjoint bits:
// with the swizzle, t XORs the lane's offset with 16 t, else adds 16 t.

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

/// Offsets of an MN-contiguous operand's loads for one lane (BLOCKS along M
/// or N; c_lane's warp column is a multiple of 16 BLOCKS rounded up to a
/// power of two).
template <typename Tile, int BLOCKS>
struct MNContiguousFragments {
  static_assert(!Tile::kSwizzle || (Tile::kChunks & (Tile::kChunks - 1)) == 0,
                "swizzled rows of a power-of-two number of chunks");
  int base;  ///< element offset of block 0 at k-step 0 for this lane

  KTUNE_GEMM_HD MNContiguousFragments(int r_lane, int c_lane) : base(Tile::offset(r_lane, c_lane)) {}
  /// Element offset of block t at k-step s.
  KTUNE_GEMM_HD int offset(int t, int s) const {
    const int in_row = Tile::kSwizzle ? (base ^ (16 * t)) : base + 16 * t;
    return in_row + 16 * s * Tile::kStride;
  }
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

// ---- Global -> shared copies ----
//
// THREADS threads copy a tile in VEC-element vectors: copy i of thread tid
// moves vector v = tid + i THREADS of the tile, at row v / kPerRow and column
// (v % kPerRow) VEC. Tile sizes, VEC and THREADS are powers of two, so either
// one pass of THREADS vectors covers whole rows (a thread's copies share a
// column, kRowStep rows apart) or a row takes several passes (every thread
// starts in row 0). Either way copy i lies a compile-time (row_delta(i),
// col_delta(i)) from the thread's first copy, and so does its destination:
//  - padded rows: + row_delta kStride + col_delta;
//  - swizzled, whole rows: the XOR pattern repeats every kSwizzlePeriod rows,
//    so if kRowStep is a multiple of it, + row_delta kStride; otherwise the
//    first kSwizzlePeriod / kRowStep copies keep their own offsets (a
//    register each) and copy i is copy i % that plus whole periods of rows;
//  - swizzled, several passes per row: the first copy is at (0, c) with
//    c < THREADS VEC and col_delta a multiple of THREADS VEC (a power of two),
//    so the chunk indices have disjoint bits and the destination is
//    (c ^ (col_delta ^ row_xor(row_delta) kChunk)) + row_delta kStride.
// Sources: one pointer per thread, stepped by a runtime row stride (kRowStep
// ld) from copy to copy and by BLOCK_K (or BLOCK_K ld) from k-tile to k-tile.

/// How a block's THREADS threads split a Tile into VEC-element copies.
template <typename Tile, int VEC, int THREADS>
struct TileCopyPlan {
  static_assert(Tile::kCols % VEC == 0, "vector width must divide the tile row");
  static constexpr int kPerRow = Tile::kCols / VEC;  // vectors per tile row
  static constexpr int kTotal = Tile::kRows * kPerRow;
  static constexpr int kCopies = (kTotal + THREADS - 1) / THREADS;  // per thread
  static constexpr bool kWholeRows = THREADS % kPerRow == 0;
  static_assert(kWholeRows || kPerRow % THREADS == 0, "threads and vectors per row must be powers of two");
  static constexpr int kPassesPerRow = kWholeRows ? 1 : kPerRow / THREADS;
  static constexpr int kRowStep = kWholeRows ? THREADS / kPerRow : 1;  // rows between copies in different rows
  static constexpr bool kAllActive = kTotal % THREADS == 0;
  static_assert(kAllActive || kCopies == 1, "a tile smaller than one pass is copied in one partial pass");
  static_assert(!Tile::kSwizzle || (Tile::kChunks & (Tile::kChunks - 1)) == 0,
                "swizzled rows of a power-of-two number of chunks");
  /// Destination offsets a thread keeps: one when the others follow from its
  /// first by constants, else one per copy within a swizzle period of rows.
  static constexpr int kDstSlots = !Tile::kSwizzle || !kWholeRows || kRowStep % Tile::kSwizzlePeriod == 0
                                       ? 1
                                       : (kCopies < Tile::kSwizzlePeriod / kRowStep ? kCopies
                                                                                   : Tile::kSwizzlePeriod / kRowStep);
  static constexpr bool kDstFromFirst = kDstSlots == 1;

  KTUNE_GEMM_HD static constexpr int row_delta(int i) { return kWholeRows ? i * kRowStep : i / kPassesPerRow; }
  /// Source row strides from copy 0 to copy i (each change of row is one).
  KTUNE_GEMM_HD static constexpr int row_steps(int i) { return kWholeRows ? i : i / kPassesPerRow; }
  KTUNE_GEMM_HD static constexpr int col_delta(int i) { return kWholeRows ? 0 : (i % kPassesPerRow) * THREADS * VEC; }
  /// With kDstFromFirst: copy i's element offset is (first ^ dst_xor(i)) + dst_add(i);
  /// otherwise it is slot i % kDstSlots's plus slot_add(i).
  KTUNE_GEMM_HD static constexpr int dst_xor(int i) {
    return Tile::kSwizzle ? col_delta(i) ^ (Tile::row_xor(row_delta(i)) * Tile::kChunk) : 0;
  }
  KTUNE_GEMM_HD static constexpr int dst_add(int i) {
    return row_delta(i) * Tile::kStride + (Tile::kSwizzle ? 0 : col_delta(i));
  }
  KTUNE_GEMM_HD static constexpr int slot_add(int i) {
    return (row_delta(i) - row_delta(i % kDstSlots)) * Tile::kStride;
  }
  KTUNE_GEMM_HD static int first_row(int tid) { return tid / kPerRow; }
  KTUNE_GEMM_HD static int first_col(int tid) { return tid % kPerRow * VEC; }
};

/// One thread's copies of an operand, k-tile after k-tile: built once before
/// the main loop; each step() visits the copies of the current k-tile and
/// moves on to the next. K runs along the tile's rows (K_ALONG_ROWS: the
/// operand is MN-contiguous) or along its columns. Ptr is the source pointer
/// (const T* on the device; the host test passes element indices).
template <typename Tile, int VEC, int THREADS, bool PRED, bool K_ALONG_ROWS, typename Ptr>
class TileCopyCursor {
 public:
  using Plan = TileCopyPlan<Tile, VEC, THREADS>;

  /// The tile of this block starts at (row0, col0) of a row-major matrix at
  /// `base` with leading dimension ld; with PRED, elements at rows >= row_lim
  /// or columns >= col_lim are not read (their copies say how many are valid).
  KTUNE_GEMM_HD TileCopyCursor(Ptr base, long long ld, int tid, int row0, int col0, int row_lim, int col_lim)
      : src_(base), active_(Plan::kAllActive || tid < Plan::kTotal) {
    const int row = Plan::first_row(tid), col = Plan::first_col(tid);
    src_ += static_cast<long long>(row0 + row) * ld + (col0 + col);
    // Between copies in different rows; after the last copy of a k-tile that
    // runs along K, the same step reaches the next k-tile's first row (the
    // thread's rows are kRowStep apart and end kRowStep short of the tile's
    // end), unless a single copy does not cover the tile.
    stride_ = (K_ALONG_ROWS && Plan::kCopies == 1 ? Tile::kRows : Plan::kRowStep) * ld;
    if constexpr (Plan::kDstFromFirst) {
      dst_[0] = Tile::offset(row, col);
    } else {
      for (int i = 0; i < Plan::kDstSlots; ++i) dst_[i] = Tile::offset(row + Plan::row_delta(i), col);
    }
    rows_left_ = row_lim - (row0 + row);
    cols_left_ = col_lim - (col0 + col);
  }

  /// Calls copy(src, dst, valid) for each of the thread's copies of the
  /// current k-tile: src its first source element, dst the element offset
  /// of its destination in the tile, valid how many of its VEC elements are
  /// in range (VEC without PRED); then moves to the next k-tile.
  template <typename Copy>
  KTUNE_GEMM_HD void step(Copy&& copy) {
    KTUNE_GEMM_UNROLL
    for (int i = 0; i < Plan::kCopies; ++i) {
      // Each copy's source is the first's plus a constant number of row
      // strides (independent additions rather than a chain: the form measured
      // on the H200, 2% faster than the chain at 4096^3).
      const Ptr p = src_ + Plan::row_steps(i) * stride_;
      int dst;
      if constexpr (Plan::kDstFromFirst) dst = (dst_[0] ^ Plan::dst_xor(i)) + Plan::dst_add(i);
      else dst = dst_[i % Plan::kDstSlots] + Plan::slot_add(i);
      int valid = VEC;
      if constexpr (PRED) {
        valid = cols_left_ - Plan::col_delta(i);
        valid = valid < 0 ? 0 : (valid > VEC ? VEC : valid);
        if (Plan::row_delta(i) >= rows_left_) valid = 0;
      }
      if (active_) copy(p + Plan::col_delta(i), dst, valid);
    }
    if constexpr (K_ALONG_ROWS) {
      static_assert(Plan::kCopies == 1 || Plan::row_delta(Plan::kCopies - 1) + Plan::kRowStep == Tile::kRows,
                    "a thread's last row is one row step short of the tile's end");
      src_ += (Plan::row_steps(Plan::kCopies - 1) + 1) * stride_;
      rows_left_ -= Tile::kRows;
    } else {
      src_ += Tile::kCols;
      cols_left_ -= Tile::kCols;
    }
  }

 private:
  Ptr src_;           ///< the first copy's source at the current k-tile
  long long stride_;  ///< elements between copies' rows (see the constructor)
  int dst_[Plan::kDstSlots];  ///< destination offsets (elements, stage 0)
  int rows_left_;     ///< rows of the matrix from the first copy's row on (PRED)
  int cols_left_;     ///< columns from the first copy's column on (PRED)
  bool active_;       ///< a partial pass leaves some threads without a copy
};

}  // namespace ktune_gemm
