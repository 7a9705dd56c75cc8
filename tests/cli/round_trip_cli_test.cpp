// Round trips as a property: every kind of database ktune writes (replays of
// every shipped recording and Kernel Tuner space, sweeps, merges, imports of
// T4 and CSV, the shipped database), exported in every format and imported
// into an empty database, gives a database that `ktune db diff` reports equal
// and that holds every measurement unchanged. No GPU: the tuning is replayed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/db/db_test_support.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using test::ktune;
using test::quote;

const fs::path kRoot = fs::path(KTUNE_TEST_DATA_DIR).parent_path().parent_path();

/// The recordings under `dir` (.json and .json.gz, not its READMEs), sorted.
std::vector<fs::path> recordings_in(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    const auto ends = [&](const std::string& s) {
      return name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
    };
    if (e.is_regular_file() && (ends(".json") || ends(".json.gz"))) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Replays each recording into `db`: a short seeded random search, enough to
/// store measurements of every status the recording answers with.
void replay_into(const std::string& db, const std::vector<fs::path>& recordings) {
  ASSERT_FALSE(recordings.empty());
  for (const fs::path& r : recordings) {
    auto run = ktune("tune --replay " + quote(r.string()) +
                     " --strategy random --budget 6 --seed 1 --db " + quote(db));
    ASSERT_EQ(run.code, 0) << r << "\n" << run.output;
  }
}

/// Every measurement of `db` as its JSON Lines records, sorted: two databases
/// with the same lines hold the same measurements, field for field.
std::vector<std::string> measurement_lines(const std::string& db, const std::string& file) {
  auto run = ktune("db export --db " + quote(db) + " -o " + quote(file));
  EXPECT_EQ(run.code, 0) << run.output;
  std::istringstream in(testing::read_bytes(file));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

/// The property: `db` exported in every format, each file imported into an
/// empty database, gives a database that `db diff` reports equal to `db` and
/// that holds the same measurements. The imported databases stay in `dir`
/// (`<label>.<format>.db`) for the kinds made by importing.
void expect_round_trip(const std::string& db, const testing::TempDir& dir,
                       const std::string& label) {
  SCOPED_TRACE(label);
  const std::vector<std::string> original =
      measurement_lines(db, dir.file(label + ".reference.jsonl"));
  ASSERT_FALSE(original.empty()) << db << " holds no measurement";
  for (const std::string format : {"jsonl", "csv", "json"}) {
    SCOPED_TRACE(format);
    const std::string file = dir.file(label + "." + format),
                      copy = dir.file(label + "." + format + ".db");
    auto out = ktune("db export --db " + quote(db) + " -o " + quote(file));
    ASSERT_EQ(out.code, 0) << out.output;
    auto in = ktune("db import " + quote(file) + " --db " + quote(copy));
    ASSERT_EQ(in.code, 0) << in.output;
    const std::string n = std::to_string(original.size());
    EXPECT_NE(in.output.find("read " + n + " measurements, " + n + " new"), std::string::npos)
        << in.output;

    auto diff = ktune("db diff " + quote(db) + " " + quote(copy) + " --json");
    ASSERT_EQ(diff.code, 0) << diff.output;
    const std::size_t json_at = diff.output.find('{');  // after any note on stderr
    ASSERT_NE(json_at, std::string::npos) << diff.output;
    const nlohmann::json d = nlohmann::json::parse(diff.output.substr(json_at));
    EXPECT_TRUE(d["only_a"].empty() && d["only_b"].empty() && d["changed"].empty()) << diff.output;

    EXPECT_EQ(measurement_lines(copy, dir.file(label + "." + format + ".again.jsonl")), original);
  }
}

TEST(RoundTrip, ReplaysOfEveryShippedRecordingAndImportsOfTheirT4AndCsv) {
  testing::TempDir dir;
  const fs::path recorded = kRoot / "tuning_db" / "recorded";
  std::vector<fs::path> all = recordings_in(recorded);
  for (const char* sub : {"shapes", "foreign"})
    for (const fs::path& r : recordings_in(recorded / sub)) all.push_back(r);
  const std::string db = dir.file("recorded.db");
  replay_into(db, all);
  expect_round_trip(db, dir, "recorded");
  // The databases made by importing a T4 and a CSV file round-trip too.
  expect_round_trip(dir.file("recorded.json.db"), dir, "imported-t4");
  expect_round_trip(dir.file("recorded.csv.db"), dir, "imported-csv");
}

TEST(RoundTrip, ReplaysOfEveryKernelTunerSpaceAndTestRecording) {
  testing::TempDir dir;
  const fs::path data(KTUNE_TEST_DATA_DIR);
  std::vector<fs::path> all = recordings_in(data / "kernel_tuner");
  for (const char* sub : {"kernel_tuner/excerpts", "recorded"})
    for (const fs::path& r : recordings_in(data / sub)) all.push_back(r);
  const std::string db = dir.file("spaces.db");
  replay_into(db, all);
  expect_round_trip(db, dir, "spaces");
}

TEST(RoundTrip, SweepsAndTheirMerge) {
  testing::TempDir dir;
  const fs::path data(KTUNE_TEST_DATA_DIR);
  // One recording of each format: ktune (an older template version), Kernel Tuner, T4.
  const nlohmann::json sweep = {
      {"defaults", {{"strategy", "random"}, {"budget", 6}, {"seed", 2}}},
      {"runs",
       {{{"replay", (kRoot / "tuning_db/recorded/gemm_bf16_nt_4096x4096x512_h200.json").string()}},
        {{"replay", (data / "kernel_tuner/excerpts/gemm_RTX_3090.json").string()}},
        {{"replay", (data / "recorded/t4_results_synthetic.json").string()}}}}};
  testing::write_bytes(dir.file("sweep.json"), sweep.dump(2));
  const std::string one = dir.file("sweep.db"), workers = dir.file("workers.db");
  auto run = ktune("sweep " + quote(dir.file("sweep.json")) + " --db " + quote(one));
  ASSERT_EQ(run.code, 0) << run.output;
  run = ktune("sweep " + quote(dir.file("sweep.json")) + " --workers 2 --db " + quote(workers));
  ASSERT_EQ(run.code, 0) << run.output;
  const std::string merged = dir.file("merged.db");
  run = ktune("db merge " + quote(one) + " " + quote(workers) + " -o " + quote(merged));
  ASSERT_EQ(run.code, 0) << run.output;
  expect_round_trip(one, dir, "sweep");
  expect_round_trip(workers, dir, "sweep-workers");
  expect_round_trip(merged, dir, "merged");
}

TEST(RoundTrip, TheShippedDatabase) {
  const fs::path shipped = kRoot / "tuning_db" / "ktune.db";
  ASSERT_TRUE(fs::exists(shipped)) << shipped;
  testing::TempDir dir;
  fs::copy_file(
      shipped,
      dir.file("shipped.db"));  // read-only opens of a copy: no -wal next to the checkout's
  expect_round_trip(dir.file("shipped.db"), dir, "shipped");
}

}  // namespace
}  // namespace ktune
