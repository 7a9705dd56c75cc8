// CLI tests of distributed sweeps on the synthetic replay fixture: `mpirun
// -np 3 ktune sweep --mpi`, three shards merged with `ktune db merge`, and
// `--workers 3` each store the same (configuration, status) results as the
// single-process sweep; --gpus without a GPU and --mpi without MPI say so.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "db/store.hpp"
#include "engine/mpi_sweep.hpp"
#include "ktune_test_paths.hpp"
#include "measure/device_query.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

using ShellRun = test::ProcessRun;
using test::ktune;
using test::quote;
using test::shell;

std::string ktune_bin() { return quote(test::ktune_path()); }

bool have_mpirun() { return shell("command -v mpirun").code == 0; }

/// (problem, configuration key, status) of every measurement stored in `db`.
std::set<std::string> stored_set(const fs::path& db) {
  std::set<std::string> out;
  Store store = Store::open_read_only(db.string());
  store.for_each([&](const Measurement& m) {
    out.insert(m.key.family + " " + m.key.problem.key() + " | " + m.result.config.key() + " | " +
               std::string(to_string(m.result.status)));
    return true;
  });
  return out;
}

class DistributedSweepCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           (std::string("ktune_mpi_cli_test_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // Deterministic strategies (seeded random, exhaustive) over the
    // synthetic GEMM-like recording (not a measurement). Items 1 and 2 do
    // not resume, so every item measures the same set wherever it runs.
    const std::string rec = std::string(KTUNE_TEST_DATA_DIR) + "/recorded/synthetic_gemm_like.json";
    std::ofstream(dir_ / "sweep.json") << R"({
      "comment": "synthetic fixture, deterministic strategies",
      "runs": [
        {"replay": ")" << rec << R"(", "strategy": "random", "seed": 5, "budget": 24, "batch": 4},
        {"replay": ")" << rec << R"(", "strategy": "exhaustive", "budget": 15, "batch": 3, "resume": false},
        {"replay": ")" << rec << R"(", "strategy": "random", "seed": 11, "budget": 12, "batch": 2, "resume": false}
      ]})";
    file_ = quote((dir_ / "sweep.json").string());
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  /// The single-process sweep's stored set (the reference).
  std::set<std::string> single() {
    ShellRun r = ktune("sweep " + file_ + " --db " + quote((dir_ / "single.db").string()));
    EXPECT_EQ(r.code, 0) << r.output;
    std::set<std::string> s = stored_set(dir_ / "single.db");
    EXPECT_GE(s.size(), 24u);
    return s;
  }

  fs::path dir_;
  std::string file_;
};

TEST_F(DistributedSweepCli, ShardsMergedStoreTheSameResultsAsOneProcess) {
  std::set<std::string> reference = single();
  std::string merge = "db merge";
  for (int i = 0; i < 3; ++i) {
    ShellRun r = ktune("sweep " + file_ + " --db " + quote((dir_ / "shard.db").string()) + " --shard " +
                  std::to_string(i) + "/3");
    ASSERT_EQ(r.code, 0) << r.output;
    // Appended piece by piece: GCC 12 at -O3 takes the inlined `"text" + string` for a buffer overflow here (a
    // false positive).
    std::string shard = "shard.shard-";
    shard += std::to_string(i);
    shard += "-of-3.db";
    merge += ' ';
    merge += quote((dir_ / shard).string());
  }
  ShellRun m = ktune(merge + " -o " + quote((dir_ / "merged.db").string()));
  ASSERT_EQ(m.code, 0) << m.output;
  EXPECT_EQ(stored_set(dir_ / "merged.db"), reference);
}

TEST_F(DistributedSweepCli, LocalReplayWorkersStoreTheSameResultsAsOneProcess) {
  std::set<std::string> reference = single();
  ShellRun r = ktune("sweep " + file_ + " --workers 3 --db " + quote((dir_ / "workers.db").string()));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("Evaluating on 3 local workers"), std::string::npos) << r.output;
  EXPECT_EQ(stored_set(dir_ / "workers.db"), reference);
}

TEST_F(DistributedSweepCli, MpiRanksStoreTheSameResultsAsOneProcess) {
  if (!mpi_built()) GTEST_SKIP() << "ktune was built without MPI (KTUNE_WITH_MPI=OFF or Open MPI not found)";
  if (!have_mpirun()) GTEST_SKIP() << "mpirun is not installed";
  std::set<std::string> reference = single();
  // CI runs as root; Open MPI refuses that without both the flag and these variables.
  ShellRun r = shell("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader "
                "mpirun --oversubscribe --allow-run-as-root -np 3 " +
                ktune_bin() + " sweep " + file_ + " --mpi --db " + quote((dir_ / "mpi.db").string()));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("Evaluating on 2 MPI ranks"), std::string::npos) << r.output;
  EXPECT_EQ(stored_set(dir_ / "mpi.db"), reference);
  // Only rank 0 printed the sweep.
  EXPECT_EQ(r.output.find("Sweep "), r.output.rfind("Sweep ")) << r.output;
}

TEST_F(DistributedSweepCli, MpiWithoutMpiInTheBuildSaysSo) {
  if (mpi_built()) GTEST_SKIP() << "this build has MPI; the message of a build without it cannot be checked here";
  ShellRun r = ktune("sweep " + file_ + " --mpi --db " + quote((dir_ / "x.db").string()));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("built without MPI"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "x.db"));
}

TEST_F(DistributedSweepCli, GpusWithoutAGpuSaysSoAndSuggestsWorkers) {
  if (!query_devices().devices.empty()) GTEST_SKIP() << "a GPU is present: the no-GPU message cannot be checked here";
  ShellRun r = ktune("sweep " + file_ + " --gpus all --db " + quote((dir_ / "x.db").string()));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("--gpus: no GPU"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--workers N"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "x.db"));
}

TEST_F(DistributedSweepCli, ConflictingDistributionOptionsAreUsageErrors) {
  ShellRun r = ktune("sweep " + file_ + " --mpi --workers 2");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--mpi cannot be combined"), std::string::npos) << r.output;
  ShellRun z = ktune("sweep " + file_ + " --workers 0");
  EXPECT_NE(z.code, 0) << z.output;
}

TEST_F(DistributedSweepCli, HelpDescribesTheDistributionOptions) {
  ShellRun r = ktune("sweep --help");
  EXPECT_EQ(r.code, 0) << r.output;
  for (const char* option : {"--mpi", "--gpus", "--workers", "mpirun -np N"})
    EXPECT_NE(r.output.find(option), std::string::npos) << option << "\n" << r.output;
}

}  // namespace
}  // namespace ktune
