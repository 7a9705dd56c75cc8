// Tuner: the tuning loop. Resumes from stored results, proposes batches,
// evaluates, stores each batch in one transaction, observes, and stops on
// budget, time, patience or an exhausted searcher.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "db/store.hpp"
#include "engine/evaluator.hpp"
#include "engine/progress.hpp"
#include "kernels_templated/family.hpp"
#include "search/searcher.hpp"
#include "space/objective.hpp"
#include "space/result.hpp"
#include "space/space.hpp"

namespace ktune {

/// Where the loop reads what is already known and writes each batch: the
/// tuning database under one RunKey (StoreLog), or a test double.
class ResultLog {
 public:
  virtual ~ResultLog() = default;
  /// Every stored result of this run's key (newest per configuration).
  virtual std::vector<Result> stored() const = 0;
  /// Stores one batch atomically: after a crash either all of it or none of it is there.
  virtual void append_batch(std::span<const Result> batch) = 0;
  /// Results of related runs (same family, nearby shapes or other
  /// architectures), most relevant first, at most `limit`: hints for the
  /// searcher's initial design. Empty when the log cannot tell.
  virtual std::vector<Result> warm_start_prior(std::size_t limit) const;
};

/// The tuning database seen through one RunKey: stored() is Store::results,
/// append_batch is one Store::record call (one transaction).
class StoreLog final : public ResultLog {
 public:
  StoreLog(Store& store, RunKey key, Provenance provenance);
  std::vector<Result> stored() const override;
  void append_batch(std::span<const Result> batch) override;
  /// The best verified result of each other problem of the same family
  /// and template hash (best_per_problem), same shape class only, nearest
  /// shape first (log2 distance over the key's shape_keys), then same GPU,
  /// same arch, other arches.
  std::vector<Result> warm_start_prior(std::size_t limit) const override;
  const RunKey& key() const { return key_; }

 private:
  Store& store_;
  RunKey key_;
  Provenance provenance_;
};

struct TuneOptions {
  std::size_t budget = 0;       ///< evaluations in this run (failures count); 0 = no budget
  /// The budget counts the stored results that resume reuses as well: a
  /// problem that holds `budget` results is done. Sweeps set it, so that a
  /// rerun goes on with the problems a cut-off run did not finish.
  bool budget_counts_stored = false;
  double time_limit_s = 0;      ///< wall-clock seconds; 0 = none. The batch in flight finishes.
  std::size_t batch_size = 8;   ///< configurations proposed and evaluated together (>= 1)
  std::size_t patience = 0;     ///< stop after this many evaluations without a new best; 0 = off
  bool resume = true;           ///< feed stored results to the searcher and never re-measure them
  bool warm_start = false;      ///< give the searcher the log's related results as priors (observe_prior)
  std::size_t warm_start_limit = 16;  ///< at most this many prior results
  /// Configurations evaluated first, in order, before the searcher proposes
  /// (valid in the run's space; already measured ones are skipped). They
  /// count against the budget and the searcher observes them like its own.
  std::vector<Config> start_configs;
  std::string label;            ///< shown on the progress line
  /// What the best is and patience waits for: time, energy per launch or
  /// their product. Stored with every result this run measures
  /// (metrics.objective). Under energy or edp, stored results without energy
  /// are not reused (they are measured again, with it), and a new ok result
  /// without energy is shown to the searcher as a failure.
  Objective objective = Objective::time;
};

enum class StopReason { budget, time_limit, patience, exhausted };
std::string_view to_string(StopReason r);

struct TuneReport {
  std::vector<Result> measured;   ///< evaluated in this run, in order (each stored)
  std::vector<Result> reused;     ///< stored results fed to the searcher on resume
  std::size_t failures = 0;       ///< measured results whose status is not ok
  /// Proposals the space rejected (never evaluated) plus invalid_config answers
  /// of the evaluator: neither counted against the budget nor stored.
  std::size_t skipped_invalid = 0;
  /// Prior results (other shapes or devices, mapped onto this space) the
  /// searcher accepted through observe_prior; they are hints, not measurements.
  std::size_t warm_started = 0;
  std::optional<Result> best;  ///< best ok result by the objective (reused or measured)
  StopReason stop = StopReason::exhausted;
  double elapsed_s = 0;
};

/// Everything one run uses; pointers are borrowed and must outlive run().
struct TuneInputs {
  const KernelFamily* family = nullptr;  ///< null for a replayed foreign space
  Problem problem;
  const Space* space = nullptr;
  Searcher* searcher = nullptr;
  Evaluator* evaluator = nullptr;
  ResultLog* log = nullptr;
  ProgressSink* progress = nullptr;      ///< null: no progress output
  /// Seconds on a monotonic clock; tests substitute their own. Empty: steady_clock.
  std::function<double()> clock;
};

class Tuner {
 public:
  /// Throws std::invalid_argument if a required input (space, searcher,
  /// evaluator, log) is missing or batch_size is 0. A run with no budget, time
  /// limit or patience ends when the searcher is exhausted.
  Tuner(TuneInputs inputs, TuneOptions options);
  /// Runs the loop. A failing candidate is a Result, never an exception; an
  /// exception from the evaluator or the log propagates after the batches
  /// before it were stored.
  TuneReport run();

 private:
  TuneInputs in_;
  TuneOptions opt_;
};

/// Fills tflops/gbps of ok results that lack them from the family's work
/// (replayed results often carry only times).
void fill_throughput(Result& r, const KernelFamily& family, const Problem& problem);

/// True when `a` is a better result than `b` (ok beats failure; then lower median time).
bool better_result(const Result& a, const Result& b);
/// The same under `objective` (space/objective.hpp: a result with the
/// objective's value beats one without, then the lower value).
bool better_result(const Result& a, const Result& b, Objective objective);

}  // namespace ktune
