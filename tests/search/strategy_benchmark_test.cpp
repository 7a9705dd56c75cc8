// Tests of the strategy benchmark: the exact random-search baseline, and a
// full run on a small SYNTHETIC recorded space (analytic times, labelled
// synthetic, never a measurement) that must finish in seconds.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "ktune_test_paths.hpp"
#include "search/strategy_benchmark.hpp"

namespace ktune {
namespace {

TEST(ExpectedRandomBest, HandComputedOrderStatistics) {
  const auto e = expected_random_best({3.0, 1.0, 2.0}, 4);
  ASSERT_EQ(e.size(), 4u);
  EXPECT_NEAR(e[0], 2.0, 1e-12);        // mean
  EXPECT_NEAR(e[1], 4.0 / 3.0, 1e-12);  // min over the pairs {1,2},{1,3},{2,3}
  EXPECT_NEAR(e[2], 1.0, 1e-12);
  EXPECT_NEAR(e[3], 1.0, 1e-12);  // beyond the space: the optimum
}

/// SYNTHETIC recording: 2 knobs of 12 values, time = a bowl with its
/// minimum at (9, 3), some compile failures.
std::shared_ptr<const RecordedSpace> synthetic_recording() {
  std::vector<Result> results;
  for (std::int64_t a = 0; a < 12; ++a)
    for (std::int64_t b = 0; b < 12; ++b) {
      Result r;
      r.config = Config{{"a", a}, {"b", b}};
      if ((a + b) % 11 == 5) {
        r.status = Status::compile_error;
      } else {
        r.status = Status::ok;
        r.time.median_s =
            1e-4 * (1.0 + 0.1 * double((a - 9) * (a - 9)) + 0.2 * double((b - 3) * (b - 3)));
      }
      results.push_back(r);
    }
  auto rs = std::make_shared<RecordedSpace>();
  rs->family = "synthetic_bowl";
  rs->source = "synthetic (in-test analytic bowl)";
  rs->provenance["synthetic"] = true;
  rs->space = space_from_recorded(results);
  rs->restricted_to_recorded = true;
  for (auto& r : results) rs->results.emplace(r.config.key(), r);
  return rs;
}

TEST(StrategyBenchmark, RunsOnASyntheticSpaceAndScoresRandomNearZero) {
  StrategyBenchmarkOptions opt;
  opt.strategies = {"random", "evolutionary", "bayes", "exhaustive"};
  opt.budgets = {10, 30, 144};
  opt.repeats = 12;
  opt.seed = 4;
  const auto report = run_strategy_benchmark({synthetic_recording()}, opt);
  ASSERT_EQ(report.spaces.size(), 1u);
  const auto& sb = report.spaces[0];
  EXPECT_TRUE(sb.synthetic);
  EXPECT_EQ(sb.proposable, 144u);
  EXPECT_DOUBLE_EQ(sb.optimum_s, 1e-4);
  ASSERT_EQ(sb.runs.size(), 4u);
  for (const auto& run : sb.runs) {
    ASSERT_EQ(run.budgets.size(), 3u);
    for (const auto& b : run.budgets) {
      EXPECT_GE(b.mean_fraction, 0.0);
      EXPECT_LE(b.mean_fraction, 1.0);
      // Proposal cost: thread CPU time, the longest at least the median.
      EXPECT_GE(b.proposal_cpu_ms_median, 0.0);
      EXPECT_GE(b.proposal_cpu_ms_p99, b.proposal_cpu_ms_median) << run.strategy;
      EXPECT_GE(b.proposal_cpu_ms_max, b.proposal_cpu_ms_p99) << run.strategy;
      EXPECT_GE(b.first_proposal_cpu_ms_max, 0.0);
      // The maximum's place: a repeat that ran, before this budget was spent.
      EXPECT_LT(b.proposal_cpu_ms_max_repeat, opt.repeats);
      EXPECT_LT(b.proposal_cpu_ms_max_evaluations, b.budget);
    }
    // A larger budget's proposals include the smaller's: never a smaller maximum.
    EXPECT_GE(run.budgets.back().proposal_cpu_ms_max, run.budgets.front().proposal_cpu_ms_max);
    // The whole space fits in the largest budget: every strategy ends at the optimum.
    EXPECT_DOUBLE_EQ(run.budgets.back().mean_fraction, 1.0) << run.strategy;
    EXPECT_EQ(run.reach.size(), 3u);
    EXPECT_EQ(run.reach.back().reached, opt.repeats) << run.strategy;
  }
  // Random search against its own exact expectation: a score near 0.
  EXPECT_LT(std::abs(sb.runs[0].budgets[1].score), 0.35);
  EXPECT_NEAR(sb.runs[0].budgets[1].mean_fraction, sb.random_fraction_curve[29], 0.12);
  // On a smooth bowl, model-based search beats random at 30 evaluations.
  EXPECT_GT(sb.runs[2].budgets[1].mean_fraction, sb.runs[0].budgets[1].mean_fraction);

  const auto j = to_json(report);
  EXPECT_EQ(j["spaces"][0]["strategies"].size(), 4u);
  // The per-seed fractions travel in the JSON, so separate runs pair up.
  const auto& first_budget = j["spaces"][0]["strategies"][0]["budgets"][0];
  EXPECT_EQ(first_budget["fractions"].get<std::vector<double>>(), sb.runs[0].budgets[0].fractions);
  EXPECT_EQ(first_budget["fractions"].size(), opt.repeats);
  EXPECT_TRUE(first_budget.contains("proposal_cpu_ms_median"));
  EXPECT_TRUE(first_budget.contains("proposal_cpu_ms_max"));
  EXPECT_TRUE(first_budget.contains("proposal_cpu_ms_p99"));
  EXPECT_TRUE(first_budget.contains("proposal_cpu_ms_max_repeat"));
  EXPECT_TRUE(first_budget.contains("first_proposal_cpu_ms_max"));
  const std::string svg = render_svg(report);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("SYNTHETIC"), std::string::npos);
  const std::string table = format_table(report);
  EXPECT_NE(table.find("evolutionary"), std::string::npos);
}

TEST(StrategyBenchmark, ResultsDoNotDependOnParallelism) {
  StrategyBenchmarkOptions opt;
  opt.strategies = {"evolutionary"};
  opt.budgets = {20};
  opt.repeats = 4;
  opt.parallel = true;
  const auto a = run_strategy_benchmark({synthetic_recording()}, opt);
  opt.parallel = false;
  const auto b = run_strategy_benchmark({synthetic_recording()}, opt);
  EXPECT_EQ(a.spaces[0].runs[0].mean_fraction_curve, b.spaces[0].runs[0].mean_fraction_curve);
}

TEST(PairedComparison, HandComputedDifferencesAndVerdicts) {
  // Differences 0.1, 0.2, 0.3: mean 0.2, sd 0.1, se 0.1 / sqrt(3).
  const auto c = compare_paired({0.9, 0.8, 0.7}, {0.8, 0.6, 0.4});
  EXPECT_NEAR(c.mean_difference, 0.2, 1e-12);
  EXPECT_NEAR(c.stderr_difference, 0.1 / std::sqrt(3.0), 1e-12);
  EXPECT_EQ(c.verdict(), 1);
  // A small mean difference with a large spread is no win.
  const auto tie = compare_paired({0.9, 0.5, 0.9, 0.5}, {0.5, 0.9, 0.5, 0.88});
  EXPECT_NEAR(tie.mean_difference, 0.005, 1e-12);
  EXPECT_EQ(tie.verdict(), 0);
  EXPECT_EQ(compare_paired({0.1, 0.2}, {0.5, 0.7}).verdict(), -1);
  EXPECT_THROW(compare_paired({0.1}, {0.1, 0.2}), std::invalid_argument);
}

TEST(StrategyBenchmark, ReportsStandardErrorsAndEveryPairOverSeeds) {
  StrategyBenchmarkOptions opt;
  opt.strategies = {"random", "evolutionary", "bayes"};
  opt.budgets = {10, 30};
  opt.repeats = 8;
  const auto report = run_strategy_benchmark({synthetic_recording()}, opt);
  const auto& sb = report.spaces[0];
  for (const auto& run : sb.runs)
    for (const auto& b : run.budgets) {
      ASSERT_EQ(b.fractions.size(), opt.repeats);
      EXPECT_NEAR(b.stderr_fraction, b.stddev_fraction / std::sqrt(8.0), 1e-12);
    }
  ASSERT_EQ(sb.comparisons.size(), 3u * 2u);  // 3 pairs at 2 budgets
  const auto& c = sb.comparisons[3];          // random - bayes at 30
  EXPECT_EQ(c.a, "random");
  EXPECT_EQ(c.b, "bayes");
  EXPECT_EQ(c.budget, 30u);
  EXPECT_NEAR(c.mean_difference,
              sb.runs[0].budgets[1].mean_fraction - sb.runs[2].budgets[1].mean_fraction, 1e-12);
  const std::string table = format_table(report);
  EXPECT_NE(table.find("paired over seeds"), std::string::npos);
  EXPECT_NE(table.find("random - bayes"), std::string::npos);
  EXPECT_TRUE(to_json(report)["spaces"][0].contains("paired_comparisons"));
}

TEST(ExpectedFirstHit, HandComputed) {
  EXPECT_DOUBLE_EQ(expected_first_hit(200, 1), 100.5);  // uniform position of one item
  EXPECT_DOUBLE_EQ(expected_first_hit(200, 2), 67.0);
  EXPECT_DOUBLE_EQ(expected_first_hit(3, 3), 1.0);
  EXPECT_DOUBLE_EQ(expected_first_hit(3, 0), 0.0);
}

// MEASURED data (not synthetic): the H200 recording of 4096x4096x512 bf16
// GEMM (200 configurations). Without a cost model (this suite does not link
// the kernel families), bayes and evolutionary must still beat random search:
// a small run kept for CI (6 repeats, 60 evaluations).
TEST(StrategyBenchmark, BeatsRandomSearchOnARecordedH200Space) {
  const auto path = std::filesystem::path(KTUNE_TEST_DATA_DIR) / ".." / ".." / "tuning_db" /
                    "recorded" / "gemm_bf16_nt_4096x4096x512_h200.json";
  auto rec = std::make_shared<const RecordedSpace>(read_recorded_space(path));
  StrategyBenchmarkOptions opt;
  opt.strategies = {"random", "evolutionary", "bayes"};
  opt.budgets = {30, 60};
  opt.repeats = 6;
  opt.seed = 2;
  const auto report = run_strategy_benchmark({rec}, opt);
  const auto& sb = report.spaces[0];
  ASSERT_EQ(sb.proposable, 200u);
  ASSERT_EQ(sb.random_reach.size(), 3u);
  EXPECT_DOUBLE_EQ(sb.random_reach[1].mean_evaluations, 67.0);  // 2 configurations within 95%
  const double random_at_60 = sb.random_fraction_curve[59];
  for (std::size_t i : {1u, 2u}) {
    const auto& run = sb.runs[i];
    EXPECT_GT(run.budgets[1].mean_fraction, random_at_60) << run.strategy;
    EXPECT_GT(run.budgets[1].score, 0.1) << run.strategy;
  }
}

TEST(StrategyBenchmark, RejectsUnknownStrategiesAndEmptyBudgets) {
  StrategyBenchmarkOptions opt;
  opt.strategies = {"annealing"};
  EXPECT_THROW(run_strategy_benchmark({synthetic_recording()}, opt), std::invalid_argument);
  opt.strategies = {"random"};
  opt.budgets = {};
  EXPECT_THROW(run_strategy_benchmark({synthetic_recording()}, opt), std::invalid_argument);
}

}  // namespace
}  // namespace ktune
