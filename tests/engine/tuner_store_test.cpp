// Tests of the loop against the real SQLite store: resume across reopening,
// what a crash leaves stored, and warm-start candidates from related problems.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/tuner.hpp"
#include "tuner_fakes.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using testing::cfg;
using testing::x_of;

RunKey key_for(std::int64_t size, const std::string& device = "Synthetic GPU") {
  RunKey key;
  key.device.name = device;
  key.device.cc_major = 9;
  key.device.sm_count = 132;
  key.family = "synthetic_line";
  key.family_hash = "0123456789abcdef";
  key.problem = Problem{{"size", size}, {"dtype", std::string("fp32")}};
  key.shape_keys = {"size"};
  key.shape_class = "dtype=fp32";
  return key;
}

Provenance provenance() { return {"test-host", "test", "tuner_store_test", ""}; }

class TunerStore : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() /
            (std::string("ktune_tuner_store_") + ::testing::UnitTest::GetInstance()->current_test_info()->name() +
             ".db");
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path_.string() + suffix);
  }
  void TearDown() override {
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path_.string() + suffix);
  }

  TuneReport run(Store& store, const RunKey& key, testing::ScriptedEvaluator& evaluator, TuneOptions options) {
    Space space = testing::line_space(20);
    testing::ListSearcher searcher([] {
      std::vector<int> v;
      for (int x = 0; x < 20; ++x) v.push_back(x);
      return v;
    }());
    StoreLog log(store, key, provenance());
    TuneInputs in = testing::inputs(space, searcher, evaluator, log);
    return Tuner(in, options).run();
  }

  fs::path path_;
};

TEST_F(TunerStore, ResumesAcrossReopeningTheDatabase) {
  {
    Store store = Store::open(path_.string());
    testing::ScriptedEvaluator evaluator;
    TuneReport first = run(store, key_for(64), evaluator, testing::options(6, 4));
    EXPECT_EQ(first.measured.size(), 6u);
  }
  Store store = Store::open(path_.string());
  EXPECT_EQ(store.results(key_for(64)).size(), 6u);
  testing::ScriptedEvaluator evaluator;
  TuneReport second = run(store, key_for(64), evaluator, testing::options(3, 4));
  EXPECT_EQ(second.reused.size(), 6u);
  EXPECT_EQ(evaluator.all_evaluated(), (std::vector<int>{6, 7, 8}));
  EXPECT_EQ(store.results(key_for(64)).size(), 9u);
}

TEST_F(TunerStore, ACrashLeavesExactlyTheCompletedBatchesStored) {
  {
    Store store = Store::open(path_.string());
    testing::ScriptedEvaluator evaluator;
    evaluator.throw_on_call = 3;
    EXPECT_THROW(run(store, key_for(64), evaluator, testing::options(20, 5)), std::runtime_error);
  }
  Store store = Store::open(path_.string());
  std::vector<Result> stored = store.results(key_for(64));
  ASSERT_EQ(stored.size(), 10u);  // two batches of 5; the third was in flight
  for (const Result& r : stored) EXPECT_LT(x_of(r.config), 10);
}

TEST_F(TunerStore, WarmStartPriorsComeFromTheNearestShapesOfTheSameClass) {
  Store store = Store::open(path_.string());
  auto record_best = [&](const RunKey& key, int best_x) {
    std::vector<Result> rs;
    for (int x : {best_x, 19}) {
      Result r;
      r.config = cfg(x);
      r.status = Status::ok;
      r.time.median_s = x == best_x ? 1e-3 : 5e-3;  // synthetic
      r.time.repetitions = 1;
      rs.push_back(r);
    }
    store.record(key, rs, provenance());
  };
  record_best(key_for(64), 3);
  record_best(key_for(4096), 7);
  record_best(key_for(128, "Other GPU"), 11);
  RunKey other_class = key_for(128);
  other_class.problem.set("dtype", std::string("bf16"));
  other_class.shape_class = "dtype=bf16";
  record_best(other_class, 15);

  StoreLog log(store, key_for(128), provenance());
  std::vector<Result> warm = log.warm_start_prior(10);
  std::vector<int> xs;
  for (const Result& r : warm) {
    xs.push_back(x_of(r.config));
    EXPECT_TRUE(r.ok());
    EXPECT_DOUBLE_EQ(r.time.median_s, 1e-3);
  }
  // size 128 on another GPU (distance 0), then 64 (distance 1), then 4096 (5);
  // the bf16 problem is another shape class and never offered.
  EXPECT_EQ(xs, (std::vector<int>{11, 3, 7}));
  EXPECT_EQ(log.warm_start_prior(1).size(), 1u);
}

TEST_F(TunerStore, TheLoopHandsTheStoresPriorsToTheSearcher) {
  Store store = Store::open(path_.string());
  std::vector<Result> rs = {testing::ok_at(12, 1e-3)};
  store.record(key_for(64), rs, provenance());

  Space space = testing::line_space(20);
  testing::ListSearcher searcher({0, 1, 2, 3});
  testing::ScriptedEvaluator evaluator;
  StoreLog log(store, key_for(128), provenance());
  TuneInputs in = testing::inputs(space, searcher, evaluator, log);
  TuneOptions options = testing::options(2, 2);
  options.warm_start = true;
  TuneReport report = Tuner(in, options).run();
  EXPECT_EQ(report.warm_started, 1u);
  EXPECT_EQ(searcher.priors, (std::vector<int>{12}));
  EXPECT_EQ(evaluator.all_evaluated(), (std::vector<int>{0, 1}));
}

}  // namespace
}  // namespace ktune
