// Host test of the stream-K tail schedule (gemm_stream_k.cuh), over every
// combination of a range of item counts, k-tile counts, worker counts and
// minimum shares: the pieces cover every k-tile of every item exactly once,
// roles match their k-ranges, a worker has at most one contributor piece and
// it comes first, each finisher's contributors are exactly the following
// workers that hold the rest of its item, shares are balanced, and the
// whole-item rounds are equal. NVRTC also compiles the header for sm_90a.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "engine/compiler.hpp"
#include "kernels_templated/family.hpp"
#include "kernels_templated/gemm/gemm_stream_k.cuh"

namespace {

using ktune_gemm::StreamKPiece;
using ktune_gemm::StreamKSchedule;

std::vector<StreamKPiece> pieces_of(const StreamKSchedule& s, int w) {
  std::vector<StreamKPiece> out;
  s.for_each_piece(w, [&](const StreamKPiece& p) { out.push_back(p); });
  return out;
}

void check_schedule(int items, int k_tiles, int workers, int min_share) {
  SCOPED_TRACE("items " + std::to_string(items) + ", k_tiles " + std::to_string(k_tiles) + ", workers " +
               std::to_string(workers) + ", min_share " + std::to_string(min_share));
  const StreamKSchedule s = StreamKSchedule::make(items, k_tiles, workers, min_share);
  ASSERT_EQ(s.dp_items() % workers, 0);
  ASSERT_EQ(s.sk_items, items % workers);
  ASSERT_EQ(s.sk_workers > 0, s.sk_items > 0);
  ASSERT_LE(s.sk_workers, workers);

  // covered[item][k]: which worker ran it (-1: nobody yet).
  std::vector<std::vector<int>> covered(items, std::vector<int>(k_tiles, -1));
  // Every piece of a split item, by item: (worker, piece).
  std::map<int, std::vector<std::pair<int, StreamKPiece>>> split_pieces;
  long long min_share_seen = -1, max_share_seen = -1;
  for (int w = 0; w < workers; ++w) {
    const std::vector<StreamKPiece> pieces = pieces_of(s, w);
    long long share = 0;
    int whole_items = 0;
    bool in_share = true;
    for (std::size_t j = 0; j < pieces.size(); ++j) {
      const StreamKPiece& p = pieces[j];
      ASSERT_GE(p.item, 0);
      ASSERT_LT(p.item, items);
      ASSERT_GE(p.k_begin, 0);
      ASSERT_LT(p.k_begin, p.k_end);
      ASSERT_LE(p.k_end, k_tiles);
      for (int k = p.k_begin; k < p.k_end; ++k) {
        ASSERT_EQ(covered[p.item][k], -1) << "k-tile " << k << " of item " << p.item << " twice";
        covered[p.item][k] = w;
      }
      const int expected_role = p.k_begin > 0 ? ktune_gemm::kStreamKContributor
                                              : (p.k_end < k_tiles ? ktune_gemm::kStreamKFinisher
                                                                   : ktune_gemm::kStreamKWhole);
      EXPECT_EQ(p.role, expected_role);
      // Only the first piece can start inside an item (one workspace slot per worker).
      if (p.role == ktune_gemm::kStreamKContributor) {
        EXPECT_EQ(j, 0u);
      }
      const bool is_split_item = p.item >= s.dp_items();
      if (is_split_item) {
        // The share comes first, then the whole items.
        EXPECT_TRUE(in_share) << "a stream-K piece after a data-parallel item";
        share += p.k_end - p.k_begin;
        split_pieces[p.item].push_back({w, p});
        // A finisher ends the share: the worker's next piece is a whole item.
        if (p.role == ktune_gemm::kStreamKFinisher && j + 1 < pieces.size()) {
          EXPECT_LT(pieces[j + 1].item, s.dp_items());
        }
      } else {
        in_share = false;
        EXPECT_EQ(p.role, ktune_gemm::kStreamKWhole);
        EXPECT_EQ(p.item % workers, w);
        ++whole_items;
      }
    }
    // Every worker runs the same number of whole items.
    EXPECT_EQ(whole_items, s.dp_items() / workers);
    if (w < s.sk_workers) {
      EXPECT_GT(share, 0);
      min_share_seen = min_share_seen < 0 ? share : std::min(min_share_seen, share);
      max_share_seen = std::max(max_share_seen, share);
    } else {
      EXPECT_EQ(share, 0);
    }
  }
  for (int item = 0; item < items; ++item)
    for (int k = 0; k < k_tiles; ++k) ASSERT_NE(covered[item][k], -1) << "k-tile " << k << " of item " << item;
  if (s.sk_workers > 0) {
    // Balanced shares, and no share smaller than asked for where the tail has enough.
    EXPECT_LE(max_share_seen - min_share_seen, 1);
    if (s.sk_iterations >= min_share) {
      EXPECT_GE(min_share_seen, min_share);
    }
  }
  // Each split item: one finisher (k from 0), followed by the contributors
  // that last_contributor names, consecutive workers in k order.
  for (const auto& [item, list] : split_pieces) {
    if (list.size() == 1) {
      EXPECT_EQ(list[0].second.role, ktune_gemm::kStreamKWhole);
      continue;
    }
    const int finisher = list[0].first;
    EXPECT_EQ(list[0].second.role, ktune_gemm::kStreamKFinisher);
    EXPECT_EQ(list[0].second.k_begin, 0);
    const int last = s.last_contributor(finisher, item);
    ASSERT_EQ(static_cast<int>(list.size()) - 1, last - finisher);
    for (std::size_t i = 1; i < list.size(); ++i) {
      EXPECT_EQ(list[i].first, finisher + static_cast<int>(i));
      EXPECT_EQ(list[i].second.role, ktune_gemm::kStreamKContributor);
      EXPECT_EQ(list[i].second.k_begin, list[i - 1].second.k_end);
    }
  }
}

}  // namespace

TEST(GemmStreamK, PiecesCoverEveryKTileOnceWithConsistentRoles) {
  for (int workers : {1, 2, 3, 7, 66, 132})
    for (int k_tiles : {1, 2, 3, 7, 64, 65})
      for (int min_share : {1, 4})
        for (int items = 1; items <= 3 * workers + 5; items += (workers > 10 ? 7 : 1))
          check_schedule(items, k_tiles, workers, min_share);
}

// The motivating shapes: 8192x4096x4096 (1024 tiles of 128x256, K = 64
// k-tiles) on 132 workers splits the last 100 items, about 48.5 k-tiles a
// worker; a multiple of the workers splits nothing.
TEST(GemmStreamK, LlmShapeTailsAreSpreadOverEveryWorker) {
  const StreamKSchedule s = StreamKSchedule::make(1024, 64, 132, 4);
  EXPECT_EQ(s.sk_items, 100);
  EXPECT_EQ(s.sk_workers, 132);
  EXPECT_EQ(s.dp_items(), 924);
  EXPECT_EQ(s.share_begin(1), 6400 / 132);
  // Worker 1: k-tiles 48..63 of split item 0 (a contributor), 0..31 of split
  // item 1 (its finisher), then 7 whole items.
  std::vector<StreamKPiece> pieces;
  s.for_each_piece(1, [&](const StreamKPiece& p) { pieces.push_back(p); });
  ASSERT_EQ(pieces.size(), 2u + 7u);
  EXPECT_EQ(pieces[0].item, 924);
  EXPECT_EQ(pieces[0].k_begin, 48);
  EXPECT_EQ(pieces[0].role, ktune_gemm::kStreamKContributor);
  EXPECT_EQ(pieces[1].item, 925);
  EXPECT_EQ(pieces[1].k_end, 32);
  EXPECT_EQ(pieces[1].role, ktune_gemm::kStreamKFinisher);
  EXPECT_EQ(s.last_contributor(1, 925), 2);
  const StreamKSchedule none = StreamKSchedule::make(1056, 64, 132, 4);
  EXPECT_EQ(none.sk_items, 0);
  EXPECT_EQ(none.sk_workers, 0);
  // A tiny tail is shared by fewer workers, each with at least min_share k-tiles.
  const StreamKSchedule tiny = StreamKSchedule::make(133, 8, 132, 4);
  EXPECT_EQ(tiny.sk_items, 1);
  EXPECT_EQ(tiny.sk_workers, 2);
}

TEST(GemmStreamK, HeaderCompilesForSm90aWithNvrtc) {
  ktune::CompilerOptions options;
  options.arch = "sm_90a";
  ktune::Compiler compiler(options);
  ktune::KernelSource src;
  src.program_name = "gemm_stream_k_probe.cu";
  src.source =
      "#include \"kernels_templated/gemm/gemm_stream_k.cuh\"\n"
      "__global__ void stream_k_probe(int* out, int items, int k_tiles, int min_share) {\n"
      "  const auto s = ktune_gemm::StreamKSchedule::make(items, k_tiles, gridDim.x, min_share);\n"
      "  int n = 0;\n"
      "  s.for_each_piece(blockIdx.x, [&](const ktune_gemm::StreamKPiece& p) {\n"
      "    n += p.k_end - p.k_begin;\n"
      "    if (p.role == ktune_gemm::kStreamKFinisher) n += s.last_contributor(blockIdx.x, p.item);\n"
      "  });\n"
      "  out[blockIdx.x] = n;\n"
      "}\n";
  src.kernels = {"stream_k_probe"};
  src.needs_arch_specific = true;
  const ktune::CompileOutput out = compiler.compile(src);
  EXPECT_TRUE(out.ok) << out.log;
}
