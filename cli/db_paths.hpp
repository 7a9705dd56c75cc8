// Where the `ktune` commands find their databases: the user's (every command
// reads and writes the same one) and the shipped, read-only system database.
#pragma once

#include <string>

namespace ktune::cli {

/// The user's database when --db is not given: $KTUNE_DB, else ./ktune.db
/// (in the working directory). tune, record, sweep, lookup and db all use it.
std::string default_db_path();
/// How --db's help states that default.
inline constexpr const char* kDefaultDbHelp = "default $KTUNE_DB, else ./ktune.db";

/// The shipped system database that lookup falls back to: $KTUNE_SYSTEM_DB,
/// else share/ktune/ktune.db beside the binary's folder (<prefix>/bin/ktune ->
/// <prefix>/share/ktune/ktune.db; the build tree holds a copy of the
/// repository's tuning_db/ktune.db at the same place). Never a path compiled
/// into the binary: a binary copied elsewhere finds only what travels with it.
std::string default_system_db_path();

}  // namespace ktune::cli
