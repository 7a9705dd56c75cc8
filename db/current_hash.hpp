// Per-row freshness: stale counting, pruning and re-keying of results when the
// current template hash depends on each result's (problem, device), as it does
// for families whose kernel paths are versioned separately (gemm).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "db/store.hpp"

namespace ktune {

/// The current template hash of `family` for results of `problem` (as stored,
/// normalized) measured on the GPU `device` of arch `arch`. An empty answer
/// means "unknown" (e.g. a family this build does not know): such rows are
/// judged by the old rule, the family's newest-measured hash is current.
using CurrentHash = std::function<std::string(const std::string& family, const Problem& problem,
                                              const std::string& device, const std::string& arch)>;

/// `strict`, except where it throws std::runtime_error (a template file that
/// cannot be read, as in a binary installed without its templates): there the
/// answer is "" (unknown), so the family's newest-measured version counts as
/// current. `on_first_failure`, if set, is told the first failure's message,
/// once across every copy of the returned resolver (the CLI prints it as a note).
CurrentHash lenient_current_hash(CurrentHash strict,
                                 std::function<void(const std::string& why)> on_first_failure = {});

/// Per family name, the hash with the newest measurement: the current one for
/// rows whose CurrentHash answer is empty (unknown).
std::unordered_map<std::string, std::string> newest_measured_hashes(const Store& store);

/// Results, per (family, hash), whose hash is not the current one of their
/// row. `family` empty: every family. Ordered by family, hash.
std::vector<StaleSummary> stale_results(const Store& store, const std::string& family, const CurrentHash& current);

/// Deletes exactly the results stale_results(store, family, current) counts,
/// and then the rows no result references any more, in one transaction.
/// `family` must not be empty. `dry_run`: counts only (a read-only Store will do).
PruneSummary prune_stale_results(Store& store, const std::string& family, const CurrentHash& current,
                                 bool dry_run = false);

/// What rehash_results did (or would do).
struct RehashSummary {
  std::int64_t rehashed = 0;        ///< results moved from `from_hash` to their row's current hash
  std::int64_t duplicates = 0;      ///< legacy copies of measurements already stored under the new hash (removed)
  std::int64_t already_current = 0;  ///< results of `from_hash` whose current hash is `from_hash` itself
  std::int64_t unknown = 0;         ///< results of `from_hash` whose current hash is unknown (left alone)
  std::vector<std::pair<std::string, std::int64_t>> by_new_hash;  ///< new hash -> results moved there
  std::vector<std::pair<std::string, std::int64_t>> left_alone;   ///< the family's other hashes -> results
};

/// Re-keys the results of `family` stored under `from_hash` to the current hash
/// of their (problem, device), all in one transaction (all or nothing). Results
/// under other hashes are untouched (counted in left_alone). Rows left without
/// results (the legacy family version) are removed as a prune removes them. `dry_run`: counts
/// only, nothing is written (duplicates are then counted as rehashed).
/// Throws std::invalid_argument for an empty family or hash, DatabaseError on failure.
RehashSummary rehash_results(Store& store, const std::string& family, const std::string& from_hash,
                             const CurrentHash& current, bool dry_run);

/// The results of one configuration of one (problem, GPU) stored under a
/// template hash that is not their row's current one.
struct StaleConfiguration {
  std::string family;
  std::string hash;          ///< the template hash the results are stored under
  std::string current_hash;  ///< their row's current hash
  std::string device, arch;  ///< the GPU (results of every device row of that name and arch)
  Problem problem;           ///< as stored (normalized)
  Config config;
  std::int64_t results = 0;
};

/// Every stale (problem, GPU, configuration) of `family` (not empty) whose
/// current hash is known, ordered by hash, device, problem and configuration.
std::vector<StaleConfiguration> stale_configurations(const Store& store, const std::string& family,
                                                     const CurrentHash& current);

/// What rekey_configurations did (or would do).
struct RekeySummary {
  std::int64_t moved = 0;       ///< results now under their row's current hash
  std::int64_t duplicates = 0;  ///< stale copies of measurements already stored under it (removed)
};

/// Moves the results of each listed configuration from its `hash` to its
/// `current_hash`, in one transaction (all or nothing); rows are found again by
/// their keys (family and hash, GPU name and arch, problem, configuration), so
/// the list may come from an earlier read. Results of configurations not
/// listed stay where they are; rows left without results (the old family
/// version, once empty) are removed as a prune removes them. `dry_run`:
/// counts only, nothing is written. Throws DatabaseError on failure.
RekeySummary rekey_configurations(Store& store, const std::vector<StaleConfiguration>& chosen, bool dry_run);

}  // namespace ktune
