// CLI tests of sub-spaces: `ktune tune --require` with an exhaustive strategy
// evaluates exactly the count `ktune space --require` reports, bad or
// contradictory expressions are usage errors naming them, and the gemm
// example of docs/tuning.md compiles against the gemm space.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "engine/tune_job.hpp"
#include "kernels_templated/family.hpp"
#include "space/device_spec.hpp"
#include "tests/db/db_test_support.hpp"
#include "tests/engine/subspace_recording.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using test::ktune;
using test::quote;

/// The number after `label` in `output`, or -1.
long long number_after(const std::string& output, const std::string& label) {
  std::smatch m;
  if (!std::regex_search(output, m, std::regex(label + " ?([0-9]+)"))) return -1;
  return std::stoll(m[1].str());
}
long long valid_count(const std::string& space_output) {
  return number_after(space_output, "valid configurations:");
}
long long evaluated_count(const std::string& tune_output) {
  return number_after(tune_output, "Stopped: search space exhausted\\.");
}

class SubSpaceCli : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = (dir_ / "tune.db").string();
    testing::write_grid_recording(dir_ / "grid.json", dir_ / "grid_space.json");
  }
  std::string tune(const std::string& extra) const {
    return "tune --replay " + quote((dir_ / "grid.json").string()) + " --db " + quote(db_) +
           " --strategy exhaustive --budget 1000 " + extra;
  }
  std::string space(const std::string& extra) const {
    return "space --space " + quote((dir_ / "grid_space.json").string()) + " " + extra;
  }

  testing::TempDir temp_;  // removed with its files after each test
  fs::path dir_ = temp_.path();
  std::string db_;
};

TEST_F(SubSpaceCli, ExhaustiveTuneEvaluatesExactlyWhatSpaceCounts) {
  const std::string require =
      "--require " + quote("a <= 3 && b != 'p'") + " --require " + quote("!c");
  auto whole = ktune(space(""));
  ASSERT_EQ(whole.code, 0) << whole.output;
  ASSERT_EQ(valid_count(whole.output), static_cast<long long>(testing::kGridValid)) << whole.output;

  auto shown = ktune(space(require));
  ASSERT_EQ(shown.code, 0) << shown.output;
  const long long expected = valid_count(shown.output);
  EXPECT_EQ(expected, 7) << shown.output;  // a in 0..3, b in {q, r}, c false, less (3, r)
  EXPECT_NE(shown.output.find("sub-space"), std::string::npos) << shown.output;

  auto tuned = ktune(tune(require));
  ASSERT_EQ(tuned.code, 0) << tuned.output;
  EXPECT_EQ(evaluated_count(tuned.output), expected) << tuned.output;
  EXPECT_NE(tuned.output.find("sub-space: (a <= 3 && b != 'p') && (!c)"), std::string::npos)
      << tuned.output;

  // Rerunning resumes: nothing left to measure inside the sub-space.
  auto again = ktune(tune(require));
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_EQ(evaluated_count(again.output), 0) << again.output;
  EXPECT_NE(again.output.find(std::to_string(expected) + " stored results reused"),
            std::string::npos)
      << again.output;
}

TEST_F(SubSpaceCli, ABadExpressionIsAUsageErrorNamingItAndTheDatabaseIsNotCreated) {
  auto unknown = ktune(tune("--require " + quote("FOO == 1")));
  EXPECT_EQ(unknown.code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("'FOO == 1'"), std::string::npos) << unknown.output;
  EXPECT_NE(unknown.output.find("unknown name"), std::string::npos) << unknown.output;
  EXPECT_FALSE(fs::exists(db_));

  auto syntax = ktune(tune("--require " + quote("a >=")));
  EXPECT_EQ(syntax.code, 2) << syntax.output;
  EXPECT_NE(syntax.output.find("column"), std::string::npos) << syntax.output;

  auto in_space = ktune(space("--require " + quote("FOO == 1")));
  EXPECT_EQ(in_space.code, 2) << in_space.output;
  EXPECT_NE(in_space.output.find("'FOO == 1'"), std::string::npos) << in_space.output;
  EXPECT_FALSE(fs::exists(db_));
}

TEST_F(SubSpaceCli, AnEmptySubSpaceIsAUsageErrorNamingTheExpressions) {
  auto empty = ktune(tune("--require " + quote("a <= 1") + " --require " + quote("a >= 4")));
  EXPECT_EQ(empty.code, 2) << empty.output;
  EXPECT_NE(empty.output.find("has no valid configuration"), std::string::npos) << empty.output;
  EXPECT_NE(empty.output.find("'a >= 4'"), std::string::npos) << empty.output;
  EXPECT_FALSE(fs::exists(db_));
}

// The example of docs/tuning.md, "Tuning a sub-space".
TEST(SubSpaceCliGemm, TheReadmeExampleNarrowsTheGemmSpace) {
  const std::string problem = "m=4096,n=4096,k=4096,dtype=bf16,layout=nt,path=mma";
  const std::string expression = "VEC == 8 && SMEM == 'xor' && GROUP_M == 8 && PREDICATED == false";
  const std::string base = "space --kernel gemm --device sm_90 --problem " + quote(problem);
  auto whole = ktune(base);
  ASSERT_EQ(whole.code, 0) << whole.output;
  auto sub = ktune(base + " --require " + quote(expression));
  ASSERT_EQ(sub.code, 0) << sub.output;
  const long long sub_count = valid_count(sub.output);
  EXPECT_GT(sub_count, 0) << sub.output;
  EXPECT_LT(sub_count, valid_count(whole.output)) << whole.output;

  // The same count as the family's space restricted in-process.
  const KernelFamily& gemm = find_family("gemm");
  Space space = gemm.space(parse_problem(gemm, problem), *find_builtin_device("sm_90"));
  restrict_space(space, {expression});
  EXPECT_EQ(static_cast<std::uint64_t>(sub_count), space.count_valid());
}

}  // namespace
}  // namespace ktune
