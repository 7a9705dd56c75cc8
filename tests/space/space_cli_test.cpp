// Tests of `ktune space` run as a process (the built bin/ktune; skipped when
// it has not been built): output, samples, JSON, and exit code 2 on bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "space/space.hpp"
#include "tests/ktune_process.hpp"
#include "ktune_test_paths.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

using CliRun = test::ProcessRun;

fs::path ktune_binary() { return test::ktune_path(); }

CliRun run(const std::string& args) { return test::ktune("space " + args); }

class SpaceCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(ktune_binary()))
      GTEST_SKIP() << "bin/ktune is not built in " << KTUNE_BINARY_DIR << " (build the ktune target)";
    dir_ = fs::temp_directory_path() / ("ktune_space_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  fs::path dir_;
};

// A synthetic space: 4 x 4 x 2 = 32 points, 8 valid.
constexpr const char* kSpace = R"js({
  "constants": {"limit": 4},
  "parameters": [
    {"name": "A", "kind": "int_range", "min": 1, "max": 4, "default": 1, "description": "first knob"},
    {"name": "B", "kind": "pow2_range", "min": 1, "max": 8, "default": 1},
    {"name": "C", "kind": "categorical", "values": ["x", "y"], "default": "x"}
  ],
  "constraints": [{"description": "small product", "expression": "A * B <= limit && (C == 'x' || A == 1)"}]
})js";

TEST_F(SpaceCli, PrintsParametersConstraintsAndCounts) {
  const std::string file = write("s.json", kSpace);
  const CliRun r = run("--space " + file);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("first knob"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("small product: A * B <= limit"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Cartesian points: 32"), std::string::npos) << r.output;
  // A*B <= 4: (1,1)(1,2)(1,4)(2,1)(2,2)(3,1)(4,1) = 7 with C=x, plus A=1: 3 with C=y.
  EXPECT_NE(r.output.find("valid configurations: 10 "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("enumeration"), std::string::npos) << r.output;

  // --problem adds or overrides constants of a file.
  const CliRun tighter = run("--space " + file + " --problem limit=1");
  ASSERT_EQ(tighter.code, 0) << tighter.output;
  EXPECT_NE(tighter.output.find("valid configurations: 2 "), std::string::npos) << tighter.output;
}

TEST_F(SpaceCli, SamplesAreValidJsonLinesAndSeeded) {
  const std::string file = write("s.json", kSpace);
  const CliRun a = run("--space " + file + " --sample 5 --seed 3");
  const CliRun b = run("--space " + file + " --sample 5 --seed 3");
  ASSERT_EQ(a.code, 0) << a.output;
  EXPECT_EQ(a.output, b.output);
  const Space space = Space::from_json(nlohmann::json::parse(kSpace));
  std::istringstream lines(a.output);
  std::string line;
  std::set<std::string> keys;
  while (std::getline(lines, line)) {
    const Config c = ValueMap::from_json(nlohmann::json::parse(line));
    EXPECT_TRUE(space.is_valid(c)) << line;
    keys.insert(c.key());
  }
  EXPECT_EQ(keys.size(), 5u);
}

TEST_F(SpaceCli, JsonRoundTrips) {
  const std::string file = write("s.json", kSpace);
  const CliRun r = run("--space " + file + " --json");
  ASSERT_EQ(r.code, 0) << r.output;
  const Space back = Space::from_json(nlohmann::json::parse(r.output));
  EXPECT_EQ(back.count_valid(), 10u);
}

TEST_F(SpaceCli, BadInputExitsWithTwoAndNamesTheProblem) {
  struct Case {
    std::string json;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {R"js({"parameters": []})js", "no parameter"},
      {R"js({"parameters": [{"name": "A", "kind": "int_range", "min": 1, "max": 4}],
           "constraints": ["A > 4"]})js",
       "contradictory constraints"},
      {R"js({"parameters": [{"name": "A", "kind": "int_range", "min": 1, "max": 4}],
           "constraints": ["A > WARP"]})js",
       "unknown name 'WARP'"},
      {R"js({"parameters": [{"name": "STAGES", "kind": "int_range", "min": 1, "max": 4, "default": 9}]})js",
       "parameter 'STAGES': default 9"},
      {R"js({"parameters": [{"name": "A", "kind": "int_range", "min": 1, "max": 4}],
           "constraints": ["(A > 1"]})js",
       "column 7: expected ')'"},
  };
  int k = 0;
  for (const auto& c : cases) {
    const CliRun r = run("--space " + write("bad" + std::to_string(k++) + ".json", c.json));
    EXPECT_EQ(r.code, 2) << c.json << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << r.output;
  }
  const CliRun missing = run("--space " + (dir_ / "none.json").string());
  EXPECT_EQ(missing.code, 2) << missing.output;
  const CliRun neither = run("");
  EXPECT_EQ(neither.code, 2) << neither.output;
  const CliRun family = run("--kernel no_such_family --problem m=1");
  EXPECT_EQ(family.code, 2) << family.output;
  EXPECT_NE(family.output.find("unknown kernel family 'no_such_family'"), std::string::npos) << family.output;
  const CliRun problem = run("--space " + write("ok.json", kSpace) + " --problem limit");
  EXPECT_EQ(problem.code, 2) << problem.output;
}

TEST_F(SpaceCli, FamilySpaceWhenGemmIsRegistered) {
  const CliRun r = run("--kernel gemm --problem m=1024,n=1024,k=1024,dtype=fp32 --device h200");
  if (r.output.find("unknown kernel family") != std::string::npos) GTEST_SKIP() << "no gemm family yet";
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("NVIDIA H200"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("valid configurations"), std::string::npos) << r.output;
  const CliRun device = run("--kernel gemm --problem m=1024,n=1024,k=1024,dtype=fp32 --device voodoo");
  EXPECT_EQ(device.code, 2) << device.output;
  EXPECT_NE(device.output.find("unknown device 'voodoo'"), std::string::npos) << device.output;
  const CliRun problem = run("--kernel gemm --problem m=0,n=1,k=1");
  EXPECT_EQ(problem.code, 2) << problem.output;
}

}  // namespace
}  // namespace ktune
