// Tests of tuning a sub-space (TuneSpec::require, "require" in sweep files):
// expressions narrow the space or fail naming themselves, an exhaustive run
// evaluates exactly the sub-space, and resuming reuses only what lies inside it.
// Also start configurations (TuneSpec::start, "start"): evaluated first,
// within the budget, checked against the (sub-)space.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/sweep.hpp"
#include "engine/tune_job.hpp"
#include "subspace_recording.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string error_restricting(const std::vector<std::string>& expressions) {
  Space s = testing::grid_space();
  try {
    restrict_space(s, expressions);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RestrictSpace, EveryExpressionMustHold) {
  Space s = testing::grid_space();
  ASSERT_EQ(s.count_valid(), testing::kGridValid);
  restrict_space(s, {"a <= 1", "b != 'q'"});
  EXPECT_EQ(s.count_valid(), 2u * 2u * 2u);
  for (const Config& c : s.enumerate()) {
    EXPECT_LE(c.integer("a"), 1);
    EXPECT_NE(c.text("b"), "q");
  }
}

TEST(RestrictSpace, BooleansAreWrittenEitherWay) {
  Space x = testing::grid_space(), y = testing::grid_space();
  restrict_space(x, {"c == false"});
  restrict_space(y, {"!c"});
  EXPECT_EQ(x.count_valid(), testing::kGridValid / 2);
  EXPECT_EQ(y.count_valid(), x.count_valid());
}

TEST(RestrictSpace, NoExpressionLeavesTheSpaceAsItIs) {
  Space s = testing::grid_space();
  restrict_space(s, {});
  EXPECT_EQ(s.constraints().size(), 1u);
  EXPECT_EQ(s.count_valid(), testing::kGridValid);
}

TEST(RestrictSpace, ABadExpressionIsAnInvalidArgumentNamingIt) {
  std::string unknown = error_restricting({"a <= 1", "FOO == 1"});
  EXPECT_NE(unknown.find("bad sub-space expression"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("'FOO == 1'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("unknown name 'FOO'"), std::string::npos) << unknown;

  std::string syntax = error_restricting({"a >="});
  EXPECT_NE(syntax.find("'a >='"), std::string::npos) << syntax;
  EXPECT_NE(syntax.find("column"), std::string::npos) << syntax;

  std::string typo = error_restricting({"b == 'z'"});  // not a value of b
  EXPECT_NE(typo.find("'b == 'z''"), std::string::npos) << typo;
}

TEST(RestrictSpace, AnEmptySubSpaceNamesTheExpressions) {
  std::string empty = error_restricting({"a <= 1", "a >= 4"});
  EXPECT_NE(empty.find("has no valid configuration"), std::string::npos) << empty;
  EXPECT_NE(empty.find("'a <= 1'"), std::string::npos) << empty;
  EXPECT_NE(empty.find("'a >= 4'"), std::string::npos) << empty;
}

class SubSpaceTune : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           (std::string("ktune_subspace_test_") +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    testing::write_grid_recording(dir_ / "grid.json");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  TuneSpec exhaustive(std::vector<std::string> require) const {
    TuneSpec spec;
    spec.replay = (dir_ / "grid.json").string();
    spec.strategy = "exhaustive";
    spec.options.budget = 1000;
    spec.require = std::move(require);
    return spec;
  }

  static std::uint64_t count_of(std::vector<std::string> require) {
    Space s = testing::grid_space();
    restrict_space(s, require);
    return s.count_valid();
  }

  fs::path dir_;
};

TEST_F(SubSpaceTune, ExhaustiveEvaluatesExactlyTheSubSpaceAndResumesInsideIt) {
  Store store = Store::open(":memory:");
  const std::vector<std::string> low = {"a <= 1"}, up_to_3 = {"a <= 3"},
                                 high = {"a >= 4", "c == false"};
  ASSERT_EQ(count_of(low), 12u);
  ASSERT_EQ(count_of(up_to_3), 22u);
  ASSERT_EQ(count_of(high), 6u);

  auto run = [&](const std::vector<std::string>& require) {
    auto job = prepare_tune(exhaustive(require));
    return run_prepared_tune(*job, store, nullptr);
  };
  TuneReport first = run(low);
  EXPECT_EQ(first.stop, StopReason::exhausted);
  EXPECT_EQ(first.measured.size(), count_of(low));
  EXPECT_TRUE(first.reused.empty());
  for (const Result& r : first.measured) EXPECT_LE(r.config.integer("a"), 1) << r.config.key();

  // A wider sub-space reuses what lies inside it and measures the rest.
  TuneReport wider = run(up_to_3);
  EXPECT_EQ(wider.reused.size(), count_of(low));
  EXPECT_EQ(wider.measured.size(), count_of(up_to_3) - count_of(low));

  // A disjoint sub-space reuses nothing: stored results outside it are not part of it.
  TuneReport disjoint = run(high);
  EXPECT_TRUE(disjoint.reused.empty());
  EXPECT_EQ(disjoint.measured.size(), count_of(high));
  ASSERT_TRUE(disjoint.best.has_value());
  EXPECT_GE(disjoint.best->config.integer("a"), 4);  // not the faster stored a = 0

  // The whole space then reuses everything stored and measures the rest.
  TuneReport whole = run({});
  EXPECT_EQ(whole.reused.size(), count_of(up_to_3) + count_of(high));
  EXPECT_EQ(whole.reused.size() + whole.measured.size(), testing::kGridValid);
}

TEST_F(SubSpaceTune, AReplayChecksItsExpressionsBeforeAnythingRuns) {
  EXPECT_NO_THROW(validate_tune_spec(exhaustive({"a <= 1"})));
  EXPECT_THROW(validate_tune_spec(exhaustive({"nope > 1"})), std::invalid_argument);
  EXPECT_THROW(validate_tune_spec(exhaustive({"a > 9"})), std::invalid_argument);
}

std::string sweep_error(const json& j, const fs::path& base) {
  try {
    parse_sweep(j, base, "sweep.json");
  } catch (const SweepError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST_F(SubSpaceTune, SweepEntriesCarryTheirRequireListAndRunTheSubSpace) {
  json j = {{"defaults",
             {{"strategy", "exhaustive"}, {"budget", 1000}, {"require", json::array({"a <= 1"})}}},
            {"runs", json::array({{{"replay", "grid.json"}},
                                  {{"replay", "grid.json"},
                                   {"require", json::array({"a >= 4", "c == false"})}}})}};
  SweepFile file = parse_sweep(j, dir_, "sweep.json");
  ASSERT_EQ(file.items.size(), 2u);
  EXPECT_EQ(file.items[0].spec.require, std::vector<std::string>{"a <= 1"});
  // A run's list replaces the defaults', as every other option does.
  EXPECT_EQ(file.items[1].spec.require, (std::vector<std::string>{"a >= 4", "c == false"}));

  Store store = Store::open(":memory:");
  std::ostringstream out;
  std::vector<SweepOutcome> outcomes = run_sweep(file.items, store, nullptr, out);
  ASSERT_EQ(outcomes.size(), 2u);
  ASSERT_TRUE(outcomes[0].report) << outcomes[0].error;
  ASSERT_TRUE(outcomes[1].report) << outcomes[1].error;
  EXPECT_EQ(outcomes[0].report->measured.size(), count_of({"a <= 1"}));
  EXPECT_EQ(outcomes[1].report->measured.size(), count_of({"a >= 4", "c == false"}));
  EXPECT_TRUE(outcomes[1].report->reused.empty());
}

TEST_F(SubSpaceTune, SweepRejectsABadRequireNamingTheEntry) {
  auto with_require = [](json require) {
    return json{
        {"runs", json::array({{{"replay", "grid.json"}, {"budget", 5}, {"require", require}}})}};
  };
  std::string not_a_list = sweep_error(with_require("a <= 1"), dir_);
  EXPECT_NE(not_a_list.find("runs[0].require"), std::string::npos) << not_a_list;
  EXPECT_NE(not_a_list.find("expected a list of expressions"), std::string::npos) << not_a_list;

  std::string not_text = sweep_error(with_require(json::array({"a <= 1", 3})), dir_);
  EXPECT_NE(not_text.find("runs[0].require[1]"), std::string::npos) << not_text;

  std::string bad_expression = sweep_error(with_require(json::array({"a <= 1", "FOO == 1"})), dir_);
  EXPECT_NE(bad_expression.find("runs[0]"), std::string::npos) << bad_expression;
  EXPECT_NE(bad_expression.find("'FOO == 1'"), std::string::npos) << bad_expression;

  json in_defaults = {{"defaults", {{"require", 7}}},
                      {"runs", json::array({{{"replay", "grid.json"}, {"budget", 5}}})}};
  std::string defaults_error = sweep_error(in_defaults, dir_);
  EXPECT_NE(defaults_error.find("defaults.require"), std::string::npos) << defaults_error;
}

TEST_F(SubSpaceTune, StartConfigurationsGoFirstWithinTheBudget) {
  Store store = Store::open(":memory:");
  TuneSpec spec = exhaustive({});
  spec.strategy = "random";
  spec.options.budget = 3;
  spec.options.batch_size = 2;
  spec.start = {"a=0,b=p,c=false", "a=2,b=q,c=true"};
  auto job = prepare_tune(spec);
  TuneReport report = run_prepared_tune(*job, store, nullptr);
  ASSERT_EQ(report.measured.size(), 3u);
  EXPECT_EQ(report.measured[0].config.key(), "a=0,b=p,c=false");
  EXPECT_EQ(report.measured[1].config.key(), "a=2,b=q,c=true");
  ASSERT_TRUE(report.best.has_value());
  EXPECT_EQ(report.best->config.key(), "a=0,b=p,c=false");  // the grid's fastest

  // Resumed, a start configuration already measured is not measured again.
  spec.options.budget = 1;
  spec.start = {"a=0,b=p,c=false"};
  auto again = prepare_tune(spec);
  TuneReport second = run_prepared_tune(*again, store, nullptr);
  ASSERT_EQ(second.measured.size(), 1u);
  EXPECT_NE(second.measured[0].config.key(), "a=0,b=p,c=false");
}

TEST_F(SubSpaceTune, AStartConfigurationOutsideTheSpaceIsRefusedByName) {
  auto error_for = [&](std::vector<std::string> start, std::vector<std::string> require) {
    TuneSpec spec = exhaustive(std::move(require));
    spec.start = std::move(start);
    try {
      prepare_tune(spec);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  std::string broken = error_for({"a=3,b=r,c=false"}, {});  // the grid's constraint
  EXPECT_NE(broken.find("'a=3,b=r,c=false' is not in this run's space"), std::string::npos) << broken;
  std::string outside = error_for({"a=0,b=p,c=false"}, {"a >= 4"});
  EXPECT_NE(outside.find("'a=0,b=p,c=false'"), std::string::npos) << outside;
  std::string unknown = error_for({"a=0,b=p,c=false,zz=1"}, {});
  EXPECT_NE(unknown.find("zz"), std::string::npos) << unknown;

  std::string not_a_list = sweep_error(
      json{{"runs", json::array({{{"replay", "grid.json"}, {"start", "a=0,b=p,c=false"}}})}}, dir_);
  EXPECT_NE(not_a_list.find("runs[0].start"), std::string::npos) << not_a_list;
  EXPECT_NE(not_a_list.find("expected a list of configuration keys"), std::string::npos) << not_a_list;
}

}  // namespace
}  // namespace ktune
