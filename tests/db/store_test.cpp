// Store: recording batches, resume view, best view, re-insertion, read-only use.
#include <gtest/gtest.h>

#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

TEST(Store, RecordsAndReadsBackEveryField) {
  Store store = Store::open(":memory:");
  RunKey key = gemm_key(gemm_problem(1024, 1024, 1024));
  Result a = ok_result(tile_config(128, 128), 2e-3);
  a.message = "line one\nline \"two\"";
  Result b = failed_result(tile_config(256, 256), Status::compile_error, "too much shared memory");
  store.record(key, std::vector<Result>{a, b}, test_provenance());

  auto results = store.results(key);
  ASSERT_EQ(results.size(), 2u);
  const Result& ra = results[0].config == a.config ? results[0] : results[1];
  const Result& rb = results[0].config == a.config ? results[1] : results[0];
  EXPECT_EQ(ra.status, Status::ok);
  EXPECT_EQ(ra.time.median_s, a.time.median_s);
  EXPECT_EQ(ra.time.min_s, a.time.min_s);
  EXPECT_EQ(ra.time.max_s, a.time.max_s);
  EXPECT_EQ(ra.time.spread, a.time.spread);
  EXPECT_EQ(ra.time.repetitions, 20);
  EXPECT_EQ(ra.tflops, a.tflops);
  EXPECT_EQ(ra.error, a.error);
  EXPECT_EQ(ra.max_abs_error, a.max_abs_error);
  EXPECT_EQ(ra.deterministic, std::optional<bool>(true));
  EXPECT_EQ(ra.message, a.message);
  EXPECT_EQ(ra.metrics, a.metrics);
  EXPECT_EQ(rb.status, Status::compile_error);
  EXPECT_EQ(rb.message, "too much shared memory");
  EXPECT_FALSE(rb.deterministic.has_value());
}

TEST(Store, BestIsTheFastestVerifiedAndNeverAWrongResult) {
  Store store = Store::open(":memory:");
  RunKey key = gemm_key(gemm_problem(512, 512, 512));
  Config fast = tile_config(64, 64), faster_but_wrong = tile_config(32, 32), slow = tile_config(128, 64);
  store.record(key,
               std::vector<Result>{ok_result(fast, 2e-3), ok_result(slow, 3e-3),
                                   ok_result(faster_but_wrong, 1e-3),
                                   failed_result(tile_config(16, 16), Status::timeout)},
               test_provenance());
  // A later run finds that the fastest configuration computes wrong numbers.
  store.record(key, std::vector<Result>{failed_result(faster_but_wrong, Status::wrong_result)},
               test_provenance());
  auto best = store.best(key);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->config, fast);
  EXPECT_EQ(best->time.median_s, 2e-3);
}

TEST(Store, ReRecordingAddsAMeasurementAndReInsertingIsHarmless) {
  TempDir dir;
  Store store = Store::open(dir.file("t.db"));
  RunKey key = gemm_key(gemm_problem(64, 64, 64));
  Config c = tile_config(64, 64);
  store.record(key, std::vector<Result>{ok_result(c, 1e-3)}, test_provenance());
  store.record(key, std::vector<Result>{ok_result(c, 0.9e-3)}, test_provenance());
  EXPECT_EQ(store.result_count(), 2);  // two measurements, both kept
  auto latest = store.results(key);
  ASSERT_EQ(latest.size(), 1u);  // newest per configuration
  EXPECT_EQ(latest[0].time.median_s, 0.9e-3);

  // Re-inserting the same measurements (same time, source, host) changes nothing.
  std::vector<Measurement> all;
  store.for_each([&](const Measurement& m) {
    all.push_back(m);
    return true;
  });
  EXPECT_EQ(store.insert(all), 0);
  EXPECT_EQ(store.result_count(), 2);
}

TEST(Store, ResultsAreScopedToDeviceProblemAndHash) {
  Store store = Store::open(":memory:");
  RunKey key = gemm_key(gemm_problem(64, 64, 64));
  store.record(key, std::vector<Result>{ok_result(tile_config(64, 64), 1e-3)}, test_provenance());
  RunKey other_device = key;
  other_device.device = synthetic_device("Synthetic GPU B");
  RunKey other_problem = gemm_key(gemm_problem(64, 64, 128));
  RunKey other_hash = key;
  other_hash.family_hash = "hash-older";
  EXPECT_EQ(store.results(key).size(), 1u);
  EXPECT_TRUE(store.results(other_device).empty());
  EXPECT_TRUE(store.results(other_problem).empty());
  EXPECT_TRUE(store.results(other_hash).empty());
  EXPECT_FALSE(store.best(other_hash));
}

TEST(Store, ReadOnlyOpenRefusesWritesAndMissingFiles) {
  TempDir dir;
  std::string path = dir.file("ro.db");
  EXPECT_THROW(Store::open_read_only(path), DatabaseError);
  {
    Store store = Store::open(path);
    store.record(gemm_key(gemm_problem(8, 8, 8)), std::vector<Result>{ok_result(tile_config(8, 8), 1e-6)},
                 test_provenance());
  }
  Store ro = Store::open_read_only(path);
  EXPECT_TRUE(ro.read_only());
  EXPECT_EQ(ro.result_count(), 1);
  EXPECT_THROW(ro.record(gemm_key(gemm_problem(8, 8, 8)),
                         std::vector<Result>{ok_result(tile_config(8, 8), 1e-6)}, test_provenance()),
               DatabaseError);
}

TEST(Store, StatsCountEveryTable) {
  Store store = Store::open(":memory:");
  store.record(gemm_key(gemm_problem(8, 8, 8)),
               std::vector<Result>{ok_result(tile_config(8, 8), 1e-6),
                                   failed_result(tile_config(16, 8), Status::launch_error)},
               test_provenance());
  StoreStats s = store.stats();
  EXPECT_EQ(s.devices, 1);
  EXPECT_EQ(s.families, 1);
  EXPECT_EQ(s.problems, 1);
  EXPECT_EQ(s.configs, 2);
  EXPECT_EQ(s.results, 2);
  ASSERT_EQ(s.by_status.size(), 2u);
  EXPECT_EQ(s.by_status[0].first, "launch_error");
}

TEST(Store, MeasurementTimesAreStrictlyIncreasing) {
  std::string a = measurement_time_now();
  std::string b = measurement_time_now();
  EXPECT_LT(a, b);
  EXPECT_EQ(a.size(), std::string("2026-11-29T14:35:00.123456Z").size());
}

}  // namespace
}  // namespace ktune
