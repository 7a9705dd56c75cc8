// CLI tests of `ktune tune --compile-only`: compiles a built-in family's
// configurations with NVRTC without a GPU, reports resources as JSON, and
// rejects bad input with exit code 2 before compiling anything.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

using test::ktune;

const std::string kReduce =
    "tune --kernel reduce --problem rows=256,cols=1024,dtype=fp32 --compile-only ";

TEST(CompileOnlyCli, CompilesSampledConfigurationsAndReportsResources) {
  auto run = ktune(kReduce + "--budget 2 --arch h200 --json");
  ASSERT_EQ(run.code, 0) << run.output;
  const auto report = nlohmann::json::parse(run.output);
  EXPECT_EQ(report.at("arch"), "sm_90");
  EXPECT_EQ(report.at("compiled"), 2);
  EXPECT_EQ(report.at("failed"), 0);
  for (const auto& c : report.at("configurations")) {
    EXPECT_TRUE(c.at("ok").get<bool>());
    ASSERT_FALSE(c.at("kernels").empty());
    EXPECT_GT(c.at("kernels")[0].at("registers").get<int>(), 0) << c.dump();
  }
}

TEST(CompileOnlyCli, RequireWithoutBudgetCompilesTheWholeSubSpace) {
  const std::string require =
      "--require \"grid == 'rows' && threads_per_row == 32 && vec == 4 && unroll == 1 && split == "
      "1 && "
      "cache == 'default' && reduction == 'shuffle'\" ";
  auto space =
      ktune("space --kernel reduce --problem rows=256,cols=1024,dtype=fp32 --json " + require);
  ASSERT_EQ(space.code, 0) << space.output;
  auto run = ktune(kReduce + require + "--arch sm_90a --json");
  ASSERT_EQ(run.code, 0) << run.output;
  const auto report = nlohmann::json::parse(run.output);
  EXPECT_EQ(report.at("arch"), "sm_90a");
  EXPECT_GE(report.at("configurations").size(), 1u);
  auto count = ktune("space --kernel reduce --problem rows=256,cols=1024,dtype=fp32 " + require);
  EXPECT_NE(count.output.find("valid configurations: " +
                              std::to_string(report.at("configurations").size())),
            std::string::npos)
      << count.output;
}

TEST(CompileOnlyCli, BadInputIsAUsageError) {
  auto unbounded = ktune(kReduce);
  EXPECT_EQ(unbounded.code, 2) << unbounded.output;
  EXPECT_NE(unbounded.output.find("--budget"), std::string::npos) << unbounded.output;

  auto arch = ktune(kReduce + "--budget 1 --arch sm_999");
  EXPECT_EQ(arch.code, 2) << arch.output;
  EXPECT_NE(arch.output.find("sm_999"), std::string::npos) << arch.output;

  auto json_alone =
      ktune("tune --kernel reduce --problem rows=256,cols=1024,dtype=fp32 --budget 1 --json");
  EXPECT_EQ(json_alone.code, 2) << json_alone.output;
}

}  // namespace
}  // namespace ktune
