// Tests that a tune starts from what a user gets without tuning (the family's
// default, the lookup's answer), ends no slower than either, and reports the
// best's ratio over them; for `ktune tune` and for every sweep item. Replays
// of a synthetic gemm recording: the times are SYNTHETIC.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "default_recording.hpp"
#include "engine/sweep.hpp"
#include "engine/tune_job.hpp"
#include "engine/untuned.hpp"
#include "space/device_spec.hpp"
#include "tests/db/db_test_support.hpp"

namespace ktune {
namespace {

std::string ratio_text(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", ratio);
  return text;
}

class Untuned : public ::testing::Test {
 protected:
  TuneSpec replay(std::size_t budget, std::vector<std::string> require = {}) const {
    TuneSpec spec;
    spec.replay = recording_.string();
    spec.strategy = "random";
    spec.options.budget = budget;
    spec.require = std::move(require);
    return spec;
  }
  /// The fastest stored ok time of the job's key.
  static double best_stored_s(const Store& store, const PreparedTune& job) {
    double best = 0;
    for (const Result& r : store.results(job.key))
      if (r.ok() && (best == 0 || r.time.median_s < best)) best = r.time.median_s;
    return best;
  }

  testing::TempDir temp_;
  std::filesystem::path recording_ = temp_.path() / "gemm_default.json";
};

TEST_F(Untuned, TheDefaultIsEvaluatedFirstAndTheBestIsNeverSlower) {
  // Every other recorded configuration is slower than the default: a search
  // that did not start from it would end below it.
  const testing::DefaultRecording rec = testing::write_default_recording(recording_, /*faster=*/0);
  std::unique_ptr<PreparedTune> job = prepare_tune(replay(4));
  ASSERT_EQ(job->untuned.size(), 1u);
  EXPECT_EQ(job->untuned[0].name, kTheDefault);
  EXPECT_EQ(job->untuned[0].config, rec.default_config);

  Store store = Store::open(":memory:");
  const TuneReport report = run_prepared_tune(*job, store, nullptr);
  ASSERT_EQ(report.measured.size(), 4u) << "the default counts against the budget";
  EXPECT_EQ(report.measured[0].config, rec.default_config);
  ASSERT_TRUE(report.best);
  EXPECT_EQ(report.best->config, rec.default_config);
  EXPECT_DOUBLE_EQ(best_stored_s(store, *job), testing::kDefaultTimeS);

  const std::vector<UntunedComparison> c = compare_to_untuned(*job, report);
  ASSERT_EQ(c.size(), 1u);
  ASSERT_TRUE(c[0].ratio);
  EXPECT_DOUBLE_EQ(*c[0].ratio, 1.0);
  EXPECT_EQ(describe_untuned(c, Objective::time),
            "best 1.00x the default (" + rec.default_config.key() + ")");
}

TEST_F(Untuned, TheSummaryGivesTheBestsSpeedUpOverTheDefaultMeasuredInTheRun) {
  testing::write_default_recording(recording_, /*faster=*/8);
  std::unique_ptr<PreparedTune> job = prepare_tune(replay(3));
  Store store = Store::open(":memory:");
  const TuneReport report = run_prepared_tune(*job, store, nullptr);
  ASSERT_TRUE(report.best);
  const std::vector<UntunedComparison> c = compare_to_untuned(*job, report);
  ASSERT_EQ(c.size(), 1u);
  ASSERT_TRUE(c[0].result);
  EXPECT_EQ(c[0].result->config, report.measured[0].config);
  const double expected = c[0].result->time.median_s / report.best->time.median_s;
  EXPECT_GT(expected, 1.0);
  ASSERT_TRUE(c[0].ratio);
  EXPECT_DOUBLE_EQ(*c[0].ratio, expected);
  EXPECT_EQ(describe_untuned(c, Objective::time),
            "best " + ratio_text(expected) + " the default (" + job->untuned[0].config.key() + ")");
  EXPECT_LE(best_stored_s(store, *job), testing::kDefaultTimeS);
}

TEST_F(Untuned, AStoredDefaultIsReusedNotMeasuredAgain) {
  testing::write_default_recording(recording_, /*faster=*/0);
  Store store = Store::open(":memory:");
  run_prepared_tune(*prepare_tune(replay(2)), store, nullptr);
  std::unique_ptr<PreparedTune> again = prepare_tune(replay(2));
  const TuneReport second = run_prepared_tune(*again, store, nullptr);
  for (const Result& r : second.measured) EXPECT_FALSE(r.config == again->untuned[0].config);
  const std::vector<UntunedComparison> c = compare_to_untuned(*again, second);
  ASSERT_TRUE(c[0].ratio) << "the stored measurement of the default is compared";
  EXPECT_DOUBLE_EQ(*c[0].ratio, 1.0);
}

TEST_F(Untuned, TheLookupsAnswerIsEvaluatedFirst) {
  const testing::DefaultRecording rec = testing::write_default_recording(recording_, /*faster=*/0);
  std::unique_ptr<PreparedTune> job = prepare_tune(replay(3));

  // A user database that measured a nearby shape of the same class, under the
  // recording's template hash, on the same GPU: its winner is one of the
  // recorded configurations.
  const KernelFamily& gemm = find_family("gemm");
  const std::string db = temp_.file("user.db");
  const Config answer = rec.others[3];
  {
    Store user = Store::open(db);
    RunKey near = job->key;
    near.problem = parse_problem(gemm, "m=1024,n=512,k=512,dtype=bf16,layout=nt");
    near.shape_class = gemm.shape_class(near.problem);
    ASSERT_EQ(near.shape_class, job->key.shape_class);
    Result r;
    r.config = answer;
    r.status = Status::ok;
    r.time.median_s = 2e-3;  // synthetic
    r.time.repetitions = 1;
    user.record(near, std::span<const Result>(&r, 1), job->provenance);
  }
  const UntunedLookup lookup({db, temp_.file("no-system.db")});
  EXPECT_EQ(lookup.open_error(), "");
  choose_untuned(*job, &lookup);
  ASSERT_EQ(job->untuned.size(), 2u);
  EXPECT_EQ(job->untuned[0].name, kTheDefault);
  EXPECT_EQ(job->untuned[1].name, kTheLookupsAnswer);
  EXPECT_EQ(job->untuned[1].config, answer);
  EXPECT_EQ(job->untuned[1].source, "nearest");  // one measured shape: too little for the predictor
  std::ostringstream plan;
  print_untuned_plan(plan, *job);
  EXPECT_EQ(plan.str(), "  evaluated first, as what a user gets without tuning: the default " +
                            rec.default_config.key() + ", the lookup's answer (nearest) " +
                            answer.key() + "\n");

  Store store = Store::open(":memory:");
  const TuneReport report = run_prepared_tune(*job, store, nullptr);
  ASSERT_EQ(report.measured.size(), 3u);
  EXPECT_EQ(report.measured[0].config, rec.default_config);
  EXPECT_EQ(report.measured[1].config, answer);
  ASSERT_TRUE(report.best);
  EXPECT_EQ(report.best->config, rec.default_config);  // the answer, recorded slower here, lost
  const double answer_ratio = report.measured[1].time.median_s / testing::kDefaultTimeS;
  EXPECT_EQ(describe_untuned(compare_to_untuned(*job, report), Objective::time),
            "best 1.00x the default (" + rec.default_config.key() + "), " +
                ratio_text(answer_ratio) + " the lookup's answer (nearest)");
}

TEST_F(Untuned, ADefaultOutsideTheSubSpaceIsNamedAndTheRunGoesOn) {
  const testing::DefaultRecording rec = testing::write_default_recording(recording_, /*faster=*/0);
  const std::string require = testing::requirement_excluding_the_default(rec);
  ASSERT_FALSE(require.empty());
  std::unique_ptr<PreparedTune> job = prepare_tune(replay(3, {require}));
  EXPECT_TRUE(job->untuned.empty());
  ASSERT_EQ(job->untuned_notes.size(), 1u);
  EXPECT_EQ(job->untuned_notes[0].rfind(
                "the default " + rec.default_config.key() + " is not in this run's space", 0),
            0u)
      << job->untuned_notes[0];
  std::ostringstream plan;
  print_untuned_plan(plan, *job);
  EXPECT_EQ(plan.str(), "  note: " + job->untuned_notes[0] + "\n");

  Store store = Store::open(":memory:");
  const TuneReport report = run_prepared_tune(*job, store, nullptr);
  EXPECT_FALSE(report.measured.empty());
  EXPECT_EQ(describe_untuned(compare_to_untuned(*job, report), Objective::time), "");
}

TEST_F(Untuned, AChoiceNotEvaluatedOrFailedIsNamed) {
  UntunedComparison skipped{
      {kTheDefault, "", Config{{"x", std::int64_t{1}}}}, std::nullopt, std::nullopt};
  Result wrong;
  wrong.status = Status::wrong_result;
  UntunedComparison failed{
      {kTheLookupsAnswer, "exact", Config{{"x", std::int64_t{2}}}}, wrong, std::nullopt};
  Result ok;
  ok.status = Status::ok;
  UntunedComparison faster{{kTheLookupsAnswer, "nearest", Config{{"x", std::int64_t{3}}}}, ok, 1.5};
  EXPECT_EQ(describe_untuned({skipped, failed}, Objective::time),
            "the default (x=1) not evaluated; the lookup's answer (exact) wrong_result");
  EXPECT_EQ(
      describe_untuned({skipped, faster}, Objective::energy),
      "best 1.50x the lookup's answer (nearest) (by energy); the default (x=1) not evaluated");
}

TEST_F(Untuned, EverySweepItemStartsFromTheDefaultAndReportsTheRatio) {
  const testing::DefaultRecording rec = testing::write_default_recording(recording_, /*faster=*/0);
  const nlohmann::json sweep = {
      {"runs", {{{"replay", recording_.string()}, {"budget", 3}, {"strategy", "random"}}}}};
  const SweepFile file = parse_sweep(sweep, temp_.path());
  Store store = Store::open(":memory:");
  std::ostringstream log;
  const std::vector<SweepOutcome> outcomes = run_sweep(file.items, store, nullptr, log);
  ASSERT_EQ(outcomes.size(), 1u);
  ASSERT_TRUE(outcomes[0].report);
  EXPECT_EQ(outcomes[0].report->measured[0].config, rec.default_config);
  EXPECT_NE(log.str().find("  evaluated first, as what a user gets without tuning: the default " +
                           rec.default_config.key()),
            std::string::npos)
      << log.str();
  EXPECT_NE(log.str().find("  best 1.00x the default (" + rec.default_config.key() + ")"),
            std::string::npos)
      << log.str();
  std::ostringstream summary;
  print_sweep_summary(summary, outcomes);
  EXPECT_NE(summary.str().find("x default"), std::string::npos) << summary.str();
  EXPECT_NE(summary.str().find("1.00x"), std::string::npos) << summary.str();
}

}  // namespace
}  // namespace ktune
