// Schema of the tuning database: versions, forward migrations, and the checks
// that refuse foreign, corrupt or newer files before anything is written.
#pragma once

#include <string>

namespace SQLite {
class Database;
}

namespace ktune {

/// Applies the forward migrations from the file's `user_version` up to
/// `target` (kSchemaVersion by default), each step in its own transaction.
/// A fresh (empty) database starts at version 0.
void migrate(SQLite::Database& db, int target);

/// What an existing file on disk is, read without writing a byte.
struct FileInspection {
  bool exists_with_content = false;  ///< false: absent or empty, a new database
  int version = 0;                   ///< `user_version` of a ktune file
};
/// Reads `path` read-only: refuses (DatabaseError naming the file and the
/// reason) a file that is not SQLite, not ktune (`application_id`), newer than
/// this build, or fails SQLite's quick integrity check.
FileInspection inspect_file(const std::string& path);

/// For tests and tools: creates `path` at an older schema `version` (1..kSchemaVersion)
/// so that migrations can be exercised on a real older file.
void create_database_at_version(const std::string& path, int version);

}  // namespace ktune
