// CLI tests of `ktune tune` and `ktune sweep`, run as a subprocess: bad input
// gives a clear message and a non-zero exit and leaves the database
// untouched; a replay tunes, stores and resumes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "measure/device_query.hpp"
#include "search/recorded_space.hpp"
#include "tests/ktune_process.hpp"
#include "tests/support/recording.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

using CliRun = test::ProcessRun;
using test::ktune;
using test::quote;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool has_gpu() { return !query_devices().devices.empty(); }

class TuneCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           (std::string("ktune_cli_test_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = (dir_ / "tune.db").string();
    write_synthetic_recording(dir_ / "line.json");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  /// A synthetic recording (not a measurement): one knob x = 0..11, time
  /// 2 ms + 0.1 ms * |x - 5|, x = 9 a compile error.
  static void write_synthetic_recording(const fs::path& path) {
    RecordedSpace rec;
    rec.family = "synthetic_line";
    rec.device_name = "Synthetic GPU";
    rec.problem = Problem{{"size0", std::int64_t{12}}};
    rec.provenance = {{"notes", "synthetic test fixture, not a measurement"}};
    std::vector<Result> results;
    for (int x = 0; x < 12; ++x) {
      Result r;
      r.config = Config{{"x", std::int64_t{x}}};
      if (x == 9) {
        r.status = Status::compile_error;
        r.message = "synthetic";
      } else {
        r.status = Status::ok;
        r.time.median_s = 2e-3 + 1e-4 * std::abs(x - 5);
        r.time.repetitions = 1;
      }
      results.push_back(r);
    }
    testing::write_recording(rec, std::move(results), path);
  }

  std::string replay() const { return "--replay " + quote((dir_ / "line.json").string()); }
  std::string db() const { return "--db " + quote(db_); }

  fs::path dir_;
  std::string db_;
};

TEST_F(TuneCli, UnknownFamilyIsAUsageErrorAndTheDatabaseIsNotCreated) {
  CliRun r = ktune("tune --kernel no_such_family --problem m=64 --budget 2 " + db());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown kernel family 'no_such_family'"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(db_));
}

TEST_F(TuneCli, UnknownStrategyIsAUsageError) {
  CliRun r = ktune("tune " + replay() + " --strategy simulated_anealing --budget 2 " + db());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown strategy 'simulated_anealing'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bayes"), std::string::npos) << "the message lists the known ones: " << r.output;
  EXPECT_FALSE(fs::exists(db_));
}

TEST_F(TuneCli, MalformedProblemIsAUsageError) {
  CliRun r = ktune("tune " + replay() + " --problem 'size0=12,,=' --budget 2 " + db());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("malformed problem"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(db_));
}

TEST_F(TuneCli, MalformedProblemForAFamilyIsAUsageError) {
  CliRun r = ktune("tune --kernel gemm --problem 'm=4096,n=,k' --budget 2 " + db());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("problem"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(db_));
}

TEST_F(TuneCli, ProblemNotInTheRecordingIsAUsageError) {
  CliRun r = ktune("tune " + replay() + " --problem size0=99 --budget 2 " + db());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("records problem 'size0=12'"), std::string::npos) << r.output;
}

TEST_F(TuneCli, ReplayFileInNoAcceptedFormatIsAUsageError) {
  std::ofstream(dir_ / "junk.json") << "this is not JSON at all";
  CliRun r = ktune("tune --replay " + quote((dir_ / "junk.json").string()) + " --budget 2 " + db());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("junk.json"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(db_));

  std::ofstream(dir_ / "other.json") << R"({"some": "json", "of": ["another", "tool"]})";
  r = ktune("tune --replay " + quote((dir_ / "other.json").string()) + " --budget 2 " + db());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("other.json"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("format"), std::string::npos) << r.output;

  r = ktune("tune --replay " + quote((dir_ / "absent.json").string()) + " --budget 2 " + db());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("does not exist"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(db_));
}

TEST_F(TuneCli, UnwritableDatabasePathIsAnErrorNamingThePath) {
  std::ofstream(dir_ / "plain_file") << "x";
  std::string bad = (dir_ / "plain_file" / "tune.db").string();
  CliRun r = ktune("tune " + replay() + " --budget 2 --db " + quote(bad));
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.output.find(bad), std::string::npos) << r.output;
}

TEST_F(TuneCli, AFileThatIsNotAKtuneDatabaseIsLeftUntouched) {
  std::string garbage = "not a database, and it must stay exactly like this\n";
  std::ofstream(db_) << garbage;
  CliRun r = ktune("tune " + replay() + " --budget 2 " + db());
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.output.find(db_), std::string::npos) << r.output;
  EXPECT_EQ(read_file(db_), garbage);
}

TEST_F(TuneCli, NoLimitIsAUsageError) {
  CliRun r = ktune("tune " + replay() + " " + db());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("no limit given"), std::string::npos) << r.output;
}

TEST_F(TuneCli, WithoutAGpuOrAReplayItSaysSoAndFails) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present: the no-GPU message cannot be checked here";
  CliRun r = ktune("tune --kernel gemm --problem m=256,n=256,k=256,dtype=fp32,layout=nn --budget 2 " + db());
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("no GPU"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--replay"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(db_));
}

TEST_F(TuneCli, ReplayTunesStoresAndResumes) {
  CliRun first = ktune("tune " + replay() + " --strategy random --seed 3 --budget 6 --batch 4 " + db());
  ASSERT_EQ(first.code, 0) << first.output;
  EXPECT_NE(first.output.find("Stopped: budget reached. 6 evaluated"), std::string::npos) << first.output;
  EXPECT_NE(first.output.find("configuration"), std::string::npos) << "final table: " << first.output;
  EXPECT_TRUE(fs::exists(db_));

  CliRun second = ktune("tune " + replay() + " --strategy random --seed 3 --budget 100 " + db());
  ASSERT_EQ(second.code, 0) << second.output;
  EXPECT_NE(second.output.find("6 stored results reused"), std::string::npos) << second.output;
  // 12 recorded, 6 reused: 6 left to measure, then the space is exhausted.
  EXPECT_NE(second.output.find("Stopped: search space exhausted. 6 evaluated"), std::string::npos)
      << second.output;
  EXPECT_NE(second.output.find("x=5"), std::string::npos) << second.output;  // the recorded optimum
}

TEST_F(TuneCli, DbQueryListsTheFastestConfigurationsPerProblem) {
  CliRun tuned = ktune("tune " + replay() + " --strategy exhaustive --budget 12 " + db());
  ASSERT_EQ(tuned.code, 0) << tuned.output;
  // Synthetic times: x = 5 fastest, then x = 4 and x = 6 (a tie, stored in that order).
  CliRun keys = ktune("db query " + db() + " --top 3 --keys");
  ASSERT_EQ(keys.code, 0) << keys.output;
  EXPECT_EQ(keys.output, "size0=12|x=5|x=4|x=6\n");
  CliRun table = ktune("db query " + db() + " --top 2");
  ASSERT_EQ(table.code, 0) << table.output;
  EXPECT_NE(table.output.find("1 problems"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("rank"), std::string::npos) << table.output;
  EXPECT_EQ(ktune("db query " + db() + " --top 0").code, 2);
  EXPECT_EQ(ktune("db query " + db() + " --keys --json").code, 2);
}

TEST_F(TuneCli, SweepRejectsUnknownKeysByName) {
  std::ofstream(dir_ / "sweep.json") << R"({"runs": [{"replay": "line.json", "budjet": 3}]})";
  CliRun r = ktune("sweep " + quote((dir_ / "sweep.json").string()) + " " + db());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown key 'budjet'"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(db_));
}

TEST_F(TuneCli, SweepShardsRunIntoTheirOwnDatabasesAndResume) {
  std::ofstream(dir_ / "sweep.json") << R"({
    "db": "sweep.db",
    "defaults": {"strategy": "random", "budget": 3},
    "runs": [{"replay": "line.json"}, {"replay": "line.json", "seed": 2}, {"replay": "line.json", "seed": 3}]
  })";
  std::string file = quote((dir_ / "sweep.json").string());
  CliRun r = ktune("sweep " + file + " --shard 1/2");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("shard 1/2 takes 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Summary"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "sweep.shard-1-of-2.db"));
  EXPECT_FALSE(fs::exists(dir_ / "sweep.db"));

  CliRun again = ktune("sweep " + file + " --shard 1/2");
  ASSERT_EQ(again.code, 0) << again.output;
  // Resumed: the shard's item holds its budget already, so nothing is measured again.
  EXPECT_NE(again.output.find("0 (+3)"), std::string::npos) << "resumed: " << again.output;

  CliRun dry = ktune("sweep " + file + " --shard 0/2 --dry-run");
  ASSERT_EQ(dry.code, 0) << dry.output;
  EXPECT_NE(dry.output.find("[0]"), std::string::npos) << dry.output;
  EXPECT_NE(dry.output.find("[2]"), std::string::npos) << dry.output;
  EXPECT_FALSE(fs::exists(dir_ / "sweep.shard-0-of-2.db"));
}

TEST_F(TuneCli, SweepDryRunRefusesStartsOutsideTheDevicesSpace) {
  std::ofstream(dir_ / "gemm.json") << R"({
    "defaults": {"strategy": "bayes", "budget": 8},
    "runs": [{"kernel": "gemm", "problems": ["m=256,n=256,k=256,layout=nt"],
              "start": ["BLOCK_K=64,BLOCK_M=256,BLOCK_N=256,CLUSTER_M=1,CLUSTER_N=1,GROUP_M=8,PATH=wgmma,PERSISTENT=false,PINGPONG=false,REDUCE=workspace,SPLIT_K=1,STAGES=16,STAGE_C=false,WARP_M=128"]}]
  })";
  const std::string file = quote((dir_ / "gemm.json").string());
  const std::string db = quote((dir_ / "dry.db").string());
  CliRun dry = ktune("sweep " + file + " --db " + db + " --dry-run --device h200");
  EXPECT_EQ(dry.code, 2) << dry.output;
  EXPECT_NE(dry.output.find("would be refused on NVIDIA H200"), std::string::npos) << dry.output;
  EXPECT_NE(dry.output.find("runs[0] gemm m=256,n=256,k=256,layout=nt"), std::string::npos) << dry.output;
  EXPECT_FALSE(fs::exists(dir_ / "dry.db"));  // a dry run writes no database
  CliRun tuning = ktune("sweep " + file + " --db " + db + " --device h200");  // --device serves the dry run only
  EXPECT_EQ(tuning.code, 2) << tuning.output;
  EXPECT_NE(tuning.output.find("--dry-run"), std::string::npos) << tuning.output;
  EXPECT_FALSE(fs::exists(dir_ / "dry.db"));
  CliRun unknown = ktune("sweep " + file + " --dry-run --device tpu");
  EXPECT_EQ(unknown.code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("unknown device 'tpu'"), std::string::npos) << unknown.output;
}

TEST_F(TuneCli, HelpDescribesEveryOption) {
  CliRun r = ktune("tune --help");
  EXPECT_EQ(r.code, 0) << r.output;
  for (const char* opt : {"--kernel", "--problem", "--strategy", "--budget", "--time", "--db", "--replay",
                          "--profile", "--batch", "--seed", "--patience", "--no-resume", "--source"})
    EXPECT_NE(r.output.find(opt), std::string::npos) << opt;
  CliRun s = ktune("sweep --help");
  EXPECT_EQ(s.code, 0) << s.output;
  EXPECT_NE(s.output.find("--shard"), std::string::npos);
}

// Measured ceilings are stored with a device that has results in the
// database, shown back, and refused with a clear message otherwise.
TEST_F(TuneCli, DbCeilingsAreStoredWithTheDevice) {
  CliRun r = ktune("tune --replay " + quote((dir_ / "line.json").string()) + " --strategy random --budget 4 " + db());
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string base = "db ceilings " + db() + " --device " + quote("Synthetic GPU");
  r = ktune(base + " --set warp_speed=9 --source test");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown ceiling 'warp_speed'"), std::string::npos) << r.output;
  r = ktune(base + " --set dram_gbps=1234");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--source"), std::string::npos) << r.output;
  r = ktune(base);  // nothing stored yet
  EXPECT_EQ(r.code, 1) << r.output;
  r = ktune("db ceilings " + db() + " --device " + quote("Other GPU") + " --set dram_gbps=1234 --source test");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown GPU 'Other GPU'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(it stores: Synthetic GPU)"), std::string::npos) << r.output;
  // Synthetic figures for the test, not measurements.
  r = ktune(base + " --set dram_gbps=1234,peak_tflops_bf16=56.5 --source " + quote("synthetic test figures"));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("copy 1234 GB/s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("measured figures from: synthetic test figures"), std::string::npos) << r.output;
  r = ktune(base + " --json");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("\"peak_tflops_bf16\": 56.5"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace ktune
