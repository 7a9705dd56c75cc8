// Host test of the tensor-core path's global -> shared copy addressing: the
// per-thread cursor (TileCopyCursor in gemm_smem_layout.cuh), set up once and
// stepped by constants, visits the same source element, destination offset
// and valid-element count as the plain per-copy formula (row and column from
// the thread and copy index, SmemTile::offset), for every thread, copy and
// k-tile of tile shapes, vector widths and block sizes the space allows, both
// layouts, both operand orientations, with and without bounds checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "kernels_templated/gemm/gemm_smem_layout.cuh"

namespace ktune_gemm {
namespace {

using Half = unsigned short;  // any 2-byte element: the layout only uses its size

struct Coverage {
  long long copies = 0;
  int plans = 0, whole_rows = 0, several_passes = 0, partial_pass = 0, per_copy_dst = 0, reused_dst = 0;
};
Coverage coverage;

/// The copies one thread makes of one k-tile, as the cursor reports them.
struct Visited {
  long long src;
  int dst, valid;
};

/// Where the block's tile starts and the matrix ends (rows, columns of the
/// stored matrix); with PRED the limits cut through the k-tiles.
struct Frame {
  long long ld;
  int row0, col0, row_lim, col_lim;
};

/// What the cursor of one plan did, for the (non-template) comparison.
struct Walk {
  int rows, cols, vec, threads, copies, elems;
  bool swizzle, pred, k_along_rows;
  std::vector<int> offset;                      ///< SmemTile::offset(r, c) at r * cols + c
  std::vector<std::vector<Visited>> visited;    ///< [tid * k_tiles + kt]
};

template <typename T, int ROWS, int COLS, bool SWIZZLE, int VEC, int THREADS, bool PRED, bool K_ALONG_ROWS>
Walk walk(const Frame& f, int k_tiles) {
  using Tile = SmemTile<T, ROWS, COLS, SWIZZLE>;
  using Cursor = TileCopyCursor<Tile, VEC, THREADS, PRED, K_ALONG_ROWS, long long>;
  using Plan = typename Cursor::Plan;
  ++coverage.plans;
  coverage.whole_rows += Plan::kWholeRows && Plan::kCopies > 1;
  coverage.several_passes += !Plan::kWholeRows;
  coverage.partial_pass += !Plan::kAllActive;
  coverage.per_copy_dst += !Plan::kDstFromFirst;
  coverage.reused_dst += !Plan::kDstFromFirst && Plan::kDstSlots < Plan::kCopies;
  Walk w{ROWS, COLS, VEC, THREADS, Plan::kCopies, Tile::kElems, SWIZZLE, PRED, K_ALONG_ROWS, {}, {}};
  for (int r = 0; r < ROWS; ++r)
    for (int c = 0; c < COLS; ++c) w.offset.push_back(Tile::offset(r, c));
  for (int tid = 0; tid < THREADS; ++tid) {
    Cursor cursor(0, f.ld, tid, f.row0, f.col0, f.row_lim, f.col_lim);
    for (int kt = 0; kt < k_tiles; ++kt) {
      auto& v = w.visited.emplace_back();
      cursor.step([&](long long src, int dst, int valid) { v.push_back({src, dst, valid}); });
    }
  }
  return w;
}

/// Compares a walk with the plain formula (the copy loop before the cursor).
void check_walk(const Walk& w, const Frame& f, int k_tiles) {
  const int per_row = w.cols / w.vec, total = w.rows * per_row;
  const auto what = [&](int tid, int kt, int i) {
    return testing::Message() << w.rows << "x" << w.cols << (w.swizzle ? " xor" : " pad") << " vec " << w.vec
                              << " threads " << w.threads << (w.pred ? " pred" : "")
                              << (w.k_along_rows ? " k-rows" : " k-cols") << " ld " << f.ld << " limits "
                              << f.row_lim << "," << f.col_lim << " tid " << tid << " k-tile " << kt << " copy " << i;
  };
  std::vector<int> written(w.elems);
  for (int tid = 0; tid < w.threads; ++tid)
    for (int kt = 0; kt < k_tiles; ++kt) {
      const std::vector<Visited>& visited = w.visited[tid * k_tiles + kt];
      const int row0 = f.row0 + (w.k_along_rows ? kt * w.rows : 0);
      const int col0 = f.col0 + (w.k_along_rows ? 0 : kt * w.cols);
      std::size_t n = 0;
      for (int v = tid, i = 0; v < total && i < w.copies; v += w.threads, ++i, ++n) {
        const int row = v / per_row, col = v % per_row * w.vec;
        const int grow = row0 + row, gcol = col0 + col;
        const int valid = !w.pred ? w.vec : grow >= f.row_lim ? 0 : std::clamp(f.col_lim - gcol, 0, w.vec);
        ASSERT_LT(n, visited.size()) << what(tid, kt, i);
        ASSERT_EQ(visited[n].src, static_cast<long long>(grow) * f.ld + gcol) << what(tid, kt, i);
        ASSERT_EQ(visited[n].dst, w.offset[row * w.cols + col]) << what(tid, kt, i);
        ASSERT_EQ(visited[n].valid, valid) << what(tid, kt, i);
        if (kt == 0)
          for (int e = 0; e < w.vec; ++e) ++written[visited[n].dst + e];
        ++coverage.copies;
      }
      ASSERT_EQ(visited.size(), n) << what(tid, kt, -1) << ": the cursor visits copies the formula does not";
    }
  // Every element of the tile (not the padding) is written exactly once per k-tile.
  for (int r = 0; r < w.rows; ++r)
    for (int c = 0; c < w.cols; ++c)
      ASSERT_EQ(written[w.offset[r * w.cols + c]], 1) << what(-1, 0, -1) << " row " << r << " col " << c;
}

template <typename T, int ROWS, int COLS, bool SWIZZLE, int VEC, int THREADS, bool PRED, bool K_ALONG_ROWS>
void check_plan(const Frame& f, int k_tiles) {
  check_walk(walk<T, ROWS, COLS, SWIZZLE, VEC, THREADS, PRED, K_ALONG_ROWS>(f, k_tiles), f, k_tiles);
}

/// Frames for a tile: the aligned fast path (whole tiles, a split-K start)
/// and, with PRED, limits inside the 2nd k-tile and inside the tile's rows.
template <typename T, int ROWS, int COLS, bool SWIZZLE, int VEC, int THREADS, bool PRED, bool K_ALONG_ROWS>
void check_frames() {
  // The K extent of a tile and the other one.
  constexpr int kK = K_ALONG_ROWS ? ROWS : COLS;
  constexpr int kOther = K_ALONG_ROWS ? COLS : ROWS;
  const int k_begin = 3 * kK;       // split-K: the split starts at its own k-tile
  const int other0 = 2 * kOther;    // the block's tile along M or N
  const int k_tiles = 4;
  const long long tight = K_ALONG_ROWS ? other0 + kOther : k_begin + k_tiles * kK;
  for (const long long ld : {tight, tight + 8 * VEC}) {
    Frame f{ld, K_ALONG_ROWS ? k_begin : other0, K_ALONG_ROWS ? other0 : k_begin, 0, 0};
    f.row_lim = K_ALONG_ROWS ? k_begin + k_tiles * kK : other0 + kOther;
    f.col_lim = K_ALONG_ROWS ? other0 + kOther : k_begin + k_tiles * kK;
    check_plan<T, ROWS, COLS, SWIZZLE, VEC, THREADS, PRED, K_ALONG_ROWS>(f, k_tiles);
    if constexpr (PRED) {
      // K ends inside the second k-tile (not on a vector boundary where VEC > 1);
      // M or N ends inside the tile.
      const int k_end = k_begin + kK + kK / 2 + (VEC > 1 ? 1 : 0);
      const int other_end = other0 + kOther / 2 + (VEC > 1 ? VEC / 2 : 0) + 1;
      f.row_lim = K_ALONG_ROWS ? k_end : other_end;
      f.col_lim = K_ALONG_ROWS ? other_end : k_end;
      check_plan<T, ROWS, COLS, SWIZZLE, VEC, THREADS, PRED, K_ALONG_ROWS>(f, k_tiles);
      // Nothing in range.
      f.row_lim = K_ALONG_ROWS ? k_begin : other0;
      check_plan<T, ROWS, COLS, SWIZZLE, VEC, THREADS, PRED, K_ALONG_ROWS>(f, 2);
    }
  }
}

template <typename T, int ROWS, int COLS, int VEC, int THREADS>
void check_variants() {
  if constexpr (COLS % VEC == 0 && VEC * sizeof(T) <= 16 && ((COLS / VEC) % THREADS == 0 || THREADS % (COLS / VEC) == 0)) {
    check_frames<T, ROWS, COLS, false, VEC, THREADS, false, false>();
    check_frames<T, ROWS, COLS, false, VEC, THREADS, true, false>();
    check_frames<T, ROWS, COLS, false, VEC, THREADS, false, true>();
    check_frames<T, ROWS, COLS, false, VEC, THREADS, true, true>();
    check_frames<T, ROWS, COLS, true, VEC, THREADS, false, false>();
    check_frames<T, ROWS, COLS, true, VEC, THREADS, true, false>();
    check_frames<T, ROWS, COLS, true, VEC, THREADS, false, true>();
    check_frames<T, ROWS, COLS, true, VEC, THREADS, true, true>();
  }
}

template <typename T, int ROWS, int COLS>
void check_tile() {
  // Blocks of 1, 2, 4 and 32 warps, every vector width up to 16 bytes.
  [&]<int... V>(std::integer_sequence<int, V...>) {
    ([&]<int VEC>() {
      check_variants<T, ROWS, COLS, VEC, 32>();
      check_variants<T, ROWS, COLS, VEC, 64>();
      check_variants<T, ROWS, COLS, VEC, 128>();
      check_variants<T, ROWS, COLS, VEC, 1024>();
    }.template operator()<V>(), ...);
  }(std::integer_sequence<int, 1, 2, 4, 8>{});
}

TEST(GemmTileCopy, HoistedCopyAddressesMatchThePlainFormula) {
  coverage = {};
  // K-contiguous tiles (rows along M or N, BLOCK_K columns) and MN-contiguous
  // ones (BLOCK_K rows), 16-bit and 32-bit (tf32) elements.
  check_tile<Half, 128, 32>();
  check_tile<Half, 256, 64>();
  check_tile<Half, 32, 16>();
  check_tile<Half, 64, 64>();
  check_tile<Half, 32, 128>();
  check_tile<Half, 32, 256>();
  check_tile<Half, 16, 256>();
  check_tile<Half, 64, 32>();
  check_tile<float, 128, 32>();
  check_tile<float, 32, 128>();
  check_tile<float, 16, 64>();
  // Every way the plan can split a tile is exercised.
  EXPECT_GT(coverage.whole_rows, 0);
  EXPECT_GT(coverage.several_passes, 0);
  EXPECT_GT(coverage.partial_pass, 0);
  EXPECT_GT(coverage.per_copy_dst, 0);
  EXPECT_GT(coverage.reused_dst, 0);
  EXPECT_GT(coverage.copies, 1000000);
  std::printf("gemm tile copy: %d plans, %lld copies checked\n", coverage.plans, coverage.copies);
}

// The tile the default configuration copies (128x128x32, 4 warps, nn): A's
// thread copies are 32 rows apart in one column, B's 8 rows apart; their
// destinations follow from the first by constants.
TEST(GemmTileCopy, DefaultTilesNeedOneDestinationOffsetPerThread) {
  using PlanA = TileCopyPlan<SmemTile<Half, 128, 32, true>, 8, 128>;
  using PlanB = TileCopyPlan<SmemTile<Half, 32, 128, true>, 8, 128>;
  EXPECT_TRUE(PlanA::kWholeRows && PlanA::kDstFromFirst);
  EXPECT_EQ(PlanA::kCopies, 4);
  EXPECT_EQ(PlanA::kRowStep, 32);
  EXPECT_TRUE(PlanB::kWholeRows && PlanB::kDstFromFirst);
  EXPECT_EQ(PlanB::kRowStep, 8);
}

}  // namespace
}  // namespace ktune_gemm
