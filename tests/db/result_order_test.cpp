// The result order at equal time: a noisy result counts at the slow end of
// its spread, so a clean one within that spread ranks first, in the order
// itself, the store's best, the best view, the lookup and the emitted
// dispatch header alike.
#include <gtest/gtest.h>

#include "db/dispatch_emitter.hpp"
#include "db/lookup.hpp"
#include "db/query.hpp"
#include "db/result_order.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

ResultRank rank(double median_s, double spread, bool noisy, std::string_view key = "k") {
  return {median_s, median_s, spread, key, noisy};
}

TEST(ResultOrder, CleanRanksBeforeNoisyWithinTheNoisySpread) {
  // Noisy 1.00 ms with a 5% spread reaches 1.05 ms: a clean 1.02 ms is as fast.
  EXPECT_TRUE(ranks_before(rank(1.02e-3, 0.01, false), rank(1.00e-3, 0.05, true)));
  EXPECT_FALSE(ranks_before(rank(1.00e-3, 0.05, true), rank(1.02e-3, 0.01, false)));
}

TEST(ResultOrder, NoisyRanksFirstWhenFasterByMoreThanItsSpread) {
  EXPECT_TRUE(ranks_before(rank(0.90e-3, 0.05, true), rank(1.00e-3, 0.01, false)));
}

TEST(ResultOrder, AtTheSameRankingTimeCleanRanksFirst) {
  // 1.0 × (1 + 0.5) = 1.5 exactly in doubles: equal ranking times, the clean one first.
  EXPECT_TRUE(ranks_before(rank(1.5, 0.0, false, "z"), rank(1.0, 0.5, true, "a")));
}

TEST(ResultOrder, CleanResultsRankByMedianAsBefore) {
  EXPECT_TRUE(ranks_before(rank(1.00e-3, 0.30, false), rank(1.01e-3, 0.01, false)));
}

Result with_noisy_mark(Result r, double spread, bool noisy) {
  r.time.spread = spread;
  r.metrics["timing"] = {{"noisy", noisy}, {"reps", 200}, {"spread", spread}};
  return r;
}

// A noisy 1.00 ms result (5% spread) and a clean 1.02 ms one of another
// configuration, for one problem.
void record_noisy_and_clean(Store& s, double noisy_median_s) {
  const Problem p = gemm_problem(1024, 1024, 1024);
  const Result noisy =
      with_noisy_mark(ok_result(tile_config(128, 128), noisy_median_s), 0.05, true);
  const Result clean = with_noisy_mark(ok_result(tile_config(64, 128), 1.02e-3), 0.01, false);
  s.record(gemm_key(p), std::vector<Result>{noisy, clean}, test_provenance());
}

TEST(ResultOrder, TheBestViewAndTheDispatchHeaderPreferTheCleanResult) {
  Store s = Store::open(":memory:");
  record_noisy_and_clean(s, 1.00e-3);
  const auto rows = best_per_problem(s, {"gemm", "", "", {}, 2});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].config, tile_config(64, 128));
  EXPECT_FALSE(rows[0].noisy);
  EXPECT_TRUE(rows[1].noisy);

  DispatchOptions options;
  options.family = "gemm";
  options.device = "sm_90";
  options.shape_keys = {"m", "n", "k"};
  const std::string header = emit_dispatch_header(s, options);
  EXPECT_NE(header.find("\"" + tile_config(64, 128).key() + "\""), std::string::npos) << header;
  EXPECT_EQ(header.find("\"" + tile_config(128, 128).key() + "\""), std::string::npos) << header;
}

/// What the store's best and the lookup serve for the 1024^3 problem of
/// record_noisy_and_clean(noisy_median_s): the store's configuration, then the lookup's.
std::pair<Config, Config> served(double noisy_median_s) {
  TempDir dir;
  const std::string path = dir.file("noisy.db");
  const Problem p = gemm_problem(1024, 1024, 1024);
  Config from_store;
  {
    Store s = Store::open(path);
    record_noisy_and_clean(s, noisy_median_s);
    auto best = s.best(gemm_key(p));
    if (best) from_store = best->config;
  }
  Lookup lookup = Lookup::open(path);
  LookupRequest req{"gemm", p, synthetic_device().name, "", {}, "", "", std::nullopt, {}};
  auto a = lookup.best(req);
  EXPECT_TRUE(a && a->source == LookupSource::exact);
  return {from_store, a ? a->config : Config{}};
}

// The store's best and the lookup answer what the best view answers.
TEST(ResultOrder, TheStoreAndTheLookupPreferTheCleanResult) {
  const auto [store, lookup] = served(1.00e-3);
  EXPECT_EQ(store, tile_config(64, 128));
  EXPECT_EQ(lookup, tile_config(64, 128));
}

TEST(ResultOrder, TheStoreAndTheLookupServeANoisyResultThatIsClearlyFaster) {
  const auto [store, lookup] = served(0.90e-3);
  EXPECT_EQ(store, tile_config(128, 128));
  EXPECT_EQ(lookup, tile_config(128, 128));
}

// Asked by arch only, the lookup weighs the measurements of two devices of
// that arch by the same order.
TEST(ResultOrder, AcrossDevicesOfAnArchTheLookupPrefersTheCleanResult) {
  TempDir dir;
  const std::string path = dir.file("noisy.db");
  const Problem p = gemm_problem(1024, 1024, 1024);
  DeviceSpec other = synthetic_device();
  other.name = "Synthetic GPU B";
  {
    Store s = Store::open(path);
    s.record(
        gemm_key(p),
        std::vector<Result>{with_noisy_mark(ok_result(tile_config(128, 128), 1.00e-3), 0.05, true)},
        test_provenance());
    s.record(
        gemm_key(p, other),
        std::vector<Result>{with_noisy_mark(ok_result(tile_config(64, 128), 1.02e-3), 0.01, false)},
        test_provenance());
  }
  Lookup lookup = Lookup::open(path);
  LookupRequest req{"gemm", p, "", synthetic_device().arch(), {}, "", "", std::nullopt, {}};
  auto a = lookup.best(req);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->config, tile_config(64, 128));
  EXPECT_EQ(a->measured_device, "Synthetic GPU B");
}

TEST(ResultOrder, TheBestViewServesANoisyResultThatIsClearlyFaster) {
  Store s = Store::open(":memory:");
  record_noisy_and_clean(s, 0.90e-3);
  const auto rows = best_per_problem(s, {"gemm", "", "", {}, 1});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].config, tile_config(128, 128));
  EXPECT_TRUE(rows[0].noisy);
}

}  // namespace
}  // namespace ktune
