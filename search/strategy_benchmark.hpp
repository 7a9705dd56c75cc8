// Strategy benchmark: replays search strategies against recorded spaces
// (no GPU) and scores them: fraction of the optimum reached per budget,
// evaluations to reach 90/95/99% of it, and the score of the auto-tuning
// methodology of Willemsen et al. relative to random search.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/recorded_space.hpp"
#include "search/searcher.hpp"

namespace ktune {

struct StrategyBenchmarkOptions {
  std::vector<std::string> strategies{"random", "evolutionary", "bayes"};
  std::vector<std::size_t> budgets{25, 50, 100, 200, 400};  ///< evaluations (failures count)
  std::size_t repeats = 50;
  std::uint64_t seed = 1;
  std::size_t batch = 1;    ///< configurations per propose() call
  ValueMap search_options;  ///< passed to every strategy (SearchContext::options)
  /// Optional: fills the cost model of a recording into the strategies'
  /// context (predicted_time, work_estimate, roofline) when one exists.
  std::function<void(const RecordedSpace&, SearchContext&)> cost_model;
  bool parallel = true;  ///< repeats run on the TBB pool (results do not depend on it)
};

/// One budget of one strategy on one space.
struct BudgetStats {
  std::size_t budget = 0;
  double mean_fraction = 0;  ///< mean over repeats of t_opt / t_best (0 when nothing ran ok)
  double stddev_fraction = 0;
  double stderr_fraction = 0;  ///< standard error of the mean: stddev / sqrt(repeats)
  double p10_fraction = 0, median_fraction = 0, p90_fraction = 0;
  /// Methodology score: mean over evaluations 1..budget of
  /// (E[random best] - mean strategy best) / (E[random best] - t_opt);
  /// 0 = as good as random search, 1 = the optimum from the first evaluation.
  double score = 0;
  /// CPU time of the thread per proposal (propose() and observe() of one
  /// configuration) over the proposals made before `budget` evaluations,
  /// all repeats: median, 99th percentile and maximum, without each run's
  /// first proposal, and that first one's maximum apart (it lists the space
  /// once). A repeat's proposals run in isolation: a thread waiting inside
  /// a proposal's parallel loop never runs another repeat's work.
  double proposal_cpu_ms_median = 0, proposal_cpu_ms_p99 = 0, proposal_cpu_ms_max = 0,
         first_proposal_cpu_ms_max = 0;
  /// Where the maximum was: the repeat (0-based) and the evaluations counted
  /// before that proposal, so that it can be timed again alone.
  std::size_t proposal_cpu_ms_max_repeat = 0, proposal_cpu_ms_max_evaluations = 0;
  /// t_opt / t_best of each repeat, in seed order: repeat i of every
  /// strategy runs with the same seed, so strategies compare pairwise.
  std::vector<double> fractions;
};

/// Strategy a minus strategy b at one budget, over paired seeds: the mean
/// of the per-seed differences and its standard error; the 95% interval is
/// mean +- 1.96 se (a normal approximation; the repeats are independent).
struct PairedComparison {
  std::string a, b;
  std::size_t budget = 0;
  double mean_difference = 0, stderr_difference = 0;
  double low() const { return mean_difference - 1.96 * stderr_difference; }
  double high() const { return mean_difference + 1.96 * stderr_difference; }
  /// +1 when a is better with 95% confidence, -1 when worse, 0 otherwise.
  int verdict() const { return low() > 0 ? 1 : (high() < 0 ? -1 : 0); }
};

/// Evaluations needed to reach `level` x optimum (t_opt / t_best >= level).
struct ReachStats {
  double level = 0;
  double mean_evaluations = 0;  ///< over the runs that reached it (0 if none did)
  std::size_t reached = 0;      ///< runs that reached it within the largest budget
  std::size_t runs = 0;
};

struct StrategyRun {
  std::string strategy;
  std::vector<BudgetStats> budgets;
  std::vector<ReachStats> reach;            ///< levels 0.90, 0.95, 0.99
  std::vector<double> mean_fraction_curve;  ///< after 1..max budget evaluations
  double seconds = 0;                       ///< wall time in propose()+observe(), all repeats
  std::size_t proposals = 0;                ///< configurations proposed, all repeats
};

struct SpaceBenchmark {
  std::string source, family, device_name, format;
  bool synthetic = false;  ///< provenance says the recording is synthetic
  std::size_t proposable = 0, ok = 0;
  double optimum_s = 0;
  std::vector<double> random_fraction_curve;  ///< analytic E[t_opt / best] of random search
  /// Random search's exact expected evaluations to reach 90 / 95 / 99 % of
  /// the optimum, without a budget cap: (N + 1) / (g + 1) for g of the N
  /// proposable configurations at that level (draws without replacement).
  std::vector<ReachStats> random_reach;
  std::vector<StrategyRun> runs;
  /// Every pair of strategies (a before b in the strategy list) at every budget.
  std::vector<PairedComparison> comparisons;
};

struct StrategyBenchmarkReport {
  StrategyBenchmarkOptions options;
  std::vector<SpaceBenchmark> spaces;
};

/// Runs every strategy `repeats` times on every recording up to the largest
/// budget. Throws std::invalid_argument for an unknown strategy, an empty
/// budget list or a recording with no ok result.
StrategyBenchmarkReport run_strategy_benchmark(
    const std::vector<std::shared_ptr<const RecordedSpace>>& spaces,
    const StrategyBenchmarkOptions& options);

/// Expected best (smallest) value after k = 1..max_k uniform draws without
/// replacement from `values` (computed exactly from order statistics).
std::vector<double> expected_random_best(std::vector<double> values, std::size_t max_k);

/// Paired difference of two equally long samples (a[i] - b[i]).
PairedComparison compare_paired(const std::vector<double>& a, const std::vector<double>& b);

/// Expected position of the first of `good` marked items when drawing
/// without replacement from `total` items: (total + 1) / (good + 1); 0 when
/// good is 0.
double expected_first_hit(std::size_t total, std::size_t good);

std::string format_table(const StrategyBenchmarkReport& report);
nlohmann::json to_json(const StrategyBenchmarkReport& report);
/// Convergence plot: mean fraction of the optimum against evaluations, one
/// panel per space, with the analytic random-search curve dashed.
std::string render_svg(const StrategyBenchmarkReport& report);

}  // namespace ktune
