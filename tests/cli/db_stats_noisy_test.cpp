// `ktune db stats` counts noisy timings: ok results marked by the timing
// method (metrics.timing.noisy), and older unmarked ones above the spread target.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/store.hpp"
#include "space/device_spec.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

Result ok_result(std::int64_t threads, double spread, nlohmann::json metrics) {
  Result r;
  r.config = Config{{"threads", threads},
                    {"items", std::int64_t{4}},
                    {"mode", std::string("normal")},
                    {"smem_stage", false}};
  r.status = Status::ok;
  r.time.median_s = 1e-3;
  r.time.spread = spread;
  r.time.repetitions = 10;
  r.metrics = std::move(metrics);
  return r;
}

TEST(DbStatsCli, CountsNoisyTimings) {
  const fs::path dir = fs::temp_directory_path() / "ktune_db_stats_noisy_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = (dir / "stats.db").string();
  {
    Store store = Store::open(db);
    const RunKey key{*find_builtin_device("h200"),       "test_faulty", "0123456789abcdef",
                     Problem{{"n", std::int64_t{1024}}}, {"n"},         ""};
    const std::vector<Result> results = {
        ok_result(64, 0.30, {{"timing", {{"noisy", true}, {"reps", 200}, {"spread", 0.30}}}}),
        ok_result(128, 0.01, {{"timing", {{"noisy", false}, {"reps", 10}, {"spread", 0.01}}}}),
        ok_result(256, 0.05, nlohmann::json::object()),  // stored before the mark: spread above 2%
        ok_result(512, 0.01, nlohmann::json::object()),
    };
    store.record(key, results, Provenance{"test", "test", "", ""});
  }
  const test::ProcessRun run = test::ktune("db stats --json --db " + test::quote(db));
  ASSERT_EQ(run.code, 0) << run.output;
  const nlohmann::json j = nlohmann::json::parse(run.output);
  EXPECT_EQ(j.at("noisy").at("marked").get<int>(), 1);
  EXPECT_EQ(j.at("noisy").at("unmarked_over_target").get<int>(), 1);
  const test::ProcessRun text = test::ktune("db stats --db " + test::quote(db));
  EXPECT_NE(text.output.find("1 marked, 1 older unmarked"), std::string::npos) << text.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ktune
