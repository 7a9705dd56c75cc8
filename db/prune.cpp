// Pruning: deleting selected results and then the configurations, family
// versions and problems that no result references any more.
#include <string>

#include "db/store_impl.hpp"

namespace ktune {
namespace {

// A table whose rows exist only for results to reference, and the column of
// results that does. Devices are not among them: a device row carries the
// GPU's measured ceilings (Store::set_measured_ceilings), which `ktune tune`
// adopts and which outlive the results they were stored beside. No other
// table references these ids (schema.cpp: results is the only one).
struct ReferencedByResults {
  const char* table;
  const char* column;
  std::int64_t PruneSummary::*count;
};

constexpr ReferencedByResults kReferencedByResults[] = {
    {"configs", "config_id", &PruneSummary::configs},
    {"families", "family_id", &PruneSummary::families},
    {"problems", "problem_id", &PruneSummary::problems},
};

// The single integer `sql` selects, with the selection's parameters bound.
std::int64_t count(SQLite::Database& db, const std::string& sql, const ResultSelection& selection) {
  SQLite::Statement st(db, sql);
  selection.bind(st);
  st.executeStep();
  return st.getColumn(0).getInt64();
}

// `NOT IN (SELECT ...)` rather than a correlated NOT EXISTS: results has no
// index on these columns, and SQLite builds the set of referenced ids once.
PruneSummary delete_selected_and_unreferenced(Store::Impl& impl, const ResultSelection& selection) {
  SQLite::Statement del(impl.db, "DELETE FROM results WHERE id IN (" + selection.ids_sql + ")");
  selection.bind(del);
  const std::int64_t results = del.exec();
  PruneSummary s = delete_unreferenced_rows(impl);
  s.results = results;
  return s;
}

PruneSummary count_selected_and_unreferenced(Store::Impl& impl, const ResultSelection& selection) {
  PruneSummary s;
  s.results = count(impl.db, "SELECT count(*) FROM results WHERE id IN (" + selection.ids_sql + ")", selection);
  // Unreferenced once the selected results are gone: referenced by none of the others.
  for (const auto& t : kReferencedByResults)
    s.*t.count = count(impl.db,
                       std::string("SELECT count(*) FROM ") + t.table + " WHERE id NOT IN (SELECT " + t.column +
                           " FROM results WHERE id NOT IN (" + selection.ids_sql + "))",
                       selection);
  return s;
}

}  // namespace

PruneSummary delete_unreferenced_rows(Store::Impl& impl) {
  PruneSummary s;
  for (const auto& t : kReferencedByResults)
    s.*t.count = impl.db.exec(std::string("DELETE FROM ") + t.table + " WHERE id NOT IN (SELECT " + t.column +
                              " FROM results)");
  // This connection's own deletions do not change its data_version, so the
  // check in WriteTransaction would not see them: a deleted id may be reused.
  impl.forget_ids();
  return s;
}

PruneSummary prune_results(Store::Impl& impl, bool dry_run, const std::function<ResultSelection()>& select) {
  if (!dry_run && impl.read_only) throw DatabaseError("'" + impl.path + "' is open read-only");
  try {
    if (dry_run) {
      // One snapshot for the selection and every count; nothing is written,
      // and the destructor ends the transaction.
      SQLite::Transaction read(impl.db, SQLite::TransactionBehavior::DEFERRED);
      return count_selected_and_unreferenced(impl, select());
    }
    WriteTransaction tx(impl);
    PruneSummary s = delete_selected_and_unreferenced(impl, select());
    tx.commit();
    return s;
  } catch (const SQLite::Exception& e) {
    impl.forget_ids();
    throw DatabaseError("cannot prune '" + impl.path + "': " + e.what());
  }
}

}  // namespace ktune
