// `ktune db migrate`: upgrade a database to this build's schema version.
#include <cstdio>
#include <memory>

#include "cli/command.hpp"
#include "cli/db_shared.hpp"
#include "db/store.hpp"

namespace ktune::cli {
namespace {

int run_migrate(const std::string& path) {
  Store store = Store::open(path);  // migrates forward on open
  std::printf("%s is at schema version %d\n", path.c_str(), store.schema_version());
  return 0;
}

const CommandRegistrar registrar(kDbMigrate, [](CLI::App& app) {
  auto file = std::make_shared<std::string>();
  auto* migrate = app.get_subcommand("db")->add_subcommand(
      "migrate", "Upgrade a database to this build's schema version");
  migrate->add_option("database", *file, "Database to upgrade")->required();
  migrate->callback([file] { set_exit_code(run_migrate(*file)); });
});

}  // namespace
}  // namespace ktune::cli
