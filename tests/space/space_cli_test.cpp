// Tests of `ktune space` run as a process (the built bin/ktune; skipped when
// it has not been built): output, samples, JSON, and exit code 2 on bad input.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "space/space.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

struct CliRun {
  int code = -1;
  std::string out;  // stdout and stderr together
};

fs::path ktune_binary() { return fs::path(KTUNE_BINARY_DIR) / "bin" / "ktune"; }

CliRun run(const std::string& args) {
  CliRun r;
  const std::string cmd = "'" + ktune_binary().string() + "' space " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) r.out += buf.data();
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

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
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("first knob"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("small product: A * B <= limit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Cartesian points: 32"), std::string::npos) << r.out;
  // A*B <= 4: (1,1)(1,2)(1,4)(2,1)(2,2)(3,1)(4,1) = 7 with C=x, plus A=1: 3 with C=y.
  EXPECT_NE(r.out.find("valid configurations: 10 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("enumeration"), std::string::npos) << r.out;

  // --problem adds or overrides constants of a file.
  const CliRun tighter = run("--space " + file + " --problem limit=1");
  ASSERT_EQ(tighter.code, 0) << tighter.out;
  EXPECT_NE(tighter.out.find("valid configurations: 2 "), std::string::npos) << tighter.out;
}

TEST_F(SpaceCli, SamplesAreValidJsonLinesAndSeeded) {
  const std::string file = write("s.json", kSpace);
  const CliRun a = run("--space " + file + " --sample 5 --seed 3");
  const CliRun b = run("--space " + file + " --sample 5 --seed 3");
  ASSERT_EQ(a.code, 0) << a.out;
  EXPECT_EQ(a.out, b.out);
  const Space space = Space::from_json(nlohmann::json::parse(kSpace));
  std::istringstream lines(a.out);
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
  ASSERT_EQ(r.code, 0) << r.out;
  const Space back = Space::from_json(nlohmann::json::parse(r.out));
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
    EXPECT_EQ(r.code, 2) << c.json << "\n" << r.out;
    EXPECT_NE(r.out.find(c.expected), std::string::npos) << r.out;
  }
  const CliRun missing = run("--space " + (dir_ / "none.json").string());
  EXPECT_EQ(missing.code, 2) << missing.out;
  const CliRun neither = run("");
  EXPECT_EQ(neither.code, 2) << neither.out;
  const CliRun family = run("--kernel no_such_family --problem m=1");
  EXPECT_EQ(family.code, 2) << family.out;
  EXPECT_NE(family.out.find("unknown kernel family 'no_such_family'"), std::string::npos) << family.out;
  const CliRun problem = run("--space " + write("ok.json", kSpace) + " --problem limit");
  EXPECT_EQ(problem.code, 2) << problem.out;
}

TEST_F(SpaceCli, FamilySpaceWhenGemmIsRegistered) {
  const CliRun r = run("--kernel gemm --problem m=1024,n=1024,k=1024,dtype=fp32 --device h200");
  if (r.out.find("unknown kernel family") != std::string::npos) GTEST_SKIP() << "no gemm family yet";
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("NVIDIA H200"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("valid configurations"), std::string::npos) << r.out;
  const CliRun device = run("--kernel gemm --problem m=1024,n=1024,k=1024,dtype=fp32 --device voodoo");
  EXPECT_EQ(device.code, 2) << device.out;
  EXPECT_NE(device.out.find("unknown device 'voodoo'"), std::string::npos) << device.out;
  const CliRun problem = run("--kernel gemm --problem m=0,n=1,k=1");
  EXPECT_EQ(problem.code, 2) << problem.out;
}

}  // namespace
}  // namespace ktune
