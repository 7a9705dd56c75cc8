// What several `ktune db` subcommands share: the --db option, the lenient
// current-hash resolver, how a best row prints, and the exchange format.
#pragma once

#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "db/current_hash.hpp"
#include "db/exchange.hpp"
#include "db/query.hpp"

namespace ktune::cli {

/// The `db` subcommands register under the group in this order (after `db`
/// itself, order 70), which is the order `ktune db --help` lists them in.
enum DbSubcommandOrder : int {
  kDbStats = 701,
  kDbQuery,
  kDbDiff,
  kDbExport,
  kDbImport,
  kDbMerge,
  kDbPrune,
  kDbRehash,
  kDbEmitDispatch,
  kDbCheckpoint,
  kDbMigrate,
  kDbCeilings,
};

/// Adds `--db PATH` (the user's database by default) to a `db` subcommand.
void add_db_option(CLI::App* cmd, std::string& path);

/// "1.23 ms": a median for the tables of `db query` and `db diff`; "-" when none.
std::string format_time(double seconds);

/// The current hash of each stored row: the hash of its kernel path's template
/// text in this build. Where the templates cannot be read (a binary without
/// them), "" after one note: the family's newest-measured version is current.
CurrentHash lenient_current_hash();

/// A `--kernel` filter: a built-in family or one the database stores; else a
/// UsageError naming both. Empty passes (every family).
void check_family_filter(const std::string& family, const StoredNames& stored);

/// The exchange format `--format` names, else the file name's ('-' is JSON Lines).
ExchangeFormat pick_format(const std::string& format, const std::string& file);

}  // namespace ktune::cli
