// Schema: versioning, the forward migrations, and refusal of foreign, corrupt
// or newer files, which must stay byte-for-byte untouched.
#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "db/lookup.hpp"
#include "db/schema.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"
#include "old_schema_rows.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

int pragma(const std::string& path, const char* name) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  return db.execAndGet(std::string("PRAGMA ") + name).getInt();
}

TEST(Schema, FreshDatabaseIsMarkedAndCurrent) {
  TempDir dir;
  std::string path = dir.file("fresh.db");
  {
    Store store = Store::open(path);
    EXPECT_EQ(store.schema_version(), kSchemaVersion);
  }
  EXPECT_EQ(pragma(path, "user_version"), kSchemaVersion);
  EXPECT_EQ(pragma(path, "application_id"), kApplicationId);
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("PRAGMA journal_mode").getString(), "wal");
}

TEST(Schema, MigratesAVersionOneFileForwardKeepingItsRows) {
  TempDir dir;
  std::string path = dir.file("v1.db");
  create_database_at_version(path, 1);
  {
    // Rows as a version-1 build wrote them (no shape columns yet).
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    insert_device_and_family_rows(db);
    db.exec(
        "INSERT INTO problems VALUES (1, 'gemm', 'dtype=bf16,k=64,layout=nn,m=64,n=64', "
        "'{\"dtype\":\"bf16\",\"k\":64,\"layout\":\"nn\",\"m\":64,\"n\":64}')");
    db.exec(
        "INSERT INTO configs VALUES (1, 'BLOCK_M=64,BLOCK_N=64,STAGES=3', "
        "'{\"BLOCK_M\":64,\"BLOCK_N\":64,\"STAGES\":3}')");
    db.exec(
        "INSERT INTO results (device_id, family_id, problem_id, config_id, status, median_s, "
        "measured_at) VALUES (1, 1, 1, 1, 'ok', 0.001, '2026-01-01T00:00:00.000000Z')");
    // A version-1 file cannot have the columns version 2 adds.
    EXPECT_THROW(db.exec("SELECT shape_class FROM problems"), SQLite::Exception);
  }
  EXPECT_EQ(pragma(path, "user_version"), 1);
  // Read-only opening never migrates: it refuses and says how to upgrade.
  EXPECT_THROW(Store::open_read_only(path), DatabaseError);

  Store store = Store::open(path);
  EXPECT_EQ(store.schema_version(), kSchemaVersion);
  EXPECT_EQ(store.result_count(), 1);
  auto best = store.best(gemm_key(gemm_problem(64, 64, 64)));
  ASSERT_TRUE(best);
  EXPECT_EQ(best->time.median_s, 0.001);
  // Recording again teaches the old problem its shape keys (new in v2).
  store.record(gemm_key(gemm_problem(64, 64, 64)),
               std::vector<Result>{ok_result(tile_config(32, 32), 2e-3)}, test_provenance());
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("SELECT shape_keys FROM problems").getString(), "m,n,k");
}

void expect_refused_untouched(const std::string& path, const std::string& expected_words) {
  std::string before = read_bytes(path);
  try {
    Store::open(path);
    FAIL() << "open() accepted " << path;
  } catch (const DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find(expected_words), std::string::npos) << e.what();
  }
  EXPECT_THROW(Store::open_read_only(path), DatabaseError);
  EXPECT_THROW(Lookup::open(path), DatabaseError);
  EXPECT_EQ(read_bytes(path), before) << path << " was modified";
}

TEST(Schema, RefusesATextFileUntouched) {
  TempDir dir;
  std::string path = dir.file("notes.db");
  write_bytes(path, "these are my notes, not a database\n");
  expect_refused_untouched(path, "not an SQLite file");
}

TEST(Schema, RefusesAnotherApplicationsSqliteFileUntouched) {
  TempDir dir;
  std::string path = dir.file("other.db");
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)");
    db.exec("INSERT INTO photos (name) VALUES ('cat.jpg')");
  }
  expect_refused_untouched(path, "not a ktune database");
}

TEST(Schema, RefusesANewerSchemaUntouched) {
  TempDir dir;
  std::string path = dir.file("newer.db");
  { Store::open(path); }
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion + 1));
  }
  expect_refused_untouched(path, "newer than this build");
}

/// A database of 400 results, large enough to span index and table pages.
void write_400_results(const std::string& path) {
  Store store = Store::open(path);
  std::vector<Result> batch;
  for (int i = 0; i < 400; ++i)
    batch.push_back(ok_result(tile_config(16 + i, 32), 1e-3 + i * 1e-6));
  store.record(gemm_key(gemm_problem(256, 256, 256)), batch, test_provenance());
}

/// Scribbles over the middle of the file (index and table pages), header intact.
void corrupt_pages(const std::string& path) {
  std::string bytes = read_bytes(path);
  ASSERT_GT(bytes.size(), 4u * 4096);
  for (std::size_t i = 2 * 4096 + 100; i < bytes.size() - 4096; i += 7)
    bytes[i] = static_cast<char>(0xA5);
  write_bytes(path, bytes);
}

TEST(Schema, RefusesACorruptFileUntouched) {
  TempDir dir;
  std::string path = dir.file("corrupt.db");
  write_400_results(path);
  corrupt_pages(path);
  expect_refused_untouched(path, "corrupt");
}

// A read-only open checks a file once per process while it is unchanged; a
// file changed since is checked again (here its schema version, which only
// that check reads), whether just now or settled. A file changed in the last
// 2 s is checked at every open. In rollback-journal mode, as a shipped file is: in WAL
// mode each reader leaves a fresh -wal beside it, so every open checks.
TEST(Schema, AFileChangedAfterAReadOnlyOpenIsCheckedAgain) {
  TempDir dir;
  std::string path = dir.file("settled.db");
  write_400_results(path);
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec("PRAGMA journal_mode = DELETE");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  EXPECT_NO_THROW(Store::open_read_only(path));
  EXPECT_NO_THROW(Store::open_read_only(path));
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec("PRAGMA user_version = 1");
  }
  EXPECT_THROW(Store::open_read_only(path), DatabaseError);  // changed just now
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  EXPECT_THROW(Store::open_read_only(path), DatabaseError);  // settled, and not as remembered
}

// A file that passed the integrity check leaves a marker in the cache folder
// ($KTUNE_CACHE_DIR/db-integrity), so a later process skips the check; a
// changed file names another marker and is checked again, and a refused file
// leaves none.
TEST(Schema, AnIntegrityVerdictIsKeptAcrossProcessesOnlyForTheUnchangedFile) {
  TempDir dir;
  const std::string cache = dir.file("cache");
  ::setenv("KTUNE_CACHE_DIR", cache.c_str(), 1);
  const std::string path = dir.file("kept.db");
  write_400_results(path);
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec("PRAGMA journal_mode = DELETE");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  EXPECT_NO_THROW(Store::open_read_only(path));
  const auto markers = [&] {
    std::error_code ec;
    int n = 0;
    for (auto it = std::filesystem::directory_iterator(cache + "/db-integrity", ec);
         !ec && it != std::filesystem::directory_iterator(); ++it)
      ++n;
    return n;
  };
  EXPECT_EQ(markers(), 1);
  {
    // A page of garbage in the middle of the file.
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(3 * 4096);
    const std::string garbage(4096, '\xab');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  EXPECT_THROW(Store::open_read_only(path), DatabaseError);
  EXPECT_EQ(markers(), 1);  // the refused file left no marker
  ::unsetenv("KTUNE_CACHE_DIR");
}

// A file whose user_version understates its schema (a v2 file marked v1): the
// migration to v2 fails, and the file must not have been switched to WAL (or
// changed in any other way) before it did.
TEST(Schema, AFailedMigrationLeavesTheFileUntouched) {
  // Rollback-journal mode (as `ktune db checkpoint` ships a file) and WAL mode.
  for (const std::string mode : {"DELETE", "WAL"}) {
    TempDir dir;
    std::string path = dir.file("mislabelled.db");
    {
      Store store = Store::open(path);
      record_one_result(store, synthetic_device());
    }
    {
      SQLite::Database db(path, SQLite::OPEN_READWRITE);
      db.exec("PRAGMA journal_mode = " + mode);
      db.exec("PRAGMA user_version = 1");
    }
    expect_refused_untouched(path, "cannot migrate");
    EXPECT_EQ(pragma(path, "user_version"), 1) << mode;
  }
}

TEST(Schema, InitialisesAnEmptyFile) {
  TempDir dir;
  std::string path = dir.file("empty.db");
  write_bytes(path, "");
  Store store = Store::open(path);
  EXPECT_EQ(store.schema_version(), kSchemaVersion);
}

}  // namespace
}  // namespace ktune
