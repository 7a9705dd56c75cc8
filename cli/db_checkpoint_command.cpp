// `ktune db checkpoint`: fold the write-ahead log into the database file and
// leave WAL mode, so the file alone can be shipped.
#include <cstdio>
#include <memory>

#include "cli/command.hpp"
#include "cli/db_shared.hpp"
#include "db/store.hpp"

namespace ktune::cli {
namespace {

int run_checkpoint(const std::string& path) {
  const std::int64_t results = checkpoint_for_shipping(path);
  std::printf(
      "%s: %lld results, all in the file itself (no -wal), rollback-journal mode: ready to ship, "
      "readable from a read-only folder\n",
      path.c_str(), (long long)results);
  return 0;
}

const CommandRegistrar registrar(kDbCheckpoint, [](CLI::App& app) {
  auto file = std::make_shared<std::string>();
  auto* checkpoint = app.get_subcommand("db")->add_subcommand(
      "checkpoint",
      "Fold the write-ahead log into the database file and leave "
      "WAL mode, so the file alone can be shipped (read-only "
      "folders read it as is)");
  checkpoint->add_option("database", *file, "Database to prepare")->required();
  checkpoint->callback([file] { set_exit_code(run_checkpoint(*file)); });
});

}  // namespace
}  // namespace ktune::cli
