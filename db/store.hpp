// Store: the SQLite tuning database (results keyed by device, family version,
// problem and configuration). No CUDA: applications embed it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "space/device_spec.hpp"
#include "space/result.hpp"
#include "space/value_map.hpp"

namespace ktune {

/// Thrown when a file is not a ktune database, is corrupt, has a newer schema
/// than this build, or cannot be opened/written; the file is left untouched.
struct DatabaseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Who measured, with what, on which problem: the key every result is stored under.
struct RunKey {
  DeviceSpec device;        ///< identity fields (name, cc, sm_count, driver, cuda) are keyed
  std::string family;       ///< e.g. "gemm"
  std::string family_hash;  ///< hash of the family's template source text
  Problem problem;          ///< normalized problem
  /// Optional, for the nearest-shape lookup: the family's numeric shape keys
  /// (KernelFamily::shape_keys()) and shape class (KernelFamily::shape_class()).
  /// Stored with the problem the first time it is recorded. When the class is
  /// empty it is derived: the canonical key of the problem minus its shape keys.
  std::vector<std::string> shape_keys;
  std::string shape_class;
};

/// Provenance stored beside each result.
struct Provenance {
  std::string host;
  std::string tool_version;  ///< ktune version and revision
  std::string source;        ///< optional team / source label
  /// When the measurement was taken, UTC ISO-8601 with microseconds
  /// ("2026-11-29T14:35:00.123456Z"). Empty when recording: now.
  std::string measured_at;
};

/// One stored measurement with everything it is keyed by: the unit of
/// export, import and merge.
struct Measurement {
  RunKey key;
  Result result;
  Provenance provenance;
};

/// Results of one family measured with template text other than the current one.
struct StaleSummary {
  std::string family;
  std::string family_hash;
  std::int64_t results = 0;
};

/// What a prune deleted (or, in a dry run, would delete): results, then the
/// rows that no result references any more, in the whole database (rows left
/// unreferenced by earlier prunes or merges included). Devices are never
/// removed: a device row carries the GPU's measured ceilings.
struct PruneSummary {
  std::int64_t results = 0;
  std::int64_t configs = 0;   ///< configurations
  std::int64_t families = 0;  ///< family versions (name, template hash)
  std::int64_t problems = 0;
};

/// Counts for `ktune db stats`.
struct StoreStats {
  std::int64_t devices = 0, families = 0, problems = 0, configs = 0, results = 0;
  std::vector<std::pair<std::string, std::int64_t>> by_status;  ///< status text -> count
  std::vector<std::pair<std::string, std::int64_t>> by_family;  ///< "family@hash" -> count
  std::vector<std::pair<std::string, std::int64_t>> by_device;  ///< "name (arch)" -> count
};

/// Current schema version (`PRAGMA user_version`) and the `PRAGMA
/// application_id` that marks a file as a ktune database ("ktDB").
inline constexpr int kSchemaVersion = 3;
/// The oldest schema a read-only open reads as it is (version 3 only adds
/// derived data that readers compute themselves where it is absent).
inline constexpr int kOldestReadableSchemaVersion = 2;
inline constexpr std::int32_t kApplicationId = 0x6b744442;

class Store {
 public:
  /// Opens (creating if absent) a database for reading and writing: WAL mode,
  /// busy timeout, schema migrated forward. Throws DatabaseError.
  static Store open(const std::string& path);
  /// Opens an existing database read-only (never creates, never migrates).
  static Store open_read_only(const std::string& path);

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  /// Stores a batch of results in one transaction; re-storing a measured
  /// configuration from the same source adds a measurement, never loses one.
  void record(const RunKey& key, std::span<const Result> results, const Provenance& provenance);
  /// Every stored result for the key (current family hash only), newest
  /// measurement per configuration. Used for resume and warm start.
  std::vector<Result> results(const RunKey& key) const;
  /// Best verified (`ok`) result for the key, if any. A configuration with any
  /// `wrong_result` measurement for the key is never chosen.
  std::optional<Result> best(const RunKey& key) const;

  /// Stores fully keyed measurements in one transaction (import, merge).
  /// Measurements already present (same device, family hash, problem,
  /// configuration, source, host and time) are skipped. Returns how many
  /// were new. All or nothing: on error nothing is stored.
  std::int64_t insert(std::span<const Measurement> measurements);
  /// Calls `visit` for every stored measurement in a deterministic order
  /// (family, hash, device, problem, configuration, time). Returning false stops.
  /// `measured_since` (a canonical measured_at time; empty: all) leaves out
  /// older measurements in the query, so a small export from a large database
  /// reads only what it writes.
  void for_each(const std::function<bool(const Measurement&)>& visit,
                const std::string& measured_since = {}) const;

  /// Families' results measured with another template hash than `current_hash`
  /// (`family` empty: `current_hash` is ignored and every family's hashes but
  /// the newest-measured one are listed).
  std::vector<StaleSummary> stale(const std::string& family, const std::string& current_hash) const;
  /// Deletes the results of `family` whose template hash is not `current_hash`,
  /// and the rows no result references any more, in one transaction.
  /// `dry_run`: counts only (a read-only Store will do).
  PruneSummary prune_stale(const std::string& family, const std::string& current_hash,
                           bool dry_run = false);

  StoreStats stats() const;
  /// Measured ceilings stored with the GPU named (the spec of a device row
  /// whose measured_ceilings is set), or nullopt when none were stored.
  std::optional<DeviceSpec> measured_ceilings(const std::string& device_name) const;
  /// Stores measured ceilings (the fields of `ceilings` > 0, and its
  /// ceilings_source) in the spec of every row of the GPU named, in one
  /// transaction; returns the rows updated (0: no device of that name here).
  std::int64_t set_measured_ceilings(const std::string& device_name, const DeviceSpec& ceilings);
  std::int64_t result_count() const;
  /// The schema version of the open file (kSchemaVersion after open()).
  int schema_version() const;
  const std::string& path() const;
  bool read_only() const;

  struct Impl;
  /// Internal: the db/ room's other translation units reach SQLite through it.
  Impl& impl() const { return *impl_; }

 private:
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Folds the write-ahead log of the database at `path` into its main file and
/// switches it to rollback-journal mode, so that the file alone (no -wal, no
/// -shm) holds every result: ready to ship into a read-only folder, where it is
/// read immutable. The file is checked (and migrated) as Store::open does; the
/// next open for writing switches it back to WAL. Throws DatabaseError when
/// another connection has it open. Returns the results it holds.
std::int64_t checkpoint_for_shipping(const std::string& path);

/// Now as UTC ISO-8601 with microseconds, strictly increasing within this process.
std::string measurement_time_now();

/// The shape class stored when the caller gives none: the problem's canonical
/// key without its shape keys.
std::string derived_shape_class(const Problem& p, const std::vector<std::string>& shape_keys);
/// "m,n,k" <-> {"m", "n", "k"} (empty items dropped).
std::string join_names(const std::vector<std::string>& names);
std::vector<std::string> split_names(const std::string& text);

}  // namespace ktune
