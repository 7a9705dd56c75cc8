// `ktune db`: the group of the database subcommands. Each subcommand is its
// own file (db_<name>_command.cpp) that adds itself under this group, in the
// order of db_shared.hpp's DbSubcommandOrder.
#include "cli/command.hpp"

namespace ktune::cli {
namespace {

const CommandRegistrar registrar(70, [](CLI::App& app) {
  auto* db = app.add_subcommand(
      "db",
      "Inspect, share and maintain tuning databases: stats, query, diff, "
      "export, import, merge, prune, rehash, emit-dispatch, checkpoint, migrate");
  db->require_subcommand(1);
});

}  // namespace
}  // namespace ktune::cli
