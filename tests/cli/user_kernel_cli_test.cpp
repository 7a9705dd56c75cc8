// CLI tests of user kernels: `ktune space/tune --spec`, --compile-only of
// every example in examples/user_kernels (the CI check of their spaces), a
// configuration that fails to compile (exit 1), bad descriptions and
// descriptions that disagree with their source (exit 2, one line naming the
// field), dynamic shared memory, lookup's defaults and sweep runs with "spec".
#include <gtest/gtest.h>

#include <algorithm>
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

// The table's dyn smem column and the JSON's dynamic_smem_bytes are the
// description's launch.shared_memory for each configuration.
TEST(UserKernelCliSmem, DynamicSharedMemoryIsReportedBesideStatic) {
  auto run = ktune("tune --spec " + example("conv2d") +
                   " --compile-only --budget 4 --arch h200 --seed 3 --json");
  ASSERT_EQ(run.code, 0) << run.output;
  for (const auto& c : nlohmann::json::parse(run.output).at("configurations")) {
    const auto& k = c.at("config");
    auto v = [&k](const char* name) { return k.at(name).get<std::int64_t>(); };
    const std::int64_t expected = v("USE_SMEM") * (v("BLOCK_Y") * v("TILE_Y") + 7 - 1) *
                                  (v("BLOCK_X") * v("TILE_X") + 7 - 1) * 4;
    EXPECT_EQ(c.at("dynamic_smem_bytes").get<std::int64_t>(), expected) << c.dump();
  }
  auto table = ktune("tune --spec " + example("conv2d") + " --compile-only --budget 1 --arch h200");
  ASSERT_EQ(table.code, 0) << table.output;
  EXPECT_NE(table.output.find("dyn smem B"), std::string::npos) << table.output;
  auto builtin = ktune(
      "tune --kernel reduce --problem rows=256,cols=1024,dtype=fp32 --compile-only --budget 1 "
      "--json");
  ASSERT_EQ(builtin.code, 0) << builtin.output;
  EXPECT_FALSE(
      nlohmann::json::parse(builtin.output).at("configurations")[0].contains("dynamic_smem_bytes"));
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

// A description that disagrees with its source: exit 2 with one line naming
// the field, before any configuration compiles, the database untouched.
TEST(UserKernelCliErrors, MismatchesWithTheSourceExitTwoInOneLine) {
  testing::TempDir dir;
  const std::string db = dir.file("tuned.db");
  auto replay =
      ktune("tune --replay " +
            quote(std::string(KTUNE_TEST_DATA_DIR) + "/recorded/synthetic_gemm_like.json") +
            " --strategy random --seed 1 --budget 4 --db " + quote(db));
  ASSERT_EQ(replay.code, 0) << replay.output;
  const std::string stored = testing::read_bytes(db);

  const std::string two_template_parameters =
      std::string(test::kScaleSource)
          .replace(std::string(test::kScaleSource).find("template <int BLOCK>"),
                   std::string("template <int BLOCK>").size(), "template <int BLOCK, int VEC>");
  struct Case {
    std::string field;
    nlohmann::json description;
    std::string source = test::kScaleSource;
  };
  std::vector<Case> cases;
  cases.push_back({"kernel: scale.cu declares no 'scal'", test::scale_description()});
  cases.back().description["kernel"] = "scal";
  cases.push_back({"verification.reference_kernel.name: scale.cu declares no 'scale_naive'",
                   test::scale_description()});
  cases.back().description["verification"] = {{"reference_kernel", {{"name", "scale_naive"}}}};
  cases.push_back({"kernel: 'scale<64>'", test::scale_description(), two_template_parameters});
  cases.push_back({"parameters[2]: 'UNUSED'", test::scale_description()});
  cases.back().description["parameters"].push_back(
      {{"name", "UNUSED"}, {"values", {1, 2}}, {"pass", "define"}});
  cases.push_back({"arguments[1]: 'x' is a float64 buffer", test::scale_description()});
  cases.back().description["arguments"][1]["buffer"] = "float64";
  cases.push_back(
      {"arguments: 'scale' (the kernel) takes 4 parameters", test::scale_description()});
  cases.back().description["arguments"].erase(3);

  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string spec = quote(
        test::write_scale(dir.path() / std::to_string(i), cases[i].description, cases[i].source));
    for (const std::string& command :
         {"space --spec " + spec,
          "tune --spec " + spec + " --compile-only --budget 2 --db " + quote(db)}) {
      auto run = ktune(command);
      EXPECT_EQ(run.code, 2) << command << "\n" << run.output;
      EXPECT_NE(run.output.find(cases[i].field), std::string::npos) << run.output;
      EXPECT_EQ(std::count(run.output.begin(), run.output.end(), '\n'), 1) << run.output;
      EXPECT_EQ(run.output.find("Compiling"), std::string::npos) << run.output;
    }
  }
  EXPECT_EQ(testing::read_bytes(db), stored);
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
  auto no_problem = ktune("lookup --kernel reduce --device sm_90");
  EXPECT_EQ(no_problem.code, 2) << no_problem.output;
  EXPECT_NE(no_problem.output.find("needs --problem"), std::string::npos) << no_problem.output;
}

// As `space` and `tune`: the description's sizes, and this machine's GPU or sm_90.
TEST(UserKernelCliLookup, SpecTakesTheDefaultsOfSpaceAndTune) {
  testing::TempDir dir;
  auto run = ktune("lookup --spec " + example("transpose") + " --db " + quote(dir.file("mine.db")) +
                   " --json");
  ASSERT_EQ(run.code, 0) << run.output;
  const std::string json = run.output.substr(run.output.find('{'));
  const auto answer = nlohmann::json::parse(json);
  EXPECT_EQ(answer.at("problem"), (nlohmann::json{{"cols", 4096}, {"rows", 4096}}));
  EXPECT_EQ(answer.at("config_key"), "BLOCK_ROWS=8,PAD=true,TILE=32");
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
