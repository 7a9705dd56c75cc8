// Merge: union with de-duplication, every source kept, best view over verified
// results only; and the diff of two databases' best views.
#include <gtest/gtest.h>

#include <set>

#include "db/merge.hpp"
#include "db/query.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

TEST(Merge, UnitesDeduplicatesAndKeepsEverySource) {
  TempDir dir;
  std::string a = dir.file("a.db"), b = dir.file("b.db"), c = dir.file("c.db");
  Problem p = gemm_problem(2048, 2048, 2048);
  Config x = tile_config(128, 128), y = tile_config(128, 64), z = tile_config(64, 64);
  Provenance shared = test_provenance("lab");
  shared.measured_at = "2026-11-01T10:00:00.000000Z";
  {
    Store s = Store::open(a);
    s.record(gemm_key(p), std::vector<Result>{ok_result(x, 2e-3)}, shared);  // also in B
    s.record(gemm_key(p), std::vector<Result>{ok_result(z, 1e-3)}, test_provenance("team-a"));
    s.record(gemm_key(gemm_problem(64, 64, 64)), std::vector<Result>{ok_result(x, 1e-5)},
             test_provenance("team-a"));
  }
  {
    Store s = Store::open(b);
    s.record(gemm_key(p), std::vector<Result>{ok_result(x, 2e-3)}, shared);
    // The same configuration measured by another team: kept beside A's.
    s.record(gemm_key(p), std::vector<Result>{ok_result(x, 1.8e-3), ok_result(y, 1.9e-3)},
             test_provenance("team-b"));
    // Team B's GPU finds A's fastest configuration wrong.
    s.record(gemm_key(p), std::vector<Result>{failed_result(z, Status::wrong_result)}, test_provenance("team-b"));
  }
  MergeSummary m = merge_databases({a, b}, c);
  EXPECT_EQ(m.read, 3 + 4);
  EXPECT_EQ(m.added, 6);  // the shared measurement once
  EXPECT_EQ(m.output_total, 6);

  Store merged = Store::open_read_only(c);
  std::set<std::string> sources;
  int x_measurements = 0;
  merged.for_each([&](const Measurement& meas) {
    sources.insert(meas.provenance.source);
    if (meas.result.config == x && meas.key.problem == p) ++x_measurements;
    return true;
  });
  EXPECT_EQ(sources, (std::set<std::string>{"lab", "team-a", "team-b"}));
  EXPECT_EQ(x_measurements, 2);  // lab (once) and team-b
  auto best = merged.best(gemm_key(p));
  ASSERT_TRUE(best);
  EXPECT_EQ(best->config, x);  // z was faster but failed verification; x's 1.8 ms beats y
  EXPECT_EQ(best->time.median_s, 1.8e-3);

  // Merging again is harmless.
  EXPECT_EQ(merge_databases({a, b}, c).added, 0);
  EXPECT_THROW(merge_databases({a, c}, c), DatabaseError);
  EXPECT_THROW(merge_databases({dir.file("absent.db")}, dir.file("d.db")), DatabaseError);
}

TEST(Diff, ReportsOnlyInEitherAndChangedBests) {
  TempDir dir;
  std::string a = dir.file("a.db"), b = dir.file("b.db");
  Config x = tile_config(128, 128), y = tile_config(64, 128);
  {
    Store s = Store::open(a);
    s.record(gemm_key(gemm_problem(1, 1, 1)), std::vector<Result>{ok_result(x, 1e-3)}, test_provenance());
    s.record(gemm_key(gemm_problem(2, 2, 2)), std::vector<Result>{ok_result(x, 1e-3)}, test_provenance());
    s.record(gemm_key(gemm_problem(3, 3, 3)), std::vector<Result>{ok_result(x, 1e-3)}, test_provenance());
  }
  {
    Store s = Store::open(b);
    s.record(gemm_key(gemm_problem(2, 2, 2)), std::vector<Result>{ok_result(x, 1e-3)}, test_provenance());
    s.record(gemm_key(gemm_problem(3, 3, 3)), std::vector<Result>{ok_result(y, 1e-3)}, test_provenance());
    s.record(gemm_key(gemm_problem(4, 4, 4)), std::vector<Result>{ok_result(y, 1e-3)}, test_provenance());
  }
  BestDiff d = diff_best(Store::open_read_only(a), Store::open_read_only(b));
  ASSERT_EQ(d.only_a.size(), 1u);
  EXPECT_EQ(d.only_a[0].problem, gemm_problem(1, 1, 1));
  ASSERT_EQ(d.only_b.size(), 1u);
  EXPECT_EQ(d.only_b[0].problem, gemm_problem(4, 4, 4));
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(d.changed[0].a.config, x);
  EXPECT_EQ(d.changed[0].b.config, y);
  EXPECT_EQ(d.same, 1);
}

TEST(BestView, FiltersByDeviceNameOrArch) {
  Store s = Store::open(":memory:");
  s.record(gemm_key(gemm_problem(8, 8, 8), synthetic_device("Synthetic GPU A", 9, 0)),
           std::vector<Result>{ok_result(tile_config(8, 8), 1e-6)}, test_provenance());
  s.record(gemm_key(gemm_problem(8, 8, 8), synthetic_device("Synthetic GPU C", 8, 0)),
           std::vector<Result>{ok_result(tile_config(16, 8), 1e-6)}, test_provenance());
  EXPECT_EQ(best_per_problem(s, {"gemm", "", ""}).size(), 2u);
  EXPECT_EQ(best_per_problem(s, {"gemm", "sm_90", ""}).size(), 1u);
  EXPECT_EQ(best_per_problem(s, {"gemm", "Synthetic GPU C", ""})[0].config, tile_config(16, 8));
  EXPECT_TRUE(best_per_problem(s, {"softmax", "", ""}).empty());
}

TEST(BestView, TopListsDistinctConfigurationsInRankOrder) {
  Store s = Store::open(":memory:");
  const Problem p = gemm_problem(256, 256, 256);
  const Config fast = tile_config(128, 128), second = tile_config(128, 64), third = tile_config(64, 64),
               wrong = tile_config(32, 32);
  // `fast` measured twice (its better time counts once), `wrong` fastest but failed verification once.
  s.record(gemm_key(p),
           std::vector<Result>{ok_result(fast, 2e-3), ok_result(second, 3e-3), ok_result(third, 4e-3),
                               ok_result(wrong, 1e-3)},
           test_provenance("run-1"));
  s.record(gemm_key(p), std::vector<Result>{ok_result(fast, 1.5e-3), failed_result(wrong, Status::wrong_result)},
           test_provenance("run-2"));
  s.record(gemm_key(gemm_problem(64, 64, 64)), std::vector<Result>{ok_result(third, 1e-5)}, test_provenance());

  BestQuery query{"gemm", "", ""};
  query.top = 3;
  const auto rows = best_per_problem(s, query);
  ASSERT_EQ(rows.size(), 4u);  // three for the first problem (by key order), one for the other
  std::vector<std::pair<Config, int>> big;
  for (const auto& r : rows)
    if (r.problem == p) big.emplace_back(r.config, r.rank);
  ASSERT_EQ(big.size(), 3u);
  EXPECT_EQ(big[0], std::make_pair(fast, 1));
  EXPECT_EQ(big[1], std::make_pair(second, 2));
  EXPECT_EQ(big[2], std::make_pair(third, 3));
  for (const auto& r : rows) {
    if (r.problem == p && r.rank == 1) {
      EXPECT_EQ(r.median_s, 1.5e-3);
    }
  }
  // The default is the best alone, unchanged.
  const auto best = best_per_problem(s, {"gemm", "", ""});
  ASSERT_EQ(best.size(), 2u);
  for (const auto& r : best) EXPECT_EQ(r.rank, 1);
}

}  // namespace
}  // namespace ktune
