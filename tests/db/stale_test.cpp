// Stale results (another template hash): kept, never served, listed, prunable.
#include <gtest/gtest.h>

#include "db/lookup.hpp"
#include "db/query.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

TEST(StaleResults, AreKeptListedNeverServedAndPrunable) {
  TempDir dir;
  std::string path = dir.file("stale.db");
  Problem p = gemm_problem(512, 512, 512);
  Config old_fast = tile_config(256, 256), current = tile_config(128, 128);
  {
    Store store = Store::open(path);
    Provenance old_time = test_provenance();
    old_time.measured_at = "2026-01-01T00:00:00.000000Z";
    // The old template was faster for this config; its text has changed since.
    store.record(gemm_key(p, synthetic_device(), "hash-old"), std::vector<Result>{ok_result(old_fast, 1e-4)}, old_time);
    store.record(gemm_key(p, synthetic_device(), "hash-new"), std::vector<Result>{ok_result(current, 1e-3)},
                 test_provenance());

    // Kept, and listed against the current hash.
    EXPECT_EQ(store.result_count(), 2);
    auto stale = store.stale("gemm", "hash-new");
    ASSERT_EQ(stale.size(), 1u);
    EXPECT_EQ(stale[0].family_hash, "hash-old");
    EXPECT_EQ(stale[0].results, 1);
    // Without a hash, the newest-measured hash is the current one.
    auto implied = store.stale("", "");
    ASSERT_EQ(implied.size(), 1u);
    EXPECT_EQ(implied[0].family_hash, "hash-old");

    // Never served as current: the store, the best view and the lookup.
    auto best = store.best(gemm_key(p, synthetic_device(), "hash-new"));
    ASSERT_TRUE(best);
    EXPECT_EQ(best->config, current);
    auto rows = best_per_problem(store, {"gemm", "", ""});
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].config, current);
  }
  {
    Lookup lookup = Lookup::open(path);
    LookupRequest req{"gemm", p, "Synthetic GPU A", "", {}, "", "", std::nullopt, {}};
    auto a = lookup.best(req);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->config, current);
    EXPECT_EQ(a->family_hash, "hash-new");
    // A caller pinned to the new hash never sees the old result, even alone.
    req.family_hash = "hash-new";
    req.problem = gemm_problem(512, 512, 512);
    EXPECT_EQ(lookup.best(req)->config, current);
  }
  {
    Store store = Store::open(path);
    EXPECT_EQ(store.prune_stale("gemm", "hash-new").results, 1);
    EXPECT_TRUE(store.stale("gemm", "hash-new").empty());
    EXPECT_EQ(store.result_count(), 1);
    EXPECT_THROW(store.prune_stale("gemm", ""), std::invalid_argument);
  }
}

}  // namespace
}  // namespace ktune
