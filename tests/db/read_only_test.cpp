// Read-only opens never miss results left in a -wal or behind a -journal, and
// `checkpoint_for_shipping` makes the file alone hold every result.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include "db/schema.hpp"
#include "db/store.hpp"
#include "db/store_impl.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;
namespace fs = std::filesystem;

constexpr int kInWal = 60;

// Copies into `to` a database whose first result is in the main file and the
// next kInWal results only in its -wal, as a writer killed before its
// checkpoint leaves it (the copy is taken while the writer still has it open).
void make_database_with_rows_in_its_wal(const TempDir& scratch, const std::string& to) {
  const std::string path = scratch.file("writer.db");
  {
    Store store = Store::open(path);
    record_one_result(store, synthetic_device());
  }  // closed: checkpointed into the main file
  Store store = Store::open(path);
  store.impl().db.exec("PRAGMA wal_autocheckpoint = 0");
  std::vector<Result> batch;
  for (int i = 0; i < kInWal; ++i)
    batch.push_back(ok_result(tile_config(32, 8 + i), 1e-3 + i * 1e-6));
  store.record(gemm_key(gemm_problem(512, 512, 512)), batch, test_provenance());
  fs::copy_file(path, to);
  fs::copy_file(path + "-wal", to + "-wal");
  ASSERT_GT(fs::file_size(to + "-wal"), 0u);
}

std::int64_t rows_in_main_file_alone(const std::string& path) {
  SQLite::Database db("file:" + path + "?immutable=1", SQLite::OPEN_READONLY | SQLite::OPEN_URI);
  return db.execAndGet("SELECT count(*) FROM results").getInt64();
}

TEST(ReadOnlyOpen, ALeftoverWalIsReadWhereTheFolderIsWritable) {
  TempDir scratch, shipped;
  const std::string path = shipped.file("ktune.db");
  make_database_with_rows_in_its_wal(scratch, path);
  EXPECT_EQ(rows_in_main_file_alone(path), 1);  // what immutable mode would have served
  EXPECT_EQ(read_only_access(path, true), ReadOnlyAccess::shared);
  EXPECT_EQ(Store::open_read_only(path).result_count(), 1 + kInWal);
}

TEST(ReadOnlyOpen, ALeftoverWalInAReadOnlyFolderIsRefusedNotMissed) {
  TempDir scratch, shipped;
  const std::string path = shipped.file("ktune.db");
  make_database_with_rows_in_its_wal(scratch, path);
  // The decision a read-only folder gets (tests may run as root, whom chmod
  // does not stop: the decision is checked on its own as well).
  try {
    read_only_access(path, false);
    FAIL() << "a -wal beside a file in a read-only folder was accepted";
  } catch (const DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("ktune db checkpoint " + path), std::string::npos)
        << e.what();
  }
  ASSERT_EQ(::chmod(shipped.path().c_str(), 0555), 0);
  if (::access(shipped.path().c_str(), W_OK) != 0) {
    EXPECT_THROW(Store::open_read_only(path), DatabaseError);
  } else {
    // Root writes anyway: the open reads the -wal, never missing its rows.
    EXPECT_EQ(Store::open_read_only(path).result_count(), 1 + kInWal);
  }
  ::chmod(shipped.path().c_str(), 0755);
}

TEST(ReadOnlyOpen, AnInterruptedWritesJournalInAReadOnlyFolderIsRefused) {
  TempDir dir;
  const std::string path = dir.file("ktune.db");
  { Store store = Store::open(path); }
  write_bytes(path + "-journal", std::string(512, '\x01'));
  EXPECT_THROW(read_only_access(path, false), DatabaseError);
  write_bytes(path + "-journal", "");  // an empty journal holds nothing
  EXPECT_EQ(read_only_access(path, false), ReadOnlyAccess::immutable);
  fs::remove(path + "-journal");
  EXPECT_EQ(read_only_access(path, false), ReadOnlyAccess::immutable);
}

TEST(ReadOnlyOpen, CheckpointMakesTheFileAloneHoldEveryResult) {
  TempDir scratch, shipped;
  const std::string path = shipped.file("ktune.db");
  make_database_with_rows_in_its_wal(scratch, path);
  EXPECT_EQ(checkpoint_for_shipping(path), 1 + kInWal);
  EXPECT_FALSE(fs::exists(path + "-wal"));
  EXPECT_EQ(read_only_access(path, false), ReadOnlyAccess::immutable);
  EXPECT_EQ(rows_in_main_file_alone(path), 1 + kInWal);
  {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    EXPECT_EQ(db.execAndGet("PRAGMA journal_mode").getString(), "delete");
  }
  // Writing again switches it back to WAL and keeps everything.
  Store store = Store::open(path);
  EXPECT_EQ(store.impl().db.execAndGet("PRAGMA journal_mode").getString(), "wal");
  EXPECT_EQ(store.result_count(), 1 + kInWal);
}

TEST(ReadOnlyOpen, CheckpointNeverCreatesADatabase) {
  TempDir dir;
  EXPECT_THROW(checkpoint_for_shipping(dir.file("absent.db")), DatabaseError);
  EXPECT_FALSE(fs::exists(dir.file("absent.db")));
}

}  // namespace
}  // namespace ktune
