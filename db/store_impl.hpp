// Store::Impl: the open SQLite connection and its id caches; internal to db/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include <SQLiteCpp/SQLiteCpp.h>

#include "db/store.hpp"

namespace ktune {

struct Store::Impl {
  Impl(std::string p, bool ro, SQLite::Database database)
      : path(std::move(p)), read_only(ro), db(std::move(database)) {}

  std::string path;
  bool read_only;
  SQLite::Database db;

  // Row ids by natural key, valid only after the transaction that created
  // them committed: a failed batch clears them (see forget_ids()).
  std::unordered_map<std::string, std::int64_t> device_ids, family_ids, problem_ids, config_ids;

  // Prepared once, reused for every row of every batch.
  std::optional<SQLite::Statement> insert_result;

  std::int64_t device_id(const DeviceSpec& d);
  std::int64_t family_id(const std::string& family, const std::string& hash);
  std::int64_t problem_id(const RunKey& key);
  std::int64_t config_id(const Config& c);
  /// Inserts one result row; returns true if it was new.
  bool insert_row(std::int64_t device, std::int64_t family, std::int64_t problem,
                  const Result& r, const Provenance& p, const std::string& measured_at);
  void forget_ids();
  /// Device id if stored, without inserting.
  std::optional<std::int64_t> find_device(const DeviceSpec& d) const;
  std::optional<std::int64_t> find_family(const std::string& family, const std::string& hash) const;
  std::optional<std::int64_t> find_problem(const std::string& family, const Problem& p) const;
};

/// Columns of a results row in the order read_result() expects, prefixed "r.".
inline constexpr const char* kResultColumns =
    "r.status, r.median_s, r.min_s, r.max_s, r.spread, r.repetitions, r.tflops, r.gbps, "
    "r.error, r.max_abs_error, r.deterministic, r.message, r.metrics, "
    "r.host, r.tool_version, r.source, r.measured_at";
inline constexpr int kResultColumnCount = 17;

/// Reads the kResultColumns starting at `first` into a result (config not set)
/// and its provenance.
void read_result(SQLite::Statement& row, int first, Result& result, Provenance& provenance);


}  // namespace ktune
