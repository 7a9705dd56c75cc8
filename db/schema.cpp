// Schema of the tuning database: DDL per version, forward migrations, and the
// read-only inspection that refuses foreign, corrupt or newer files.
#include "db/schema.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>

#include <SQLiteCpp/SQLiteCpp.h>

#include "db/partial_file.hpp"
#include "db/result_order.hpp"
#include "db/store.hpp"

namespace ktune {
namespace {

struct Migration {
  int to_version;
  const char* what;
  std::string sql;
};

// Each step brings the schema from to_version - 1 to to_version. Never edit a
// shipped step: add a new one, so that every older file upgrades the same way.
// Step 3 reads metrics with the lookup's own expressions (result_order.hpp):
// a change to those needs a step that recomputes result_lookup_metrics.
const Migration kMigrations[] = {
    {1, "first schema: devices, families, problems, configurations, results",
     R"sql(
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  arch TEXT NOT NULL,
  sm_count INTEGER NOT NULL,
  driver TEXT NOT NULL,
  cuda_version TEXT NOT NULL,
  spec TEXT NOT NULL,
  UNIQUE (name, arch, sm_count, driver, cuda_version)
);
CREATE TABLE families (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  source_hash TEXT NOT NULL,
  UNIQUE (name, source_hash)
);
CREATE TABLE problems (
  id INTEGER PRIMARY KEY,
  family TEXT NOT NULL,
  key TEXT NOT NULL,
  json TEXT NOT NULL,
  UNIQUE (family, key)
);
CREATE TABLE configs (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  json TEXT NOT NULL
);
CREATE TABLE results (
  id INTEGER PRIMARY KEY,
  device_id INTEGER NOT NULL REFERENCES devices (id),
  family_id INTEGER NOT NULL REFERENCES families (id),
  problem_id INTEGER NOT NULL REFERENCES problems (id),
  config_id INTEGER NOT NULL REFERENCES configs (id),
  status TEXT NOT NULL CHECK (status IN ('ok', 'wrong_result', 'compile_error',
                                         'launch_error', 'timeout', 'invalid_config')),
  median_s REAL NOT NULL DEFAULT 0,
  min_s REAL NOT NULL DEFAULT 0,
  max_s REAL NOT NULL DEFAULT 0,
  spread REAL NOT NULL DEFAULT 0,
  repetitions INTEGER NOT NULL DEFAULT 0,
  tflops REAL NOT NULL DEFAULT 0,
  gbps REAL NOT NULL DEFAULT 0,
  error REAL NOT NULL DEFAULT 0,
  max_abs_error REAL NOT NULL DEFAULT 0,
  deterministic INTEGER,
  message TEXT NOT NULL DEFAULT '',
  metrics TEXT NOT NULL DEFAULT '{}',
  host TEXT NOT NULL DEFAULT '',
  tool_version TEXT NOT NULL DEFAULT '',
  source TEXT NOT NULL DEFAULT '',
  measured_at TEXT NOT NULL,
  UNIQUE (device_id, family_id, problem_id, config_id, source, host, measured_at)
);
CREATE INDEX results_by_status ON results (family_id, status, device_id, problem_id, median_s);
)sql"},
    {2, "problems remember their shape keys and shape class (nearest-shape lookup)",
     R"sql(
ALTER TABLE problems ADD COLUMN shape_class TEXT NOT NULL DEFAULT '';
ALTER TABLE problems ADD COLUMN shape_keys TEXT NOT NULL DEFAULT '';
CREATE INDEX problems_by_class ON problems (family, shape_class);
)sql"},
    {3,
     "what the lookup reads from metrics kept per result, and an index that holds every "
     "column the lookup ranks by: opening a lookup reads neither the metrics nor the table",
     std::string(R"sql(
CREATE TABLE result_lookup_metrics (
  result_id INTEGER PRIMARY KEY,
  metrics_valid INTEGER NOT NULL,
  energy_j,
  noisy INTEGER NOT NULL
);
INSERT INTO result_lookup_metrics )sql") +
         kLookupMetricsSelect + R"sql(;
CREATE TRIGGER result_lookup_metrics_on_insert AFTER INSERT ON results BEGIN
  INSERT OR REPLACE INTO result_lookup_metrics )sql" +
         kLookupMetricsSelect + R"sql( WHERE r.id = new.id;
END;
CREATE TRIGGER result_lookup_metrics_on_update AFTER UPDATE OF id, metrics ON results BEGIN
  DELETE FROM result_lookup_metrics WHERE result_id = old.id;
  INSERT OR REPLACE INTO result_lookup_metrics )sql" +
         kLookupMetricsSelect + R"sql( WHERE r.id = new.id;
END;
CREATE TRIGGER result_lookup_metrics_on_delete AFTER DELETE ON results BEGIN
  DELETE FROM result_lookup_metrics WHERE result_id = old.id;
END;
CREATE INDEX results_for_lookup ON results (family_id, status, device_id, problem_id, config_id,
                                            median_s, min_s, spread, measured_at);
)sql"},
};

int read_int_pragma(SQLite::Database& db, const char* pragma) {
  return db.execAndGet(std::string("PRAGMA ") + pragma).getInt();
}

}  // namespace

void migrate(SQLite::Database& db, int target) {
  if (target < 0 || target > kSchemaVersion)
    throw DatabaseError("cannot migrate to schema version " + std::to_string(target));
  // IMMEDIATE: two processes creating the same file serialise here, and the
  // second one sees the version the first one wrote.
  SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
  int version = read_int_pragma(db, "user_version");
  if (version > target) {
    tx.commit();
    return;
  }
  for (const Migration& m : kMigrations) {
    if (m.to_version <= version || m.to_version > target) continue;
    db.exec(m.sql);
    db.exec("PRAGMA user_version = " + std::to_string(m.to_version));
    version = m.to_version;
  }
  if (read_int_pragma(db, "application_id") != kApplicationId)
    db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
  tx.commit();
}

void check_database_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);  // of what a link points to
  if (ec && status.type() != fs::file_type::not_found)
    throw DatabaseError("cannot use '" + path + "' as a tuning database: " + ec.message());
  if (fs::is_directory(status))
    throw DatabaseError("'" + path + "' is a folder, not a tuning database");
  if (fs::exists(status) && !fs::is_regular_file(status))
    throw DatabaseError("'" + path + "' is not a regular file, so not a tuning database");
  if (is_partial_of_another_process(path))
    throw DatabaseError("'" + path +
                        "' is the unfinished output of a merge that was stopped or is still "
                        "running, not a tuning database; a later merge into its target removes it");
}

FileInspection inspect_file(const std::string& path, bool integrity_checked) {
  namespace fs = std::filesystem;
  check_database_path(path);
  FileInspection out;
  std::error_code ec;
  if (!fs::exists(path, ec) || fs::file_size(path, ec) == 0 || ec) return out;
  out.exists_with_content = true;

  char header[16] = {};
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw DatabaseError("cannot read '" + path + "'");
    in.read(header, sizeof header);
    if (in.gcount() != sizeof header || std::memcmp(header, "SQLite format 3\0", 16) != 0)
      throw DatabaseError("'" + path +
                          "' is not a ktune database (not an SQLite file); left untouched");
  }
  try {
    return retry_while_busy([&] {
      SQLite::Database db(path, SQLite::OPEN_READONLY, kBusyTimeoutMs);
      // One statement, one snapshot: another process may be creating the file
      // right now, and separate reads could see its schema without its id.
      SQLite::Statement q(
          db,
          "SELECT (SELECT application_id FROM pragma_application_id), "
          "(SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_master)");
      q.executeStep();
      const int app_id = q.getColumn(0).getInt();
      const int version = q.getColumn(1).getInt();
      const int tables = q.getColumn(2).getInt();
      FileInspection found = out;
      if (app_id != kApplicationId) {
        if (app_id == 0 && version == 0 && tables == 0) {
          found.exists_with_content = false;  // an empty SQLite file: ours to initialise
          return found;
        }
        throw DatabaseError("'" + path + "' is not a ktune database (application_id " +
                            std::to_string(app_id) + ", expected " +
                            std::to_string(kApplicationId) + "); left untouched");
      }
      if (version > kSchemaVersion)
        throw DatabaseError("'" + path + "' has schema version " + std::to_string(version) +
                            ", newer than this build's " + std::to_string(kSchemaVersion) +
                            "; upgrade ktune to read it (file left untouched)");
      const std::string check =
          integrity_checked ? "ok" : db.execAndGet("PRAGMA quick_check(1)").getString();
      if (check != "ok")
        throw DatabaseError("'" + path + "' is corrupt (integrity check: " + check +
                            "); left untouched");
      found.version = version;
      return found;
    });
  } catch (const SQLite::Exception& e) {
    throw DatabaseError("'" + path + "' is corrupt or unreadable (" + e.what() +
                        "); left untouched");
  }
}

ReadOnlyAccess read_only_access(const std::string& path, bool can_write_beside) {
  if (can_write_beside) return ReadOnlyAccess::shared;
  for (const char* suffix : {"-wal", "-journal"}) {
    const std::string side = path + suffix;
    std::error_code ec;
    const auto size = std::filesystem::file_size(side, ec);
    if (ec || size == 0) continue;  // absent, or empty: holds nothing
    throw DatabaseError(
        "'" + path + "' has a leftover '" + side + "' (" + std::to_string(size) +
        " bytes) that a read-only folder cannot be read with: it may hold committed results "
        "(-wal) or an interrupted write (-journal). Run `ktune db checkpoint " +
        path + "` where the folder is writable, then ship the file alone");
  }
  return ReadOnlyAccess::immutable;
}

void create_database_at_version(const std::string& path, int version) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  migrate(db, version);
}

}  // namespace ktune
