// Schema version 3: what the lookup reads from metrics (energy, noisy mark,
// validity) kept per result. A version-2 file reads as before, read-only and
// unmigrated; migrating it keeps every stored result byte for byte, and the
// kept values follow later inserts, updates and deletes.
#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include "db/lookup.hpp"
#include "db/merge.hpp"
#include "db/result_order.hpp"
#include "db/schema.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"
#include "old_schema_rows.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

const char* const kFastNoisy = "BLOCK_M=64,BLOCK_N=64,STAGES=3";
const char* const kSteady = "BLOCK_M=128,BLOCK_N=64,STAGES=3";
const char* const kUnreadable = "BLOCK_M=32,BLOCK_N=64,STAGES=3";

/// A version-2 file as a version-2 build wrote it: one problem on one GPU,
/// a fast but noisy result that uses less energy, a steady one that ranks
/// first by time, and the fastest of all with metrics that are not JSON.
void write_version_two_file(const std::string& path) {
  create_database_at_version(path, 2);
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  insert_device_and_family_rows(db);
  db.exec(
      "INSERT INTO problems VALUES (1, 'gemm', 'dtype=bf16,k=64,layout=nn,m=64,n=64', "
      "'{\"dtype\":\"bf16\",\"k\":64,\"layout\":\"nn\",\"m\":64,\"n\":64}', "
      "'dtype=bf16,layout=nn', 'm,n,k')");
  int id = 0;
  for (const auto& [key, block_m] :
       {std::pair{kFastNoisy, 64}, {kSteady, 128}, {kUnreadable, 32}}) {
    SQLite::Statement config(db, "INSERT INTO configs VALUES (?, ?, ?)");
    config.bind(1, ++id);
    config.bind(2, key);
    config.bind(3, "{\"BLOCK_M\":" + std::to_string(block_m) + ",\"BLOCK_N\":64,\"STAGES\":3}");
    config.exec();
  }
  db.exec(
      "INSERT INTO results (device_id, family_id, problem_id, config_id, status, median_s, "
      "min_s, spread, metrics, measured_at) VALUES "
      "(1, 1, 1, 1, 'ok', 1.0e-3, 0.9e-3, 0.5, "
      "'{\"energy_j\":2.0,\"timing\":{\"noisy\":true}}', '2026-01-01T00:00:00.000000Z'), "
      "(1, 1, 1, 2, 'ok', 1.2e-3, 1.1e-3, 0.01, "
      "'{\"energy_j\":3.0,\"timing\":{\"noisy\":false}}', '2026-01-01T00:00:01.000000Z'), "
      "(1, 1, 1, 3, 'ok', 0.5e-3, 0.4e-3, 0.01, '{not json', '2026-01-01T00:00:02.000000Z')");
}

LookupRequest request(Objective objective) {
  LookupRequest r = gemm_request(gemm_problem(64, 64, 64), "Synthetic GPU A");
  r.objective = objective;
  return r;
}

/// The best configuration by time and by energy.
std::pair<std::string, std::string> best_keys(const std::string& path) {
  Lookup lookup = Lookup::open(path);
  auto by_time = lookup.best(request(Objective::time));
  auto by_energy = lookup.best(request(Objective::energy));
  return {by_time ? by_time->config_key : "none", by_energy ? by_energy->config_key : "none"};
}

/// Every column of every stored result, as text.
std::string results_dump(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, "SELECT * FROM results ORDER BY id");
  std::string out;
  while (q.executeStep()) {
    for (int i = 0; i < q.getColumnCount(); ++i) out += q.getColumn(i).getString() + '\x1f';
    out += '\n';
  }
  return out;
}

/// Rows where the kept values differ from the metrics they come from, either way.
int kept_rows_out_of_step(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  return db
      .execAndGet("SELECT (SELECT count(*) FROM (" + kLookupMetricsSelect +
                  " EXCEPT SELECT * FROM result_lookup_metrics)) + (SELECT count(*) FROM "
                  "(SELECT * FROM result_lookup_metrics EXCEPT " +
                  kLookupMetricsSelect + "))")
      .getInt();
}

TEST(LookupMetricsMigration, AVersionTwoFileReadsUnmigratedAndMigratesKeepingItsResults) {
  TempDir dir;
  const std::string path = dir.file("v2.db");
  write_version_two_file(path);
  const std::string before = results_dump(path);

  // Read-only, as a shipped file in a read-only folder is: parsed as before.
  EXPECT_EQ(best_keys(path), std::make_pair(std::string(kSteady), std::string(kFastNoisy)));
  EXPECT_EQ(results_dump(path), before);
  {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), 2);
    EXPECT_FALSE(db.tableExists("result_lookup_metrics"));
  }

  { EXPECT_EQ(Store::open(path).schema_version(), 3); }
  EXPECT_EQ(results_dump(path), before);
  EXPECT_EQ(kept_rows_out_of_step(path), 0);
  {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    SQLite::Statement q(db,
                        "SELECT c.key, m.metrics_valid, m.energy_j, m.noisy FROM "
                        "result_lookup_metrics m JOIN results r ON r.id = m.result_id "
                        "JOIN configs c ON c.id = r.config_id ORDER BY r.id");
    std::vector<std::string> rows;
    while (q.executeStep())
      rows.push_back(q.getColumn(0).getString() + " " + q.getColumn(1).getString() + " " +
                     q.getColumn(2).getString() + " " + q.getColumn(3).getString());
    EXPECT_EQ(rows, (std::vector<std::string>{std::string(kFastNoisy) + " 1 2.0 1",
                                              std::string(kSteady) + " 1 3.0 0",
                                              std::string(kUnreadable) + " 0  0"}));
  }
  // The same answers from the kept values; the unreadable row is still skipped.
  EXPECT_EQ(best_keys(path), std::make_pair(std::string(kSteady), std::string(kFastNoisy)));
}

TEST(LookupMetricsMigration, KeptValuesFollowInsertsUpdatesAndDeletes) {
  TempDir dir;
  const std::string path = dir.file("v2.db");
  write_version_two_file(path);
  Store store = Store::open(path);
  Result frugal = ok_result(tile_config(256, 64), 2e-3);
  frugal.metrics["energy_j"] = 0.5;
  store.record(gemm_key(gemm_problem(64, 64, 64), synthetic_device("Synthetic GPU A", 9, 0)),
               std::vector<Result>{frugal}, test_provenance());
  EXPECT_EQ(kept_rows_out_of_step(path), 0);
  const std::string frugal_key = "BLOCK_M=256,BLOCK_N=64,STAGES=3";
  EXPECT_EQ(best_keys(path).second, frugal_key);

  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec(
        "UPDATE results SET metrics = '{\"energy_j\":9.0}' WHERE config_id = "
        "(SELECT id FROM configs WHERE key = '" +
        frugal_key + "')");
  }
  EXPECT_EQ(kept_rows_out_of_step(path), 0);
  EXPECT_EQ(best_keys(path).second, kFastNoisy);

  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec("DELETE FROM results WHERE metrics = '{not json'");
  }
  EXPECT_EQ(kept_rows_out_of_step(path), 0);
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM result_lookup_metrics").getInt(), 3);
}

/// A version-2 input merges as it is (it holds every merged column), and the
/// merged rows get their kept values.
TEST(LookupMetricsMigration, AVersionTwoInputMergesUnmigrated) {
  TempDir dir;
  const std::string input = dir.file("v2.db"), output = dir.file("merged.db");
  write_version_two_file(input);
  const std::string before = results_dump(input);
  const MergeSummary summary = merge_databases({input}, output);
  EXPECT_EQ(summary.added, 3);
  EXPECT_EQ(results_dump(input), before);
  EXPECT_EQ(kept_rows_out_of_step(output), 0);
  EXPECT_EQ(best_keys(output), std::make_pair(std::string(kSteady), std::string(kFastNoisy)));
}

/// A row whose kept values are missing (written by a tool that bypassed the
/// triggers) is read from its metrics, as in an older file.
TEST(LookupMetricsMigration, ARowWithoutKeptValuesIsReadFromItsMetrics) {
  TempDir dir;
  const std::string path = dir.file("v3.db");
  write_version_two_file(path);
  { Store::open(path); }
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec("DELETE FROM result_lookup_metrics");
  }
  EXPECT_EQ(best_keys(path), std::make_pair(std::string(kSteady), std::string(kFastNoisy)));
}

}  // namespace
}  // namespace ktune
