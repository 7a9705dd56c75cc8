// Tests of sweep files (validation errors name the key), sharding (a disjoint
// cover), shard databases, and a resumable sweep over synthetic recordings.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/sweep.hpp"
#include "tests/support/recording.hpp"
#include "tuner_fakes.hpp"

namespace ktune {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

/// A temp folder holding a synthetic recording (x = 0..9, time 1 ms + 0.1 ms
/// * |x - 6|); removed at the end of the test.
class SweepFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ktune_sweep_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    RecordedSpace rec;
    rec.family = "synthetic_line";
    rec.device_name = "Synthetic GPU";
    rec.source = "synthetic test fixture (not a measurement)";
    rec.problem = Problem{{"size0", std::int64_t{10}}};
    std::vector<Result> results;
    for (int x = 0; x < 10; ++x) {
      Result r;
      r.config = testing::cfg(x);
      r.status = Status::ok;
      r.time.median_s = 1e-3 + 1e-4 * std::abs(x - 6);
      r.time.repetitions = 1;
      results.push_back(r);
    }
    testing::write_recording(rec, std::move(results), dir_ / "line.json");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

std::string error_of(const json& j, const fs::path& base = {}) {
  try {
    parse_sweep(j, base, "sweep.json");
  } catch (const SweepError& e) {
    return e.what();
  }
  return "(no error)";
}

json replay_sweep() {
  return json{{"defaults", {{"strategy", "random"}, {"budget", 4}}}, {"runs", json::array({{{"replay", "line.json"}}})}};
}

TEST_F(SweepFixture, AcceptsAValidFileAndAppliesDefaultsThenRunOverrides) {
  json j = replay_sweep();
  j["db"] = "out/x.db";
  j["runs"].push_back({{"replay", "line.json"}, {"budget", 6}, {"time", "2m"}, {"seed", 7}});
  SweepFile file = parse_sweep(j, dir_);
  ASSERT_EQ(file.items.size(), 2u);
  EXPECT_EQ(file.db, (dir_ / "out/x.db").lexically_normal().string());
  EXPECT_EQ(file.items[0].spec.options.budget, 4u);
  EXPECT_EQ(file.items[0].spec.strategy, "random");
  EXPECT_EQ(file.items[0].spec.replay, (dir_ / "line.json").lexically_normal().string());
  EXPECT_EQ(file.items[1].spec.options.budget, 6u);
  EXPECT_DOUBLE_EQ(file.items[1].spec.options.time_limit_s, 120.0);
  EXPECT_EQ(file.items[1].spec.seed, 7u);
  EXPECT_EQ(file.items[1].index, 1u);
}

TEST_F(SweepFixture, RejectsUnknownKeysByName) {
  json top = replay_sweep();
  top["dbb"] = "x.db";
  EXPECT_NE(error_of(top, dir_).find("unknown key 'dbb'"), std::string::npos) << error_of(top, dir_);

  json def = replay_sweep();
  def["defaults"]["stratgy"] = "bayes";
  EXPECT_NE(error_of(def, dir_).find("defaults: unknown key 'stratgy'"), std::string::npos) << error_of(def, dir_);

  json run = replay_sweep();
  run["runs"][0]["budjet"] = 3;
  std::string msg = error_of(run, dir_);
  EXPECT_NE(msg.find("runs[0]: unknown key 'budjet'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("accepted:"), std::string::npos) << msg;
  EXPECT_EQ(msg.rfind("sweep.json: ", 0), 0u) << msg;
}

TEST_F(SweepFixture, RejectsWrongTypesAndMissingPieces) {
  json j = replay_sweep();
  j["runs"][0]["budget"] = "ten";
  EXPECT_NE(error_of(j, dir_).find("runs[0].budget: expected a non-negative integer"), std::string::npos)
      << error_of(j, dir_);

  j = replay_sweep();
  j["runs"][0]["batch"] = 0;
  EXPECT_NE(error_of(j, dir_).find("runs[0].batch: expected a positive integer"), std::string::npos);

  j = replay_sweep();
  j["runs"][0]["time"] = "soon";
  EXPECT_NE(error_of(j, dir_).find("runs[0].time: malformed duration 'soon'"), std::string::npos)
      << error_of(j, dir_);

  j = replay_sweep();
  j["runs"][0].erase("replay");
  EXPECT_NE(error_of(j, dir_).find("runs[0]: needs \"kernel\""), std::string::npos) << error_of(j, dir_);

  j = {{"runs", json::array()}};
  EXPECT_NE(error_of(j, dir_).find("runs: expected a non-empty list"), std::string::npos);

  j = json::object();
  EXPECT_NE(error_of(j, dir_).find("no \"runs\""), std::string::npos);

  j = replay_sweep();
  j["defaults"].erase("budget");
  EXPECT_NE(error_of(j, dir_).find("runs[0]: no limit given"), std::string::npos) << error_of(j, dir_);
}

TEST_F(SweepFixture, ValidatesEveryItemBeforeRunning) {
  json j = replay_sweep();
  j["runs"].push_back({{"replay", "missing.json"}});
  std::string msg = error_of(j, dir_);
  EXPECT_NE(msg.find("runs[1]: replay file"), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing.json"), std::string::npos) << msg;

  j = replay_sweep();
  j["runs"][0]["strategy"] = "simulated_anealing";
  msg = error_of(j, dir_);
  EXPECT_NE(msg.find("unknown strategy 'simulated_anealing'"), std::string::npos) << msg;

  j = replay_sweep();
  j["runs"].push_back({{"kernel", "no_such_family"}, {"problems", {"m=1"}}});
  msg = error_of(j, dir_);
  EXPECT_NE(msg.find("runs[1].problems[0]: unknown kernel family 'no_such_family'"), std::string::npos) << msg;

  j = replay_sweep();
  j["runs"][0]["problems"] = {"size0=99"};
  msg = error_of(j, dir_);
  EXPECT_NE(msg.find("records problem"), std::string::npos) << msg;
}

TEST_F(SweepFixture, ReadSweepReportsBadJsonWithTheFileName) {
  fs::path bad = dir_ / "bad.json";
  {
    std::ofstream out(bad);
    out << "{\"runs\": [";
  }
  try {
    read_sweep(bad);
    FAIL() << "no error";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json' is not valid JSON"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_sweep(dir_ / "absent.json"), SweepError);
}

TEST(SweepShard, ParsesAndRejects) {
  Shard s = parse_shard("2/5");
  EXPECT_EQ(s.index, 2u);
  EXPECT_EQ(s.count, 5u);
  for (const char* bad : {"5/5", "1/0", "-1/3", "a/3", "1/", "/3", "13", "1/3x", ""})
    EXPECT_THROW(parse_shard(bad), std::invalid_argument) << bad;
}

TEST(SweepShard, ShardsAreADisjointCover) {
  std::vector<SweepItem> items(23);
  for (std::size_t i = 0; i < items.size(); ++i) items[i].index = i;
  for (std::size_t n : {1u, 2u, 3u, 4u, 7u, 30u}) {
    std::multiset<std::size_t> seen;
    for (std::size_t i = 0; i < n; ++i)
      for (const SweepItem& item : shard_items(items, Shard{i, n})) seen.insert(item.index);
    ASSERT_EQ(seen.size(), items.size()) << "N=" << n;
    for (std::size_t i = 0; i < items.size(); ++i) EXPECT_EQ(seen.count(i), 1u) << "N=" << n << " item " << i;
  }
  // Deterministic: the same shard twice gives the same items.
  auto a = shard_items(items, Shard{1, 4}), b = shard_items(items, Shard{1, 4});
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].index, b[i].index);
}

TEST(SweepShard, EachShardHasItsOwnDatabase) {
  EXPECT_EQ(shard_db_path("out/sweep.db", Shard{0, 1}), "out/sweep.db");
  EXPECT_EQ(shard_db_path("out/sweep.db", Shard{1, 4}), "out/sweep.shard-1-of-4.db");
  EXPECT_EQ(shard_db_path("sweep", Shard{0, 2}), "sweep.shard-0-of-2");
  EXPECT_NE(shard_db_path("a.db", Shard{0, 2}), shard_db_path("a.db", Shard{1, 2}));
}

TEST_F(SweepFixture, RunsResumablyIntoOneStoreAndSummarises) {
  json j = replay_sweep();
  j["runs"][0]["budget"] = 8;
  SweepFile file = parse_sweep(j, dir_);
  Store store = Store::open((dir_ / "sweep.db").string());
  NullProgress quiet;
  std::ostringstream log;
  // A run cut off after 6 of its 8 evaluations.
  std::vector<SweepItem> cut = file.items;
  cut[0].spec.options.budget = 6;
  std::vector<SweepOutcome> first = run_sweep(cut, store, &quiet, log);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_TRUE(first[0].report) << first[0].error;
  EXPECT_EQ(first[0].report->measured.size(), 6u);

  // Rerunning goes on: the 6 stored count toward the budget, 2 more are measured.
  std::vector<SweepOutcome> second = run_sweep(file.items, store, &quiet, log);
  ASSERT_TRUE(second[0].report) << second[0].error;
  EXPECT_EQ(second[0].report->reused.size(), 6u);
  EXPECT_EQ(second[0].report->measured.size(), 2u);
  EXPECT_EQ(second[0].report->stop, StopReason::budget);

  // A finished problem is not tuned again.
  std::vector<SweepOutcome> third = run_sweep(file.items, store, &quiet, log);
  ASSERT_TRUE(third[0].report) << third[0].error;
  EXPECT_EQ(third[0].report->reused.size(), 8u);
  EXPECT_EQ(third[0].report->measured.size(), 0u);
  ASSERT_TRUE(third[0].report->best);

  std::ostringstream summary;
  print_sweep_summary(summary, third);
  EXPECT_NE(summary.str().find("0 (+8)"), std::string::npos) << summary.str();
}

TEST_F(SweepFixture, AFailingItemDoesNotStopTheSweep) {
  SweepFile file = parse_sweep(replay_sweep(), dir_);
  SweepItem broken = file.items[0];
  broken.spec.replay = (dir_ / "vanished.json").string();
  std::vector<SweepItem> items = {broken, file.items[0]};
  items[1].index = 1;
  Store store = Store::open(":memory:");
  NullProgress quiet;
  std::ostringstream log;
  std::vector<SweepOutcome> outcomes = run_sweep(items, store, &quiet, log);
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_FALSE(outcomes[0].report);
  EXPECT_NE(outcomes[0].error.find("vanished.json"), std::string::npos);
  EXPECT_TRUE(outcomes[1].report);
  std::ostringstream summary;
  print_sweep_summary(summary, outcomes);
  EXPECT_NE(summary.str().find("error:"), std::string::npos);
}

// A sweep on the H200 once lost two problems to start keys whose ring did not
// fit shared memory; this check finds such keys on any machine, before the
// GPU is borrowed.
TEST(SweepDeviceCheck, NamesTheRunsWhoseStartsOrSubSpaceTheDeviceRefuses) {
  const DeviceSpec h200 = *find_builtin_device("h200");
  const std::string fits =
      "BLOCK_K=64,BLOCK_M=128,BLOCK_N=112,CLUSTER_M=1,CLUSTER_N=1,GROUP_M=8,PATH=wgmma,PERSISTENT=false,"
      "PINGPONG=false,REDUCE=workspace,SPLIT_K=1,STAGES=6,STAGE_C=true,WARP_M=64";
  std::string too_deep = fits;  // 7 stages of 128 x 112 plus the staging buffers: over 227 KB
  too_deep.replace(too_deep.find("STAGES=6"), 8, "STAGES=7");
  const std::string problem = "m=128,n=14336,k=4096,dtype=bf16,layout=nt";
  json j{{"defaults", {{"strategy", "bayes"}, {"budget", 8}}},
         {"runs", json::array({{{"kernel", "gemm"}, {"problems", {problem}}, {"start", {fits}}},
                               {{"kernel", "gemm"}, {"problems", {problem}}, {"start", {too_deep}}},
                               {{"kernel", "gemm"}, {"problems", {problem}}, {"require", {"BLOCK_M > 512"}}}})}};
  const SweepFile file = parse_sweep(j, {});  // every key is well formed: parsing accepts all three
  const std::vector<std::string> refused = check_items_on_device(file.items, h200);
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_NE(refused[0].find("runs[1]"), std::string::npos) << refused[0];
  EXPECT_NE(refused[0].find("STAGES=7"), std::string::npos) << refused[0];
  EXPECT_NE(refused[0].find("shared memory"), std::string::npos) << refused[0];
  EXPECT_NE(refused[1].find("runs[2]"), std::string::npos) << refused[1];
  EXPECT_NE(refused[1].find("BLOCK_M > 512"), std::string::npos) << refused[1];
  // The first run alone starts.
  EXPECT_TRUE(check_items_on_device({file.items[0]}, h200).empty());
}

}  // namespace
}  // namespace ktune
