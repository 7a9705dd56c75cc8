// Tests of the kernel splitter on SYNTHETIC tuning data (made-up times, not
// measurements): grouping, the general fallback, adoption rules, the
// geometric-mean speedup and the generated dispatch header.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "emit/splitter.hpp"
#include "kernels_templated/rowwise/launch_plan.hpp"

using namespace ktune;

namespace {

Config cfg(const std::string& name) { return Config{{"variant", std::string(name)}}; }

Result timed(const std::string& name, double seconds, Status status = Status::ok) {
  Result r;
  r.config = cfg(name);
  r.status = status;
  r.time.median_s = seconds;
  return r;
}

ShapeTuning shape(const std::string& problem, std::vector<Result> results) {
  return ShapeTuning{Problem::parse(problem), std::move(results)};
}

// SYNTHETIC: two groups (short bf16 rows, long bf16 rows). "wide" is best on
// long rows, "narrow" on short rows, "middle" is decent everywhere.
std::vector<ShapeTuning> synthetic_set() {
  return {
      shape("rows=8192,cols=1024,dtype=bf16", {timed("narrow", 1.0), timed("middle", 1.5), timed("wide", 3.0)}),
      shape("rows=4096,cols=2048,dtype=bf16", {timed("narrow", 2.0), timed("middle", 2.5), timed("wide", 4.0)}),
      shape("rows=64,cols=131072,dtype=bf16", {timed("narrow", 8.0), timed("middle", 3.0), timed("wide", 1.0)}),
      shape("rows=32,cols=262128,dtype=bf16", {timed("narrow", 9.0), timed("middle", 4.0), timed("wide", 2.0)}),
  };
}

}  // namespace

// The generated header's group_key is C++ text beside the compiled one: both
// are built from the same tables, and compiled here they must agree on every
// class boundary, alignment and element type.
TEST(Splitter, GeneratedGroupKeyMatchesTheCompiledOne) {
  const Grouping g = rowwise_grouping();
  std::vector<Problem> problems;
  const long long lengths[] = {1,     2,     3,      8,      17,     255,    256,
                               257,   4095,  4096,   4097,   4098,   32767,  32768,
                               32769, 32776, 262143, 262144, 262145, 262160, 1000000};
  for (const rowwise::Dtype& t : rowwise::kDtypes)
    for (long long cols : lengths) {
      problems.push_back(
          Problem::parse("rows=3,cols=" + std::to_string(cols) + ",dtype=" + t.name));
      problems.push_back(Problem::parse("rows=" + std::to_string(cols) +
                                        ",cols=" + std::to_string(cols % 13 + 1) +
                                        ",dtype=" + t.name + ",axis=rows"));
    }
  const auto dir =
      std::filesystem::temp_directory_path() / ("ktune_group_key_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "main.cpp")
      << "#include <iostream>\n#include <string>\n#include <string_view>\n"
      << g.cpp_key_function << "\n"
      << "int main() {\n  std::string dtype, axis;\n  long long rows, cols;\n"
         "  while (std::cin >> dtype >> axis >> rows >> cols)\n"
         "    std::cout << group_key(dtype, axis, rows, cols) << '\\n';\n}\n";
  {
    std::ofstream in(dir / "problems.txt");
    for (const Problem& p : problems)
      in << p.text("dtype") << " " << p.text_or("axis", "last") << " " << p.integer("rows") << " "
         << p.integer("cols") << "\n";
  }
  const char* cxx = std::getenv("CXX");
  const std::string compile = std::string(cxx && *cxx ? cxx : "c++") + " -std=c++17 -o " +
                              (dir / "group_key").string() + " " + (dir / "main.cpp").string() +
                              " 2> " + (dir / "compile.log").string();
  ASSERT_EQ(std::system(compile.c_str()), 0) << g.cpp_key_function;
  const std::string run = (dir / "group_key").string() + " < " + (dir / "problems.txt").string() +
                          " > " + (dir / "keys.txt").string();
  ASSERT_EQ(std::system(run.c_str()), 0);
  std::ifstream keys(dir / "keys.txt");
  for (const Problem& p : problems) {
    std::string key;
    ASSERT_TRUE(keys >> key) << p.key();
    EXPECT_EQ(key, g.key(p)) << p.key();
  }
  std::filesystem::remove_all(dir);
}

TEST(Splitter, RowwiseGroupKeys) {
  Grouping g = rowwise_grouping();
  EXPECT_EQ(g.key(Problem::parse("rows=8,cols=1024,dtype=bf16")), "bf16.last.a16.short");
  EXPECT_EQ(g.key(Problem::parse("rows=8,cols=17,dtype=fp32")), "fp32.last.a4.tiny");
  EXPECT_EQ(g.key(Problem::parse("rows=8,cols=262100,dtype=bf16")), "bf16.last.a8.long");
  EXPECT_EQ(g.key(Problem::parse("rows=100000,cols=30,dtype=fp16,axis=rows")), "fp16.rows.a4.long");
}

TEST(Splitter, ChoosesGeneralAndAdoptsFasterSpecializations) {
  const auto set = synthetic_set();
  Dispatch d = split_kernels("softmax", set, rowwise_grouping());
  // Geometric means over all four: narrow (1*2*8*9)^.25=3.46, middle (1.5*2.5*3*4)^.25=2.58, wide 2.21.
  EXPECT_EQ(d.general, cfg("wide"));
  ASSERT_EQ(d.routes.size(), 1u);  // the long group's best is the general one
  EXPECT_EQ(d.routes[0].group, "bf16.last.a16.short");
  EXPECT_EQ(d.routes[0].config, cfg("narrow"));
  EXPECT_NEAR(d.routes[0].speedup, std::sqrt(3.0 * 2.0), 1e-12);
  EXPECT_DOUBLE_EQ(d.routes[0].agreement, 1.0);
  ASSERT_EQ(d.rejected.size(), 1u);
  EXPECT_EQ(d.rejected[0].group, "bf16.last.a16.long");  // 131072 and 262128 elements
  // Dispatch times 1, 2, 1, 2 against general 3, 4, 1, 2.
  EXPECT_NEAR(d.geomean_speedup, std::pow(3.0 * 2.0, 0.25), 1e-12);
  EXPECT_EQ(d.select(Problem::parse("rows=5,cols=1000,dtype=bf16")), cfg("narrow"));
  EXPECT_EQ(d.select(Problem::parse("rows=5,cols=7,dtype=fp32")), cfg("wide"));  // unseen group: fallback
}

TEST(Splitter, UnverifiedConfigurationsAreNeverChosen) {
  auto set = synthetic_set();
  // SYNTHETIC: "narrow" fails verification on one short shape: it may not
  // specialize that group even though it is fastest elsewhere in it.
  set[1].results[0] = timed("narrow", 0.5, Status::wrong_result);
  Dispatch d = split_kernels("softmax", set, rowwise_grouping());
  ASSERT_EQ(d.routes.size(), 1u);
  EXPECT_EQ(d.routes[0].config, cfg("middle"));
  EXPECT_NEAR(d.routes[0].speedup, std::sqrt((3.0 / 1.5) * (4.0 / 2.5)), 1e-12);
}

TEST(Splitter, GeneralMustRunEverywhere) {
  // SYNTHETIC: "fast" is only measured on one shape, so it cannot be the fallback.
  std::vector<ShapeTuning> set = {
      shape("rows=8,cols=1024,dtype=bf16", {timed("fast", 0.1), timed("safe", 1.0)}),
      shape("rows=8,cols=4096,dtype=bf16", {timed("safe", 1.0)}),
  };
  Dispatch d = split_kernels("reduce", set, rowwise_grouping());
  EXPECT_EQ(d.general, cfg("safe"));
  ASSERT_EQ(d.routes.size(), 1u);
  EXPECT_EQ(d.routes[0].config, cfg("fast"));
  EXPECT_NEAR(d.geomean_speedup, std::sqrt(10.0), 1e-12);

  std::vector<ShapeTuning> disjoint = {
      shape("rows=8,cols=1024,dtype=bf16", {timed("a", 1.0)}),
      shape("rows=8,cols=4096,dtype=bf16", {timed("b", 1.0), timed("a", 1.0, Status::launch_error)}),
  };
  EXPECT_THROW(split_kernels("reduce", disjoint, rowwise_grouping()), std::invalid_argument);
  EXPECT_THROW(split_kernels("reduce", std::vector<ShapeTuning>{}, rowwise_grouping()), std::invalid_argument);
}

TEST(Splitter, SingleConfigurationGivesNoRoutesAndUnitSpeedup) {
  std::vector<ShapeTuning> set = {
      shape("rows=8,cols=1024,dtype=bf16", {timed("only", 1.0)}),
      shape("rows=8,cols=100000,dtype=fp16", {timed("only", 2.0)}),
  };
  Dispatch d = split_kernels("rmsnorm", set, rowwise_grouping());
  EXPECT_TRUE(d.routes.empty());
  EXPECT_DOUBLE_EQ(d.geomean_speedup, 1.0);
  EXPECT_EQ(d.rejected.size(), 2u);
}

TEST(Splitter, HeaderAndJsonCarryTheRoutes) {
  Dispatch d = split_kernels("softmax", synthetic_set(), rowwise_grouping());
  const std::string h = d.header_text();
  EXPECT_NE(h.find("namespace ktune_dispatch_softmax"), std::string::npos);
  EXPECT_NE(h.find("inline constexpr const char* kGeneral = \"variant=wide\";"), std::string::npos);
  EXPECT_NE(h.find("{\"bf16.last.a16.short\", \"variant=narrow\"}"), std::string::npos);
  EXPECT_NE(h.find("inline std::string group_key("), std::string::npos);
  EXPECT_NE(h.find("inline const char* select("), std::string::npos);
  nlohmann::json j = d.to_json();
  EXPECT_EQ(j["routes"].size(), 1u);
  EXPECT_EQ(j["routes"][0]["shapes"].size(), 2u);
  EXPECT_EQ(j["general"]["variant"], "wide");
  EXPECT_NEAR(j["geomean_speedup"].get<double>(), std::pow(6.0, 0.25), 1e-12);
}
