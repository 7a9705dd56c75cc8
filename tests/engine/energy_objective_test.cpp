// The energy objective in the tuning loop, on the CPU: the replay evaluator
// answers from SYNTHETIC recordings that carry energy
// (tests/data/recorded/synthetic_energy.json), and the objective changes the
// winner; stored results without energy are measured again, not reused.
#include <gtest/gtest.h>

#include <map>

#include "engine/sweep.hpp"
#include "engine/tune_job.hpp"
#include "ktune_test_paths.hpp"
#include "search/searcher.hpp"
#include "tests/db/db_test_support.hpp"
#include "tuner_fakes.hpp"

namespace ktune {
namespace {

const std::string kEnergyRecording =
    std::string(KTUNE_TEST_DATA_DIR) + "/recorded/synthetic_energy.json";
const std::string kNoEnergyRecording =
    std::string(KTUNE_TEST_DATA_DIR) + "/recorded/synthetic_gemm_like.json";

TuneSpec replay_spec(Objective objective) {
  TuneSpec spec;
  spec.replay = kEnergyRecording;
  spec.strategy = "exhaustive";
  spec.options.budget = 20;
  spec.options.objective = objective;
  return spec;
}

/// "WARPS=8,VEC=4"-style key of the run's best result.
std::string best_of(const std::string& db, Objective objective) {
  Store store = Store::open(db);
  auto job = prepare_tune(replay_spec(objective));
  const TuneReport report = run_prepared_tune(*job, store, nullptr);
  EXPECT_TRUE(report.best.has_value());
  const auto top = top_results(*job, report, 1);
  EXPECT_EQ(top.front().result.config.key(), report.best->config.key());
  return report.best ? report.best->config.key() : "";
}

TEST(EnergyObjective, TheObjectiveChangesTheWinnerOfAReplay) {
  testing::TempDir dir;
  // Fastest of all: (16, 4), recorded without energy; least energy: (8, 4).
  EXPECT_EQ(best_of(dir.file("time.db"), Objective::time), "VEC=4,WARPS=16");
  EXPECT_EQ(best_of(dir.file("energy.db"), Objective::energy), "VEC=4,WARPS=8");
  EXPECT_EQ(best_of(dir.file("edp.db"), Objective::edp), "VEC=4,WARPS=8");
}

TEST(EnergyObjective, TheObjectiveIsStoredWithEveryResultOfTheRun) {
  testing::TempDir dir;
  Store store = Store::open(dir.file("a.db"));
  auto job = prepare_tune(replay_spec(Objective::energy));
  run_prepared_tune(*job, store, nullptr);
  const auto stored = store.results(job->key);
  ASSERT_EQ(stored.size(), 15u);
  for (const Result& r : stored)
    EXPECT_EQ(r.metrics.value("objective", ""), "energy") << r.config.key();
}

TEST(EnergyObjective, AReplayWithoutEnergyCannotAnswerEnergy) {
  TuneSpec spec = replay_spec(Objective::energy);
  spec.replay = kNoEnergyRecording;
  try {
    validate_tune_spec(spec);
    FAIL() << "a recording without energy must be refused under objective energy";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("records no energy"), std::string::npos) << e.what();
  }
  spec.options.objective = Objective::time;
  EXPECT_NO_THROW(validate_tune_spec(spec));
}

TEST(EnergyObjective, SweepEntriesTakeAnObjective) {
  const SweepFile sweep =
      parse_sweep(nlohmann::json::parse(R"({"runs": [{"replay": ")" + kEnergyRecording +
                                        R"(", "budget": 5, "objective": "edp"}]})"),
                  ".");
  ASSERT_EQ(sweep.items.size(), 1u);
  EXPECT_EQ(sweep.items[0].spec.options.objective, Objective::edp);
  try {
    parse_sweep(nlohmann::json::parse(R"({"runs": [{"replay": ")" + kEnergyRecording +
                                      R"(", "budget": 5, "objective": "watts"}]})"),
                ".");
    FAIL() << "an unknown objective must be refused";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("objective"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'watts'"), std::string::npos) << e.what();
  }
}

/// x's energy: lowest at x = 3 (synthetic); x = 5 and 6 come without energy.
class EnergyEvaluator final : public Evaluator {
 public:
  std::vector<Result> evaluate(std::span<const Config> configs) override {
    std::vector<Result> out = inner_.evaluate(configs);
    for (Result& r : out) {
      const int x = testing::x_of(r.config);
      evaluated.push_back(x);
      if (x != 5 && x != 6) r.metrics["energy_j"] = 0.1 + 0.01 * (x - 3) * (x - 3);
    }
    return out;
  }
  const DeviceSpec& device() const override { return inner_.device(); }
  std::vector<int> evaluated;

 private:
  testing::ScriptedEvaluator inner_;
};

TEST(EnergyObjective, StoredResultsWithoutEnergyAreMeasuredAgain) {
  Space space = testing::line_space(8);
  testing::ListSearcher searcher({0, 1, 2, 3, 4, 5, 6, 7});
  EnergyEvaluator evaluator;
  testing::MemoryLog log;
  log.preloaded = {testing::ok_at(3, 1e-3), testing::ok_at(7, 1e-4)};  // from a run without energy
  TuneInputs in = testing::inputs(space, searcher, evaluator, log);
  TuneOptions options = testing::options(8, 4);
  options.objective = Objective::energy;
  const TuneReport report = Tuner(in, options).run();
  EXPECT_TRUE(report.reused.empty());
  EXPECT_EQ(evaluator.evaluated, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  ASSERT_TRUE(report.best);
  EXPECT_EQ(testing::x_of(report.best->config), 3);
  EXPECT_TRUE(energy_per_launch(*report.best));
}

TEST(EnergyObjective, ResultsWithoutEnergyReachTheSearcherAsFailures) {
  // A real strategy minimising energy would reject an ok result without it.
  Space space = testing::line_space(8);
  SearchContext context;
  context.space = &space;
  context.options.set("objective", std::string("energy"));
  auto searcher = make_searcher("random", context);
  EnergyEvaluator evaluator;
  testing::MemoryLog log;
  TuneInputs in = testing::inputs(space, *searcher, evaluator, log);
  TuneOptions options = testing::options(8, 2);
  options.objective = Objective::energy;
  options.patience = 0;
  const TuneReport report = Tuner(in, options).run();
  EXPECT_EQ(report.measured.size(), 8u);
  ASSERT_TRUE(report.best);
  EXPECT_EQ(testing::x_of(report.best->config), 3);
  // Stored as measured: ok, without energy; only the searcher's view differs.
  std::size_t ok_without_energy = 0;
  for (const Result& r : log.stored()) ok_without_energy += r.ok() && !energy_per_launch(r);
  EXPECT_EQ(ok_without_energy, 2u);
}

TEST(EnergyObjective, PatienceCountsImprovementsOfTheObjective) {
  // Time falls with x (ScriptedEvaluator), energy is lowest at 3: under
  // energy nothing after 3 improves, so patience 2 stops at x = 5.
  Space space = testing::line_space(8);
  testing::ListSearcher searcher({0, 1, 2, 3, 4, 5, 6, 7});
  EnergyEvaluator evaluator;
  testing::MemoryLog log;
  TuneInputs in = testing::inputs(space, searcher, evaluator, log);
  TuneOptions options = testing::options(0, 1);
  options.patience = 2;
  options.objective = Objective::energy;
  const TuneReport report = Tuner(in, options).run();
  EXPECT_EQ(report.stop, StopReason::patience);
  EXPECT_EQ(evaluator.evaluated, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  options.objective = Objective::time;
  testing::ListSearcher again({0, 1, 2, 3, 4, 5, 6, 7});
  EnergyEvaluator timed;
  testing::MemoryLog log2;
  in.searcher = &again;
  in.evaluator = &timed;
  in.log = &log2;
  EXPECT_EQ(Tuner(in, options).run().stop, StopReason::exhausted);
}

}  // namespace
}  // namespace ktune
