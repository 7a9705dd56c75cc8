// Hostile files at the database's door (issue 49): a stored row that cannot be
// read is skipped with a warning naming it while the others serve; folders,
// symlink loops and the partial file of a killed merge are refused as
// databases; processes sharing a miss log log each miss once.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "db/lookup.hpp"
#include "db/merge.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;
namespace fs = std::filesystem;

LookupRequest request(const Problem& p) { return gemm_request(p, "Synthetic GPU A"); }

/// Writes `metrics` into the stored row of `config`, as another writer could
/// have; returns the row's id.
std::int64_t overwrite_metrics(const std::string& path, const Config& config,
                               const std::string& metrics) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  SQLite::Statement id(db,
                       "SELECT r.id FROM results r JOIN configs c ON c.id = r.config_id "
                       "WHERE c.key = ?");
  id.bind(1, config.key());
  if (!id.executeStep()) return -1;
  const std::int64_t row = id.getColumn(0).getInt64();
  SQLite::Statement update(db, "UPDATE results SET metrics = ? WHERE id = ?");
  update.bind(1, metrics);
  update.bind(2, row);
  update.exec();
  return row;
}

class HostileDb : public TunedDbTest {};

// Past SQLite's JSON depth limit (1000 or 2000 levels, by version), json_extract
// fails the whole statement: one such row made every lookup fail.
TEST_F(HostileDb, ARowWhoseMetricsSqliteCannotReadIsSkippedWithAWarning) {
  const int levels = 5000;
  std::string deep;
  for (int i = 0; i < levels; ++i) deep += "{\"a\":";
  deep += "1" + std::string(levels, '}');
  const std::int64_t row = overwrite_metrics(db_, kFast, deep);
  ASSERT_GT(row, 0);
  const std::string before = read_bytes(db_);

  Lookup lookup = Lookup::open(db_);
  auto a = lookup.best(request(gemm_problem(1024, 1024, 1024)));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->config, kSlow) << "the other row still serves";
  ASSERT_EQ(lookup.warnings().size(), 1u);
  EXPECT_NE(lookup.warnings()[0].find("results row " + std::to_string(row) + " cannot be read"),
            std::string::npos)
      << lookup.warnings()[0];
  EXPECT_EQ(read_bytes(db_), before);
}

TEST_F(HostileDb, ARowWhoseMetricsAreNotJsonIsSkippedWithAWarning) {
  const std::int64_t row = overwrite_metrics(db_, kFast, "{not json");
  Lookup lookup = Lookup::open(db_);
  auto a = lookup.best(request(gemm_problem(1024, 1024, 1024)));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->config, kSlow);
  ASSERT_EQ(lookup.warnings().size(), 1u);
  EXPECT_NE(lookup.warnings()[0].find("row " + std::to_string(row)), std::string::npos);
}

TEST_F(HostileDb, AFolderOrASymlinkLoopIsNoDatabase) {
  const std::string folder = dir_.file("folder.db"), loop = dir_.file("loop.db");
  fs::create_directory(folder);
  fs::create_symlink(loop, loop);
  for (const std::string& path : {folder, loop}) {
    SCOPED_TRACE(path);
    EXPECT_THROW(Store::open(path), DatabaseError);
    EXPECT_THROW(Store::open_read_only(path), DatabaseError);
    EXPECT_THROW(Lookup::open(path), DatabaseError);
    EXPECT_THROW(Lookup::open_overlay(path, db_), DatabaseError);
    EXPECT_THROW(merge_databases({path}, dir_.file("out.db")), DatabaseError);
    EXPECT_THROW(merge_databases({db_}, path), DatabaseError);
  }
  try {
    Store::open_read_only(folder);
  } catch (const DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("is a folder"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(folder)) << "left as it was";
  EXPECT_FALSE(fs::exists(dir_.file("out.db")));
}

// A merge killed while it writes a new output leaves its partial file, a
// complete-looking SQLite file: no reader may take it for a database.
TEST_F(HostileDb, TheLeftoverOfAKilledMergeIsNoDatabase) {
  const std::string partial = dir_.file("out.db.ktune-partial-otherhost-4242-0");
  fs::copy_file(db_, partial);
  const std::string before = read_bytes(partial);
  EXPECT_THROW(Store::open_read_only(partial), DatabaseError);
  EXPECT_THROW(Store::open(partial), DatabaseError);
  EXPECT_THROW(Lookup::open(partial), DatabaseError);
  EXPECT_THROW(merge_databases({partial}, dir_.file("out.db")), DatabaseError);
  try {
    Store::open_read_only(partial);
  } catch (const DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("unfinished output of a merge"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_bytes(partial), before);
  // The merges of this process still write and publish their own partial file.
  EXPECT_EQ(merge_databases({db_}, dir_.file("out.db")).output_total, 2);
}

// Processes that miss the same problem at once log it once: each append reads
// what the others wrote under a lock on the file.
TEST_F(HostileDb, ProcessesSharingAMissLogLogEachMissOnce) {
  const std::string log = dir_.file("misses.jsonl");
  constexpr int kProcesses = 6;
  // Every process opens the log before any of them looks up: what one logs
  // is then not in the file the others read when they opened it.
  int ready[2], go[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(go), 0);
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        ::close(go[1]);
        Lookup lookup = Lookup::open(db_);
        lookup.log_misses(log);
        char byte = 1;
        if (::write(ready[1], &byte, 1) != 1 || ::read(go[0], &byte, 1) != 0) code = 2;
        for (int i = 0; i < 40; ++i) lookup.best(request(gemm_problem(1000 + i % 20, 512, 512)));
      } catch (...) {
        code = 1;
      }
      ::_exit(code);
    }
    children.push_back(pid);
  }
  for (int p = 0; p < kProcesses; ++p) {
    char byte;
    ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  }
  ::close(go[1]);  // every child reads end-of-file: go
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  for (int fd : {ready[0], ready[1], go[0]}) ::close(fd);
  std::ifstream in(log);
  std::set<std::string> distinct;
  int lines = 0;
  for (std::string line; std::getline(in, line); ++lines) distinct.insert(line);
  EXPECT_EQ(distinct.size(), 20u);
  EXPECT_EQ(lines, 20) << "each miss once";
}

}  // namespace
}  // namespace ktune
