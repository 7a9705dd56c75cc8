// `ktune lookup` for GPUs that did not make the database: the shipped
// database answers an H100 PCIe from the H200's rows and says so, the H100
// SXM it holds from its own; --own-only keeps to the GPU's own; an unknown
// name without a driver is one line and exit 2; --verbose shows the
// calibration read from its cache on the second call.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <unistd.h>

#include "ktune_test_paths.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

using test::quote;

const std::string kShippedDb = std::string(KTUNE_TEST_DATA_DIR) + "/../../tuning_db/ktune.db";

class LookupSiblingCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::remove_all(cache_);
    std::filesystem::create_directories(cache_);
  }
  void TearDown() override { std::filesystem::remove_all(cache_); }
  test::ProcessRun lookup(const std::string& args) {
    return test::shell("env -u KTUNE_DB -u KTUNE_SYSTEM_DB KTUNE_PREDICTOR_CACHE=" + quote(cache_) +
                       " " + quote(test::ktune_path()) + " lookup --db " +
                       quote(cache_ + "/none.db") + " --system-db " + quote(kShippedDb) +
                       " --kernel gemm " + args);
  }
  std::string cache_ =
      (std::filesystem::temp_directory_path() / ("ktune_sibling_cli_" + std::to_string(::getpid())))
          .string();
};

TEST_F(LookupSiblingCli, AHopperGpuWithoutMeasurementsIsAnsweredFromTheH200AndSaysSo) {
  const auto r = lookup("--problem m=24,n=4096,k=4096,dtype=bf16,layout=nt --device 'h100 pcie'");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("(predicted)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("measured on NVIDIA H"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("another GPU of this arch"), std::string::npos) << r.output;
  const auto json =
      lookup("--problem m=4096,n=4096,k=4096,dtype=bf16,layout=nt --json --device 'h100 pcie'");
  EXPECT_EQ(json.code, 0) << json.output;
  EXPECT_NE(json.output.find("\"reach\": \"sibling\""), std::string::npos) << json.output;
  EXPECT_NE(json.output.find("\"from\": \"exact (measured on NVIDIA H200)\""), std::string::npos)
      << json.output;
}

TEST_F(LookupSiblingCli, AGpuTheDatabaseHoldsIsAnsweredFromItsOwn) {
  const auto r = lookup("--problem m=24,n=4096,k=4096,dtype=bf16,layout=nt --device h100");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("(predicted)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("measured on NVIDIA H100 80GB HBM3"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("another GPU of this arch"), std::string::npos) << r.output;
}

TEST_F(LookupSiblingCli, OwnOnlyServesTheDefaultToAGpuWithoutMeasurements) {
  const auto r =
      lookup("--problem m=4096,n=4096,k=4096,dtype=bf16,layout=nt --device 'h100 pcie' --own-only");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("(default)"), std::string::npos) << r.output;
  const auto own =
      lookup("--problem m=4096,n=4096,k=4096,dtype=bf16,layout=nt --device h200 --own-only");
  EXPECT_NE(own.output.find("(exact)"), std::string::npos) << own.output;
}

TEST_F(LookupSiblingCli, AnUnknownNameWithoutItsGpuIsOneLineAndExitTwo) {
  const auto r = lookup(
      "--problem m=24,n=4096,k=4096,dtype=bf16,layout=nt --device "
      "'NVIDIA H100 NVL' --no-predict");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
  EXPECT_NE(r.output.find("unknown GPU 'NVIDIA H100 NVL'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("NVIDIA H100 PCIe"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sm_90"), std::string::npos) << r.output;
}

TEST_F(LookupSiblingCli, TheCalibrationIsFittedOnceAndReadAfter) {
  const std::string args =
      "--problem m=24,n=4096,k=4096,dtype=bf16,layout=nt --device h200 --verbose";
  const auto first = lookup(args);
  EXPECT_EQ(first.code, 0) << first.output;
  EXPECT_NE(first.output.find("calibrated and cached"), std::string::npos) << first.output;
  const auto second = lookup(args);
  EXPECT_NE(second.output.find("calibration read from cache"), std::string::npos) << second.output;
  EXPECT_NE(second.output.find("lookup: indexed"), std::string::npos) << second.output;
  EXPECT_NE(second.output.find("lookup: answered in"), std::string::npos) << second.output;
}

}  // namespace
}  // namespace ktune
