// Sweep: many tuning runs (families x problems, and replays) from one JSON
// file, validated up front, split into shards, run one after another with a
// summary at the end.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/tune_job.hpp"

namespace ktune {

/// Thrown for a sweep file that cannot be used; the message names the file,
/// the place in it ("runs[2].budjet") and what is wrong.
struct SweepError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// One (run, problem) pair of the file: one tuning run.
struct SweepItem {
  std::size_t index = 0;          ///< position in the expanded list (sharding key)
  std::size_t run = 0;            ///< index into "runs"
  std::size_t problem = 0;        ///< index into that run's "problems" (0 for a replay without problems)
  TuneSpec spec;
};

struct SweepFile {
  std::filesystem::path path;     ///< the file read (relative paths inside it are relative to its folder)
  std::string db;                 ///< resolved "db", empty when the file has none
  std::vector<SweepItem> items;   ///< every run expanded, in file order
};

/// Parses and validates a sweep (schema in docs/tuning.md). Unknown keys
/// are rejected by name, types and ranges are checked, every item's family,
/// problem, strategy and replay file are validated (validate_tune_spec), all
/// before anything runs. `base_dir` resolves relative "db" and "replay" paths.
SweepFile parse_sweep(const nlohmann::json& j, const std::filesystem::path& base_dir,
                      const std::string& name = "sweep file");
/// Reads and parses a sweep file. Throws SweepError. A lookup's miss log
/// (Lookup::log_misses: JSON lines with "family" and "problem") reads as one
/// run per family over its logged problems, each once, 100 evaluations each.
SweepFile read_sweep(const std::filesystem::path& path);

/// A share of the items: index % count == index_of_shard.
struct Shard {
  std::size_t index = 0;
  std::size_t count = 1;
  bool contains(std::size_t item_index) const { return item_index % count == index; }
};

/// Parses "I/N" (0 <= I < N). Throws std::invalid_argument.
Shard parse_shard(const std::string& text);
/// The items of one shard, in file order.
std::vector<SweepItem> shard_items(const std::vector<SweepItem>& items, const Shard& shard);
/// The shard's own database: "out/sweep.db" -> "out/sweep.shard-1-of-4.db";
/// the unsharded (1/1) path is returned unchanged.
std::string shard_db_path(const std::string& db, const Shard& shard);

/// Builds each family item's space for its problem on `device` (a spec, so no
/// GPU is needed) and checks what a run would otherwise refuse only once it
/// reaches the GPU: a sub-space (`require`) with no valid configuration, and
/// start configurations outside the (sub-)space. Returns one message per
/// refused item, naming it; empty when every item would start. Replay items
/// carry their own space and were checked by parse_sweep.
std::vector<std::string> check_items_on_device(const std::vector<SweepItem>& items, const DeviceSpec& device);

/// The outcome of one item, for the summary.
struct SweepOutcome {
  SweepItem item;
  std::string label;
  std::optional<TuneReport> report;   ///< empty when the item failed to run
  std::string error;                  ///< why it failed to run (no GPU, a crash, ...)
  Throughput metric = Throughput::none;
  std::vector<UntunedComparison> untuned;  ///< the best against what a user gets without tuning
};

/// Resolves one item into a prepared run; the default is prepare_tune(item.spec).
/// Distributed sweeps (engine/distributed_evaluator.hpp) put their evaluator here.
using PrepareItem = std::function<std::unique_ptr<PreparedTune>(const SweepItem&)>;

/// Runs the items one after another into `store` (each item resumes from what
/// the store holds). A failing item is reported and the sweep goes on.
/// `out` gets a heading per item, what it evaluates first and, after it, the
/// best's ratio over those; progress goes to `progress`. `prepare` (empty:
/// prepare_tune) resolves each item. Each item evaluates first the family's
/// default and, when `lookup` is given, its answer (engine/untuned.hpp).
std::vector<SweepOutcome> run_sweep(const std::vector<SweepItem>& items, Store& store,
                                    ProgressSink* progress, std::ostream& out,
                                    const PrepareItem& prepare = {},
                                    const UntunedLookup* lookup = nullptr);

/// The summary table: one line per item with evaluated (+reused), failures,
/// best time and throughput, the best's ratio over the default and over the
/// lookup's answer, stop reason or error.
void print_sweep_summary(std::ostream& out, const std::vector<SweepOutcome>& outcomes);

}  // namespace ktune
