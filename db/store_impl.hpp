// Store::Impl: the open SQLite connection and its id caches; internal to db/.
#pragma once

#include <cstdint>
#include <functional>
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
  // them committed: a failed batch clears them (see forget_ids()). A prune
  // deletes rows no result references, and SQLite may give a deleted id
  // (INTEGER PRIMARY KEY without AUTOINCREMENT: max(id) + 1) to another key,
  // so the caches are also dropped when another connection committed since
  // (see WriteTransaction) and after this connection's own prunes.
  std::unordered_map<std::string, std::int64_t> device_ids, family_ids, problem_ids, config_ids;
  // `PRAGMA data_version` when this connection last began writing; unset
  // before its first write transaction.
  std::optional<std::int64_t> seen_data_version;

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
  /// Drops the id caches if another connection committed since this one last
  /// began writing. Call only with the write lock held (see WriteTransaction).
  void forget_ids_if_changed_elsewhere();
  /// Device id if stored, without inserting.
  std::optional<std::int64_t> find_device(const DeviceSpec& d) const;
  std::optional<std::int64_t> find_family(const std::string& family, const std::string& hash) const;
  std::optional<std::int64_t> find_problem(const std::string& family, const Problem& p) const;
};

/// A write transaction of a Store: BEGIN IMMEDIATE, then the id caches are
/// checked against other connections' commits. IMMEDIATE takes the write lock
/// before the check, so no other connection can delete a row between the
/// check and this transaction's inserts (a deferred BEGIN would check a
/// snapshot that a prune could change before our first write). Rolls back in
/// its destructor unless committed, like SQLite::Transaction. Every write that
/// resolves ids through the caches (device_id(), config_id(), ...) runs in one.
class WriteTransaction {
 public:
  explicit WriteTransaction(Store::Impl& impl) : tx_(impl.db, SQLite::TransactionBehavior::IMMEDIATE) {
    impl.forget_ids_if_changed_elsewhere();
  }
  void commit() { tx_.commit(); }

 private:
  SQLite::Transaction tx_;
};

/// Runs `work` inside one WriteTransaction of `impl`, committed when `work`
/// returns; with `write` false (a dry run) it runs without one and writes
/// nothing. Refuses a read-only Store first when `write`. On any failure the
/// id caches are dropped (they may hold ids of rows the rollback removed), and
/// a SQLite error comes out as DatabaseError "cannot ACTION 'PATH': why".
template <typename Work>
void write_or_rollback(Store::Impl& impl, bool write, const std::string& action, Work&& work) {
  if (write && impl.read_only) throw DatabaseError("'" + impl.path + "' is open read-only");
  try {
    std::optional<WriteTransaction> tx;
    if (write) tx.emplace(impl);
    work();
    if (tx) tx->commit();
  } catch (const SQLite::Exception& e) {
    impl.forget_ids();
    throw DatabaseError("cannot " + action + " '" + impl.path + "': " + e.what());
  } catch (...) {
    impl.forget_ids();
    throw;
  }
}

/// The results a prune removes: `ids_sql` is a SELECT of results.id whose
/// parameters `bind` binds (on every statement built around it, so use
/// numbered parameters ?1, ?2, ...).
struct ResultSelection {
  std::string ids_sql;
  std::function<void(SQLite::Statement&)> bind;
};

/// Deletes the results `select` names (it runs inside the transaction, so what
/// it reads is what is deleted), then the configurations, family versions and
/// problems no result references any more, in one write transaction. With
/// `dry_run`, counts the same in one read transaction and writes nothing (a
/// read-only Store may be used). Throws DatabaseError on failure or for a
/// read-only Store without `dry_run`. Defined in prune.cpp.
PruneSummary prune_results(Store::Impl& impl, bool dry_run, const std::function<ResultSelection()>& select);

/// Deletes the configurations, family versions and problems no result
/// references (left by a prune, a re-key or a merge), inside the caller's
/// write transaction; counts them (`results` stays 0). Defined in prune.cpp.
PruneSummary delete_unreferenced_rows(Store::Impl& impl);

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
