// Schema of the tuning database: versions, forward migrations, and the checks
// that refuse foreign, corrupt or newer files before anything is written.
#pragma once

#include <SQLiteCpp/Exception.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

namespace SQLite {
class Database;
}

namespace ktune {

/// How long an opener waits for another process's lock (SQLite busy timeout).
constexpr int kBusyTimeoutMs = 60000;

/// Runs `step` again while SQLite reports the file busy or locked, for up to
/// kBusyTimeoutMs. A few lock steps of processes opening one new file together
/// (switching it to WAL, building its shared-memory index) fail at once
/// instead of waiting in the busy handler: seen as "database is locked" in
/// about 1 of 10 runs of the forked-creators test under load.
template <typename Step>
auto retry_while_busy(Step&& step) -> decltype(step()) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (int attempt = 0;; ++attempt) {
    try {
      return step();
    } catch (const SQLite::Exception& e) {
      const int code = e.getErrorCode() & 0xff;
      if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) ||
          std::chrono::steady_clock::now() >= deadline)
        throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(2 * std::min(attempt + 1, 25)));
    }
  }
}

/// Applies the forward migrations from the file's `user_version` up to
/// `target`, all steps in one transaction: a step that fails rolls every step
/// back. A fresh (empty) database starts at version 0.
void migrate(SQLite::Database& db, int target);

/// What an existing file on disk is, read without writing a byte.
struct FileInspection {
  bool exists_with_content = false;  ///< false: absent or empty, a new database
  int version = 0;                   ///< `user_version` of a ktune file
};
/// Refuses (DatabaseError naming it) a path where no database can be: one
/// that cannot be examined (a symlink loop, no permission), a folder or another
/// kind of non-file, or the partial file of another process's merge. A path
/// where nothing is yet passes.
void check_database_path(const std::string& path);
/// Reads `path` read-only (after check_database_path): refuses (DatabaseError naming the file and
/// the reason) a file that is not SQLite, not ktune (`application_id`), newer than this build, or
/// fails SQLite's quick integrity check.
/// `integrity_checked`: the caller knows this very file (same device, inode,
/// size and times) passed the integrity check before, which is then skipped.
FileInspection inspect_file(const std::string& path, bool integrity_checked = false);

/// How a read-only open reads a file.
enum class ReadOnlyAccess {
  shared,  ///< an ordinary read-only connection: reads the -wal, may create a -shm beside the file
  immutable,  ///< SQLite's immutable mode: no lock and no side file, the main file alone
};
/// Chooses how to open `path` read-only. `can_write_beside`: the file and its
/// folder are writable, so an ordinary read-only connection can create its side
/// files. Where they are not (a shipped database), the file is read immutable,
/// which would silently miss the results still in a leftover non-empty -wal and
/// read pages an interrupted write left behind a -journal: then it throws
/// DatabaseError saying to run `ktune db checkpoint` where the folder is writable.
ReadOnlyAccess read_only_access(const std::string& path, bool can_write_beside);

/// For tests and tools: creates `path` at an older schema `version` (1..kSchemaVersion)
/// so that migrations can be exercised on a real older file.
void create_database_at_version(const std::string& path, int version);

}  // namespace ktune
