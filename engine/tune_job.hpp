// TuneJob: one tuning run as `ktune tune` and `ktune sweep` describe it
// (family, problem, strategy, limits, GPU or replay), checked and resolved
// into the loop's inputs before any database is touched.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "db/store.hpp"
#include "engine/evaluator.hpp"
#include "engine/progress.hpp"
#include "engine/tuner.hpp"
#include "engine/untuned.hpp"
#include "kernels_templated/family.hpp"
#include "search/recorded_space.hpp"
#include "search/searcher.hpp"

namespace ktune {

/// What the user asked for (command-line options or one sweep entry).
struct TuneSpec {
  std::string kernel;            ///< family name; may be empty when `replay` names a self-describing file
  std::string problem;           ///< "m=4096,n=4096,..."; may be empty for a self-describing replay
  std::string replay;            ///< a recording to replay instead of the GPU; empty: GPU
  std::string strategy = "auto";  ///< the default portfolio (search/auto_searcher.cpp)
  TuneOptions options;           ///< budget, time limit, batch, patience, resume, warm start
  std::uint64_t seed = 1;
  bool profile = false;          ///< collect profiler metrics (GPU only)
  bool energy = false;           ///< measure energy under objective time too (GPU only)
  std::string source;            ///< provenance label; replays default to "replay:<file name>"
  int device = 0;                ///< CUDA ordinal (GPU only)
  /// A tuning database whose measured ceilings for this GPU (`ktune db
  /// ceilings`) replace the datasheet's in the cost model; empty or absent
  /// file: the datasheet (or the live device's figures).
  std::string ceilings_db;
  /// Extra constraints in the space's expression language (space/README.md)
  /// that narrow the family's (or the recording's) space to a sub-space, e.g.
  /// "VEC == 8 && SMEM == 'xor'". Every one must hold. Stored results outside
  /// the sub-space are not part of the run (not reused, not its best).
  std::vector<std::string> require;
  /// Configurations (canonical keys, e.g. from `ktune lookup` or a bench) to
  /// evaluate first: a known good point the searcher then builds on. Each
  /// must be valid in the (sub-)space; they count against the budget.
  std::vector<std::string> start;
};

/// Parses and checks `keys` (TuneSpec::start) against `space`; throws
/// std::invalid_argument naming the first key that is malformed or not valid.
std::vector<Config> start_configs(const Space& space, const std::vector<std::string>& keys);

/// Narrows `space` to a sub-space: each expression becomes one more
/// constraint. Throws std::invalid_argument naming the expression for a
/// syntax error, a type error or an unknown name, and naming the expressions
/// when the sub-space has no valid configuration. No expressions: nothing
/// changes and nothing is checked.
void restrict_space(Space& space, const std::vector<std::string>& expressions);
/// The sub-space expressions as one conjunction for display: "(a) && (b)".
std::string describe_sub_space(const std::vector<std::string>& expressions);

/// No GPU where one is needed; the message says why and what to do instead.
struct NoGpuError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A TuneSpec resolved into everything the loop needs. Not movable: the
/// searcher holds a pointer to the space.
struct PreparedTune {
  TuneSpec spec;
  const KernelFamily* family = nullptr;            ///< null for a foreign replayed space
  Problem problem;
  std::shared_ptr<const RecordedSpace> recording;  ///< replay only
  DeviceSpec device;
  std::unique_ptr<Space> space;
  std::unique_ptr<Searcher> searcher;
  std::unique_ptr<Evaluator> evaluator;
  RunKey key;
  Provenance provenance;
  std::string label;                               ///< "gemm m=...,n=..." for progress and summaries
  /// What a user runs without tuning, evaluated first (choose_untuned in
  /// engine/untuned.hpp); empty until chosen.
  std::vector<UntunedChoice> untuned;
  std::vector<std::string> untuned_notes;  ///< choices left out, and why (one line each)

  PreparedTune() = default;
  PreparedTune(const PreparedTune&) = delete;
  PreparedTune& operator=(const PreparedTune&) = delete;
};

/// Cheap checks of a spec, with no GPU or database work: the family is known,
/// the problem parses for it, the strategy is known, the replay file (if any)
/// exists and is a recording in an accepted format (and the sub-space
/// expressions, if any, hold for some configuration of it), and a budget or a
/// time limit bounds the run. A family's sub-space expressions are checked by
/// prepare_tune, which knows the device. Throws std::invalid_argument naming
/// what is wrong.
void validate_tune_spec(const TuneSpec& spec);

/// Resolves a spec: reads the recording or finds the GPU, builds the space,
/// the searcher (with the family's roofline as prior) and the evaluator.
/// Throws std::invalid_argument for bad input and NoGpuError when the spec
/// needs a GPU and there is none.
std::unique_ptr<PreparedTune> prepare_tune(const TuneSpec& spec);

/// For sweeps whose evaluation happens elsewhere (MPI ranks, local GPU
/// workers; engine/distributed_evaluator.hpp): the GPU is not queried here
/// and the evaluator is the caller's.
struct PrepareHooks {
  /// The device the workers measure on (GPU items only): used for the space
  /// and the key instead of querying a local GPU. Ignored for replays.
  std::optional<DeviceSpec> device;
  /// Builds the evaluator once the rest is prepared; empty: the local one
  /// (IsolatedEvaluator or ReplayEvaluator).
  std::function<std::unique_ptr<Evaluator>(const PreparedTune&)> evaluator;
};
/// prepare_tune with hooks; with empty hooks it is prepare_tune(spec).
std::unique_ptr<PreparedTune> prepare_tune(const TuneSpec& spec, const PrepareHooks& hooks);

/// Replaces `device`'s datasheet ceilings with the measured ones stored for
/// its name in the database at `db_path` (nothing when the path is empty, the
/// file does not exist yet, or it holds none). Throws DatabaseError for a
/// database that cannot be read.
void apply_stored_ceilings(const std::string& db_path, DeviceSpec& device);

/// Runs the loop against `store` under the prepared key.
TuneReport run_prepared_tune(PreparedTune& job, Store& store, ProgressSink* progress);

/// The best `limit` results (reused and measured; ok by the run's objective, then failures),
/// with their roofline fraction when the family is known.
std::vector<ResultRow> top_results(const PreparedTune& job, const TuneReport& report, std::size_t limit);
/// TFLOP/s for compute-bound problems, GB/s for memory-bound ones (by the
/// roofline of the family's default configuration), else what the results carry.
Throughput throughput_for(const PreparedTune& job, const TuneReport& report);

/// Opens (creating it and its folder) a database for writing. Call it only
/// after every other input was checked, so bad input leaves the file
/// untouched. Throws std::invalid_argument naming the path and the reason.
Store open_store_for_writing(const std::string& path);

/// This machine's host name (provenance).
std::string host_name();

/// Parses a duration: "90", "90s", "15m", "2h", "1.5h". Throws std::invalid_argument.
double parse_duration_s(const std::string& text);

}  // namespace ktune
