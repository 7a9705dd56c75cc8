// Tests of the tuning loop's contract with fakes: budget, resume, one
// transaction per batch, patience, time, exhaustion, filtering, warm start.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "engine/tuner.hpp"
#include "tuner_fakes.hpp"

namespace ktune {
namespace {

using testing::cfg;
using testing::ListSearcher;
using testing::MemoryLog;
using testing::ScriptedEvaluator;
using testing::x_of;

std::vector<int> iota_list(int n) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

struct Rig {
  Space space = testing::line_space(20);
  ListSearcher searcher{iota_list(20)};
  ScriptedEvaluator evaluator;
  MemoryLog log;
  double now = 0;

  TuneReport run(TuneOptions options) {
    TuneInputs in = testing::inputs(space, searcher, evaluator, log);
    in.clock = [this] { return now; };
    return Tuner(in, options).run();
  }
};

TEST(TunerLoop, BudgetIsExactAndFailuresCount) {
  Rig rig;
  rig.evaluator.fail_of = [](int x) -> std::optional<Status> {
    if (x % 3 == 0) return Status::compile_error;
    return std::nullopt;
  };
  TuneReport report = rig.run(testing::options(10, 4));
  EXPECT_EQ(report.measured.size(), 10u);
  EXPECT_EQ(report.stop, StopReason::budget);
  EXPECT_EQ(report.failures, 4u);  // x = 0, 3, 6, 9
  ASSERT_EQ(rig.log.batches.size(), 3u);
  EXPECT_EQ(rig.log.batches[0].size(), 4u);
  EXPECT_EQ(rig.log.batches[1].size(), 4u);
  EXPECT_EQ(rig.log.batches[2].size(), 2u);  // never more than the budget left
  ASSERT_TRUE(report.best);
  EXPECT_EQ(x_of(report.best->config), 8);  // fastest ok among 0..9 (9 failed)
}

TEST(TunerLoop, ResumeNeverRemeasuresStoredConfigsAndTheyDoNotCountTowardBudget) {
  Rig rig;
  for (int x = 0; x < 5; ++x) {
    Result r;
    r.config = cfg(x);
    r.status = x == 2 ? Status::launch_error : Status::ok;
    r.time.median_s = 0.5;  // synthetic
    rig.log.preloaded.push_back(r);
  }
  TuneReport report = rig.run(testing::options(5, 2));
  EXPECT_EQ(report.reused.size(), 5u);
  EXPECT_EQ(report.measured.size(), 5u);
  for (int x : rig.evaluator.all_evaluated()) EXPECT_GE(x, 5) << "re-measured stored x=" << x;
  EXPECT_EQ(rig.searcher.observed_count, 10u);  // 5 reused + 5 measured
}

TEST(TunerLoop, NoResumeMeasuresAgain) {
  Rig rig;
  Result r;
  r.config = cfg(0);
  r.status = Status::ok;
  r.time.median_s = 0.5;
  rig.log.preloaded.push_back(r);
  TuneReport report = rig.run([] { auto o = testing::options(3, 3); o.resume = false; return o; }());
  EXPECT_TRUE(report.reused.empty());
  EXPECT_EQ(rig.evaluator.all_evaluated(), (std::vector<int>{0, 1, 2}));
}

TEST(TunerLoop, ACrashLosesOnlyTheBatchInFlightAndTheRerunResumes) {
  Rig rig;
  rig.evaluator.throw_on_call = 3;
  EXPECT_THROW(rig.run(testing::options(12, 4)), std::runtime_error);
  // Two complete batches were stored, each in one transaction; the third is lost.
  ASSERT_EQ(rig.log.batches.size(), 2u);
  EXPECT_EQ(rig.log.batches[0].size(), 4u);
  EXPECT_EQ(rig.log.batches[1].size(), 4u);

  // A fresh run (new searcher, same log) reuses the 8 and measures 4 new ones.
  Rig again;
  again.log = rig.log;
  TuneReport report = again.run(testing::options(4, 4));
  EXPECT_EQ(report.reused.size(), 8u);
  EXPECT_EQ(again.evaluator.all_evaluated(), (std::vector<int>{8, 9, 10, 11}));
  EXPECT_EQ(again.log.stored_count(), 12u);
}

TEST(TunerLoop, PatienceStopsExactlyAfterPEvaluationsWithoutImprovement) {
  Rig rig;
  // Synthetic: x = 0, 1, 2 improve; everything after is slower.
  rig.evaluator.time_of = [](int x) { return x <= 2 ? 10.0 - x : 100.0; };
  TuneReport report = rig.run([] { auto o = testing::options(0, 8); o.patience = 4; return o; }());
  EXPECT_EQ(report.stop, StopReason::patience);
  EXPECT_EQ(report.measured.size(), 7u);  // 3 improving + 4 without improvement
  ASSERT_TRUE(report.best);
  EXPECT_EQ(x_of(report.best->config), 2);
}

TEST(TunerLoop, TimeLimitStopsBeforeTheNextBatch) {
  Rig rig;
  rig.evaluator.clock = &rig.now;
  rig.evaluator.seconds_per_config = 1.0;
  TuneReport report = rig.run([] { auto o = testing::options(0, 2); o.time_limit_s = 5.5; return o; }());
  EXPECT_EQ(report.stop, StopReason::time_limit);
  EXPECT_EQ(report.measured.size(), 6u);  // batches end at t = 2, 4, 6
  EXPECT_DOUBLE_EQ(report.elapsed_s, 6.0);
}

TEST(TunerLoop, StopsWhenTheSearcherIsExhausted) {
  Rig rig;
  rig.space = testing::line_space(20, /*forbidden=*/7);
  TuneReport report = rig.run(testing::options(100, 6));
  EXPECT_EQ(report.stop, StopReason::exhausted);
  // The searcher here ignores the constraint: x = 7 is rejected, never
  // evaluated, stored or counted.
  EXPECT_EQ(report.measured.size(), 19u);
  EXPECT_EQ(report.skipped_invalid, 1u);
  std::vector<int> evaluated = rig.evaluator.all_evaluated();
  EXPECT_EQ(std::count(evaluated.begin(), evaluated.end(), 7), 0);
  EXPECT_EQ(rig.log.stored_count(), 19u);
}

TEST(TunerLoop, InvalidProposalsDoNotConsumeTheBudget) {
  Rig rig;
  rig.space = testing::line_space(20, /*forbidden=*/1);
  TuneReport report = rig.run(testing::options(4, 4));
  EXPECT_EQ(report.measured.size(), 4u);
  EXPECT_EQ(rig.evaluator.all_evaluated(), (std::vector<int>{0, 2, 3, 4}));
}

TEST(TunerLoop, InvalidAnswersOfTheEvaluatorAreNeitherCountedNorStored) {
  Rig rig;
  rig.evaluator.fail_of = [](int x) -> std::optional<Status> {
    if (x == 2 || x == 3) return Status::invalid_config;
    return std::nullopt;
  };
  TuneReport report = rig.run(testing::options(4, 2));
  std::vector<int> measured;
  for (const Result& r : report.measured) measured.push_back(x_of(r.config));
  EXPECT_EQ(measured, (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(report.skipped_invalid, 2u);
  EXPECT_EQ(rig.log.stored_count(), 4u);
  EXPECT_EQ(report.stop, StopReason::budget);
}

TEST(TunerLoop, FiltersProposalsThatWereAlreadyMeasured) {
  Rig rig;
  rig.searcher = ListSearcher({0, 1, 0, 1, 2}, /*repeat_measured=*/true);
  TuneReport report = rig.run(testing::options(10, 2));
  EXPECT_EQ(rig.evaluator.all_evaluated(), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(report.stop, StopReason::exhausted);
}

TEST(TunerLoop, WarmStartGivesRelatedResultsToTheSearcherAsHintsWithoutEvaluatingThem) {
  Rig rig;
  rig.log.warm = {testing::ok_at(15, 2e-3), testing::ok_at(17, 3e-3), testing::ok_at(15, 1e-3)};
  TuneReport report = rig.run([] { auto o = testing::options(4, 4); o.warm_start = true; return o; }());
  EXPECT_EQ(report.warm_started, 2u);  // 15 once (the fastest), 17
  std::vector<int> priors = rig.searcher.priors;
  std::sort(priors.begin(), priors.end());
  EXPECT_EQ(priors, (std::vector<int>{15, 17}));
  // Hints cost no evaluation and are not measurements of this problem.
  EXPECT_EQ(rig.evaluator.all_evaluated(), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(rig.log.batches.size(), 1u);
}

TEST(TunerLoop, WarmStartSkipsPriorsOutsideTheSpaceOrAlreadyMeasured) {
  Rig rig;
  rig.log.preloaded.push_back(testing::ok_at(4, 1e-3));
  rig.log.warm = {testing::ok_at(4, 1e-3), testing::ok_at(99, 1e-3)};  // 99 repairs to 19
  TuneReport report = rig.run([] { auto o = testing::options(1, 1); o.warm_start = true; return o; }());
  EXPECT_EQ(rig.searcher.priors, (std::vector<int>{19}));
  EXPECT_EQ(report.warm_started, 1u);
}

TEST(TunerLoop, WarmStartOffGivesNoHints) {
  Rig rig;
  rig.log.warm = {testing::ok_at(15, 1e-3)};
  TuneReport report = rig.run(testing::options(2, 2));
  EXPECT_EQ(report.warm_started, 0u);
  EXPECT_TRUE(rig.searcher.priors.empty());
}

TEST(TunerLoop, BestIsTheFastestOkResultAcrossStoredAndMeasured) {
  Rig rig;
  Result stored;
  stored.config = cfg(19);
  stored.status = Status::ok;
  stored.time.median_s = 1e-6;  // synthetic: faster than anything measured below
  rig.log.preloaded.push_back(stored);
  TuneReport report = rig.run(testing::options(3, 3));
  ASSERT_TRUE(report.best);
  EXPECT_EQ(x_of(report.best->config), 19);
}

TEST(TunerLoop, RejectsMissingInputsAndZeroBatch) {
  Rig rig;
  TuneInputs in;
  in.space = &rig.space;
  in.searcher = &rig.searcher;
  in.evaluator = &rig.evaluator;
  EXPECT_THROW(Tuner(in, {}), std::invalid_argument);  // no log
  in.log = &rig.log;
  EXPECT_THROW(Tuner(in, testing::options(0, 0)), std::invalid_argument);
}

}  // namespace
}  // namespace ktune
