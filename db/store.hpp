// Store: the SQLite tuning database (results keyed by device, family version,
// problem and configuration). No CUDA: applications embed it.
#pragma once

#include <memory>
#include <optional>
#include <span>
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
  DeviceSpec device;            ///< identity fields (name, cc, sm_count, driver, cuda) are keyed
  std::string family;           ///< e.g. "gemm"
  std::string family_hash;      ///< hash of the family's template source text
  Problem problem;              ///< normalized problem
};

/// Provenance stored beside each result.
struct Provenance {
  std::string host;
  std::string tool_version;     ///< ktune version and revision
  std::string source;           ///< optional team / source label
};

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
  /// Best verified (`ok`) result for the key, if any.
  std::optional<Result> best(const RunKey& key) const;

  struct Impl;

 private:
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ktune
