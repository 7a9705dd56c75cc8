// `ktune sweep`: many tuning runs from one JSON file (optionally one shard of
// it), resumable, with progress per problem and a summary table.
#include <algorithm>
#include <iostream>
#include <memory>

#include "engine/cli/command.hpp"
#include "engine/sweep.hpp"

namespace ktune::cli {
namespace {

struct SweepArgs {
  std::string file;
  std::string shard = "0/1";
  std::string db;
  bool dry_run = false;
};

int run_sweep_command(const SweepArgs& args) {
  SweepFile sweep = read_sweep(args.file);  // validates every item before any work
  Shard shard = parse_shard(args.shard);
  std::string db = !args.db.empty() ? args.db : !sweep.db.empty() ? sweep.db : "out/ktune.db";
  db = shard_db_path(db, shard);
  std::vector<SweepItem> items = shard_items(sweep.items, shard);

  std::cout << "Sweep " << args.file << ": " << sweep.items.size() << " runs";
  if (shard.count > 1) std::cout << ", shard " << shard.index << "/" << shard.count << " takes " << items.size();
  std::cout << "; database " << db << "\n";
  if (args.dry_run) {
    for (const SweepItem& item : items)
      std::cout << "  [" << item.index << "] "
                << (item.spec.replay.empty() ? item.spec.kernel + " " + item.spec.problem
                                             : "replay " + item.spec.replay)
                << " (" << item.spec.strategy << ")\n";
    return 0;
  }
  Store store = open_store_for_writing(db);
  StreamProgress progress(stderr);
  std::vector<SweepOutcome> outcomes = run_sweep(items, store, &progress, std::cout);
  std::cout << "\nSummary\n";
  print_sweep_summary(std::cout, outcomes);
  std::size_t failed = std::count_if(outcomes.begin(), outcomes.end(),
                                     [](const SweepOutcome& o) { return !o.report; });
  if (failed) {
    std::cout << "\n" << failed << " of " << outcomes.size()
              << " runs could not run (see above); rerunning the sweep resumes the others.\n";
    return 1;
  }
  return 0;
}

const CommandRegistrar registrar(25, [](CLI::App& app) {
  auto args = std::make_shared<SweepArgs>();
  auto* cmd = app.add_subcommand(
      "sweep",
      "Tune many problems (and families, and replays) listed in a JSON file, one after another, "
      "into one database; resumable. The file's format is in engine/README.md.");
  cmd->add_option("file", args->file, "Sweep file (JSON)")->required();
  cmd->add_option("--shard", args->shard,
                  "Run only share I of N (items whose index % N == I) into its own database "
                  "(<db>.shard-I-of-N.db); rerunning a shard resumes it")
      ->capture_default_str();
  cmd->add_option("--db", args->db, "Database (overrides the file's \"db\"; default out/ktune.db)");
  cmd->add_flag("--dry-run", args->dry_run, "Validate the file and list this shard's runs without tuning");
  cmd->callback([args] { set_exit_code(run_sweep_command(*args)); });
});

}  // namespace
}  // namespace ktune::cli
