// Query views over a tuning database: the best verified configuration per
// (family, device, problem), and the difference of two databases' best views.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "db/current_hash.hpp"
#include "db/store.hpp"

namespace ktune {

/// The best verified configuration of one problem on one GPU model (or, with
/// BestQuery::top > 1, one of its fastest ones).
struct BestRow {
  std::string family, family_hash;
  std::string device, arch;  ///< GPU name and its arch
  Problem problem;
  std::string problem_key;
  std::string shape_class;
  std::vector<std::string> shape_keys;
  Config config;
  std::string config_key;
  double median_s = 0, min_s = 0, spread = 0, tflops = 0, gbps = 0;
  bool noisy = false;  ///< metrics.timing.noisy of the chosen measurement (result_order.hpp)
  std::int64_t ok_measurements =
      0;                  ///< ok measurements of this (device, problem), all configurations
  int rank = 1;           ///< 1 = fastest configuration of this (device, problem), 2 = next, ...
  Provenance provenance;  ///< of the fastest measurement of the chosen configuration
};

struct BestQuery {
  std::string family;  ///< empty: every family
  std::string device;  ///< GPU name or arch ("sm_90"); empty: every device
  /// Template hash to serve; empty: per family, the hash with the newest
  /// measurement (results of other hashes are stale and never shown).
  std::string family_hash;
  /// When set (and family_hash is empty), the current hash per row: a row is
  /// served when its hash is current(family, problem, device, arch), or, where
  /// that answer is empty, the family's newest-measured hash (per-path hashes:
  /// one family has several current hashes, one per kernel path).
  CurrentHash current{};
  /// Configurations per (family, device, problem): the `top` fastest distinct
  /// ones, each at its fastest measurement, in rank order (1: only the best).
  int top = 1;
};

/// Best `ok` configuration per (family, device name, problem), never one with
/// a failed result (any status but ok) for that problem on that arch (query.top
/// > 1: that many fastest distinct configurations, ranked as result_order.hpp
/// says). Ordered by family, device, problem key, rank.
std::vector<BestRow> best_per_problem(const Store& store, const BestQuery& query = {});

/// One best row as JSON: what `db query --json`, `db diff --json` and the C
/// ABI's query (Python's `Database.query`) print.
nlohmann::json best_row_json(const BestRow& r);

/// What a database stores by name, for checking a command's filters.
struct StoredNames {
  std::vector<std::string> devices;   ///< GPU names, as measured, sorted
  std::vector<std::string> families;  ///< kernel family names (any version), sorted

  /// Adds the names `other` holds that this does not; both stay sorted.
  void merge(const StoredNames& other);
};
StoredNames stored_names(const Store& store);

/// A device filter over stored results (`--device`, the C ABI's query): a GPU
/// name the database stores stays as given, an arch as devices store it
/// ("SM_90a" is "sm_90"); a name of the device table or a fragment of one
/// ("h200", "h100 pcie") becomes that GPU's full name, as `ktune lookup
/// --device` reads it. Anything else throws std::invalid_argument naming the
/// GPUs the database stores. Empty stays empty (every GPU).
std::string device_filter(const std::string& device, const StoredNames& stored);

/// Differences between two databases' best views, keyed by (family, device, problem).
struct BestDiff {
  std::vector<BestRow> only_a, only_b;
  struct Changed {
    BestRow a, b;
  };
  std::vector<Changed> changed;  ///< another configuration is best, or another hash is current
  std::int64_t same = 0;
};
BestDiff diff_best(const Store& a, const Store& b, const BestQuery& query = {});

}  // namespace ktune
