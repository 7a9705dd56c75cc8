// scripts/main-job without a GPU: the replayed recording's configurations are
// valid for the problem it stores, so the lookup answers a measured one; and
// the job fails when the lookup can only answer the family's default.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

const std::string kSource = std::string(KTUNE_TEST_DATA_DIR) + "/../..";

class MainJobScript : public ::testing::Test {
 protected:
  void SetUp() override {
    if (test::ktune("devices --json").output.find("\"ordinal\"") != std::string::npos)
      GTEST_SKIP() << "a GPU is present: the main job would tune on it instead of replaying";
    // One folder per test: ctest runs the two at once.
    dir_ = fs::temp_directory_path() /
           (std::string("ktune_main_job_test_") +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  test::ProcessRun main_job(const std::string& environment = "") {
    return test::shell("KTUNE_MAIN_OUT=" + test::quote(dir_.string()) + " " + environment + " " +
                       test::quote(kSource + "/scripts/main-job") + " " +
                       test::quote(test::ktune_path()));
  }
  fs::path dir_;
};

// The lookup's answer line: "<configuration>  (<source>)" after the heading.
std::string lookup_answer(const std::string& output) {
  const std::size_t heading = output.find("== Looking up the best configuration");
  if (heading == std::string::npos) return "";
  const std::size_t start = output.find('\n', heading) + 1;
  return output.substr(start, output.find('\n', start) - start);
}

TEST_F(MainJobScript, TheReplayedLookupAnswersAMeasuredConfiguration) {
  const auto run = main_job();
  EXPECT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("gemm_bf16_nt_2048x8192x8192_wgmma_pool_h200.json.gz"),
            std::string::npos)
      << run.output;
  EXPECT_NE(lookup_answer(run.output).find("(exact)"), std::string::npos) << run.output;
  // The replay's best is what the shipped database serves for the shape.
  EXPECT_NE(run.output.find("The same configuration as this run's best."), std::string::npos)
      << run.output;
}

TEST_F(MainJobScript, FailsWhenTheLookupAnswersTheDefault) {
  // The whole-space sample's key names no path: on an H200 layout=nt takes the
  // wgmma path, whose space refuses every recorded mma.sync configuration.
  const auto run = main_job("KTUNE_MAIN_RECORDING=" +
                            test::quote(kSource + "/tuning_db/recorded/"
                                                  "gemm_bf16_nt_4096x4096x4096_h200.json"));
  EXPECT_EQ(run.code, 1) << run.output;
  EXPECT_NE(lookup_answer(run.output).find("(default)"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("the lookup answered the family's default"), std::string::npos)
      << run.output;
}

}  // namespace
}  // namespace ktune
