// scripts/gpu-reverify without a GPU: argument handling (exit 2 with a
// message), the dry run's plan over the shipped database, and its refusal to
// reuse a folder that holds an earlier re-verification.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

const std::string kSource = std::string(KTUNE_TEST_DATA_DIR) + "/../..";

test::ProcessRun reverify(const std::string& args) {
  return test::shell("KTUNE_BIN=" + test::quote(test::ktune_path()) + " " +
                     test::quote(kSource + "/scripts/gpu-reverify") + " " + args);
}

class GpuReverifyScript : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test and process: CTest runs these tests in parallel, and
    // a shared folder let one test's plan appear in (or vanish from) another's.
    dir_ = fs::temp_directory_path() /
           ("ktune_gpu_reverify_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(GpuReverifyScript, BadArgumentsExitTwoWithAMessage) {
  EXPECT_EQ(reverify("").code, 2);
  const auto no_db = reverify("--db /nonexistent/ktune.db " + test::quote(dir_.string()));
  EXPECT_EQ(no_db.code, 2);
  EXPECT_NE(no_db.output.find("no database at '/nonexistent/ktune.db'"), std::string::npos)
      << no_db.output;
  const auto bad_top = reverify("--top 0 " + test::quote(dir_.string()));
  EXPECT_EQ(bad_top.code, 2);
  EXPECT_NE(bad_top.output.find("--top '0'"), std::string::npos) << bad_top.output;
  EXPECT_EQ(reverify("--frobnicate " + test::quote(dir_.string())).code, 2);
  EXPECT_FALSE(fs::exists(dir_));  // nothing written on bad input
}

TEST_F(GpuReverifyScript, DryRunPlansOneRunPerStoredBestAndRunsNothing) {
  const std::string db = kSource + "/tuning_db/ktune.db";
  const auto run = reverify("--dry-run --db " + test::quote(db) + " " + test::quote(dir_.string()));
  ASSERT_EQ(run.code, 0) << run.output;
  std::ifstream plan(dir_ / "plan.tsv");
  int lines = 0;
  for (std::string line; std::getline(plan, line);) ++lines;
  // One line per problem of the shipped database, each a `ktune tune` of exactly that
  // configuration.
  const auto query = test::ktune("db query --json --db " + test::quote(db));
  ASSERT_EQ(query.code, 0) << query.output;
  EXPECT_EQ(lines, static_cast<int>(nlohmann::json::parse(query.output).size()));
  EXPECT_GT(lines, 0);
  std::size_t commands = 0;
  for (std::size_t at = run.output.find(" tune --kernel "); at != std::string::npos;
       at = run.output.find(" tune --kernel ", at + 1))
    ++commands;
  EXPECT_EQ(commands, static_cast<std::size_t>(lines));
  EXPECT_NE(run.output.find("--budget 1 --no-resume"), std::string::npos) << run.output;
  EXPECT_FALSE(fs::exists(dir_ / "runs"));

  // A folder with an earlier re-verification is never reused.
  fs::create_directories(dir_ / "runs");
  const auto again =
      reverify("--dry-run --db " + test::quote(db) + " " + test::quote(dir_.string()));
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.output.find("earlier re-verification"), std::string::npos) << again.output;
}

}  // namespace
}  // namespace ktune
