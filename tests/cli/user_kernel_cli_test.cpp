// CLI tests of user kernels: `ktune space/tune --spec`, --compile-only of
// every example in examples/user_kernels (the CI check of their spaces), a
// configuration that fails to compile (exit 1), bad descriptions (exit 2,
// naming the field) and sweep runs with "spec".
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/db/db_test_support.hpp"
#include "tests/ktune_process.hpp"
#include "tests/user/user_test_support.hpp"

namespace ktune {
namespace {

using test::ktune;
using test::quote;

std::string example(const std::string& name) {
  return quote((test::user_examples_dir() / name / (name + ".json")).string());
}

class UserKernelCli : public ::testing::TestWithParam<const char*> {};

TEST_P(UserKernelCli, ExampleSpaceCompilesForH200) {
  auto space = ktune("space --spec " + example(GetParam()));
  ASSERT_EQ(space.code, 0) << space.output;
  EXPECT_NE(space.output.find("valid configurations:"), std::string::npos);
  auto run =
      ktune("tune --spec " + example(GetParam()) + " --compile-only --budget 3 --arch h200 --json");
  ASSERT_EQ(run.code, 0) << run.output;
  const auto report = nlohmann::json::parse(run.output);
  EXPECT_EQ(report.at("failed"), 0);
  EXPECT_EQ(report.at("compiled"), 3);
  for (const auto& c : report.at("configurations"))
    EXPECT_GT(c.at("kernels")[0].at("registers").get<int>(), 0) << c.dump();
}

INSTANTIATE_TEST_SUITE_P(Examples, UserKernelCli,
                         ::testing::Values("transpose", "conv2d", "block_reduce"));

TEST(UserKernelCliErrors, AConfigurationThatFailsToCompileExitsOne) {
  testing::TempDir dir;
  auto d = test::scale_description();
  d["parameters"][1]["values"] = {1, 2, 3};
  const std::string spec = quote(test::write_scale(dir.path(), d));
  auto run = ktune("tune --spec " + spec + " --compile-only --require 'UNROLL == 3' --json");
  ASSERT_EQ(run.code, 1) << run.output;
  const auto report = nlohmann::json::parse(run.output);
  EXPECT_EQ(report.at("failed"), 2);
  EXPECT_NE(report.at("configurations")[0].at("error").get<std::string>().find(
                "UNROLL 3 does not compile"),
            std::string::npos);
  EXPECT_EQ(ktune("tune --spec " + spec + " --compile-only --require 'UNROLL == 1'").code, 0);
}

TEST(UserKernelCliErrors, BadDescriptionsExitTwoNamingTheField) {
  testing::TempDir dir;
  auto d = test::scale_description();
  d["launch"]["grid"] = {"(m + BLOCK - 1) / BLOCK"};
  const std::string spec = quote(test::write_scale(dir.path(), d));
  for (const std::string& command :
       {"space --spec " + spec, "tune --spec " + spec + " --compile-only --budget 1",
        "tune --spec " + spec + " --budget 1"}) {
    auto run = ktune(command);
    EXPECT_EQ(run.code, 2) << command << "\n" << run.output;
    EXPECT_NE(run.output.find("launch.grid[0]"), std::string::npos) << run.output;
  }
  auto both = ktune("space --kernel reduce --spec " + example("transpose"));
  EXPECT_EQ(both.code, 2) << both.output;
  auto problem = ktune("space --spec " + example("transpose") + " --problem rows=8,depth=3");
  EXPECT_EQ(problem.code, 2) << problem.output;
  EXPECT_NE(problem.output.find("depth"), std::string::npos) << problem.output;
}

TEST(UserKernelCliLookup, ANewUserFamilyAnswersWithItsDefault) {
  testing::TempDir dir;  // the user database does not exist yet: the shipped one answers
  auto run = ktune("lookup --spec " + example("transpose") +
                   " --problem rows=64,cols=64 --device sm_90 --db " + quote(dir.file("mine.db")) +
                   " --json");
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("\"config_key\": \"BLOCK_ROWS=8,PAD=true,TILE=32\""), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("\"source\": \"default\""), std::string::npos) << run.output;
  EXPECT_EQ(ktune("lookup --problem rows=64 --device sm_90").code, 2);
}

TEST(UserKernelCliSweep, RunsNameDescriptionsWithSpec) {
  testing::TempDir dir;
  const std::string transpose =
      (test::user_examples_dir() / "transpose" / "transpose.json").string();
  nlohmann::json sweep = {
      {"runs", {{{"spec", transpose}, {"problems", {"rows=64,cols=32"}}, {"budget", 2}}}}};
  std::ofstream(dir.file("sweep.json")) << sweep.dump();
  auto ok = ktune("sweep --dry-run " + quote(dir.file("sweep.json")));
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_NE(ok.output.find("example_transpose"), std::string::npos) << ok.output;

  sweep["runs"][0]["spec"] = dir.file("missing.json");
  std::ofstream(dir.file("bad.json")) << sweep.dump();
  auto bad = ktune("sweep --dry-run " + quote(dir.file("bad.json")));
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_NE(bad.output.find("runs[0].spec"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace ktune
