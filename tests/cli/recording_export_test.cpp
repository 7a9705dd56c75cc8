// Tests of recording_from_store: a database's measurements of one problem
// become a replayable recorded space (latest measurement per configuration).
#include <gtest/gtest.h>

#include "cli/recording_export.hpp"
#include "db/store.hpp"

namespace ktune {
namespace {

RunKey key_on(const std::string& device_name) {
  RunKey k;
  k.device = find_builtin_device("h200").value();
  k.device.name = device_name;
  k.family = "gemm";
  k.family_hash = "hash-1";
  k.problem = ValueMap::parse("m=64,n=64,k=64,dtype=bf16");
  return k;
}

Result ok_result(const std::string& config, double seconds) {
  Result r;
  r.config = ValueMap::parse(config);
  r.status = Status::ok;
  r.time.median_s = r.time.min_s = r.time.max_s = seconds;
  r.time.repetitions = 10;
  return r;
}

Provenance at(const std::string& when) { return {"host", "test", "", when}; }

TEST(RecordingExport, LatestMeasurementPerConfigurationBecomesTheSpace) {
  Store store = Store::open(":memory:");
  RunKey key = key_on("NVIDIA H200");
  std::vector<Result> first = {ok_result("bm=64,bn=64", 3e-6), ok_result("bm=128,bn=64", 2e-6)};
  store.record(key, first, at("2026-11-29T10:00:00.000000Z"));
  Result wrong = ok_result("bm=128,bn=64", 0);
  wrong.status = Status::wrong_result;
  wrong.time = {};
  std::vector<Result> second = {wrong};
  store.record(key, second, at("2026-11-29T11:00:00.000000Z"));

  RecordedSpace r = recording_from_store(store, {"gemm", key.problem, "", "hash-1"});
  EXPECT_EQ(r.results.size(), 2u);
  EXPECT_TRUE(r.restricted_to_recorded);
  EXPECT_EQ(r.device_name, "NVIDIA H200");
  // The later wrong_result replaces the earlier time of that configuration.
  std::optional<Result> best = r.optimum();
  ASSERT_TRUE(best);
  EXPECT_EQ(best->config.integer("bm"), 64);
  EXPECT_EQ(r.space.count_valid(), 2u);

  ReplayOracle oracle(std::make_shared<RecordedSpace>(std::move(r)));
  EXPECT_EQ(oracle.evaluate(ValueMap::parse("bm=128,bn=64")).status, Status::wrong_result);
  EXPECT_EQ(oracle.evaluate(ValueMap::parse("bm=256,bn=64")).status, Status::invalid_config);
}

TEST(RecordingExport, RefusesAmbiguousOrEmptySelections) {
  Store store = Store::open(":memory:");
  std::vector<Result> batch = {ok_result("bm=64,bn=64", 3e-6)};
  store.record(key_on("NVIDIA H200"), batch, at(""));
  store.record(key_on("NVIDIA H100 80GB HBM3"), batch, at(""));
  Problem p = key_on("x").problem;
  EXPECT_THROW(recording_from_store(store, {"gemm", p, "", "hash-1"}), std::invalid_argument);
  EXPECT_EQ(recording_from_store(store, {"gemm", p, "NVIDIA H200", "hash-1"}).results.size(), 1u);
  // Another template version is stale: not recorded as current.
  EXPECT_THROW(recording_from_store(store, {"gemm", p, "NVIDIA H200", "hash-2"}),
               std::invalid_argument);
  EXPECT_THROW(recording_from_store(store, {"softmax", p, "", "hash-1"}), std::invalid_argument);
}

}  // namespace
}  // namespace ktune
