// `ktune sweep`: many tuning runs from one JSON file (optionally one shard of
// it), resumable, with progress per problem and a summary table; evaluation
// optionally spread over MPI ranks (--mpi) or local GPUs (--gpus, --workers).
#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "engine/local_workers.hpp"
#include "engine/mpi_sweep.hpp"
#include "engine/sweep.hpp"
#include "measure/device_query.hpp"

namespace ktune::cli {
namespace {

struct SweepArgs {
  std::string file;
  std::string shard = "0/1";
  std::string db;
  bool dry_run = false;
  std::string device =
      "sm_90";  ///< --dry-run: the built-in device whose spaces the runs are checked against
  bool mpi = false;
  std::string gpus;
  std::size_t workers = 0;
};

/// The local workers of --gpus LIST or --workers N (none: a single-process sweep).
std::vector<ktune::LocalWorker> local_workers(const SweepArgs& args) {
  using namespace ktune;
  std::vector<LocalWorker> workers;
  if (!args.gpus.empty()) {
    DeviceQuery query = query_devices();
    if (query.devices.empty())
      throw NoGpuError("--gpus: no GPU: " + query.none_reason +
                       " (a replay sweep can use local workers without a GPU: --workers N)");
    std::vector<int> visible;
    for (const LiveDevice& d : query.devices) visible.push_back(d.ordinal);
    for (int ordinal : parse_gpu_list(args.gpus, visible))
      workers.push_back({"GPU " + std::to_string(ordinal),
                         default_worker_factory([ordinal] { return ordinal; })});
  }
  for (std::size_t i = 0; i < args.workers; ++i) {
    // Worker i runs GPU items on GPU i % visible (the MPI ranks' rule); a
    // replay never asks, so replay workers need no GPU.
    auto ordinal = [i] {
      DeviceQuery query = query_devices();
      if (query.devices.empty()) throw NoGpuError("no GPU: " + query.none_reason);
      return query.devices[i % query.devices.size()].ordinal;
    };
    workers.push_back({"worker " + std::to_string(i), default_worker_factory(ordinal)});
  }
  return workers;
}

int run_items(const std::vector<SweepItem>& items, const std::string& db,
              WorkerTransport* transport);

int run_sweep_command(const SweepArgs& args) {
  if (args.mpi && (!args.gpus.empty() || args.workers > 0))
    throw UsageError(
        "--mpi cannot be combined with --gpus or --workers (each MPI rank is one worker)");
  if (!args.gpus.empty() && args.workers > 0)
    throw UsageError("give --gpus or --workers, not both");
  SweepFile sweep = read_sweep(args.file);  // validates every item before any work
  Shard shard = parse_shard(args.shard);
  std::string db = !args.db.empty() ? args.db : !sweep.db.empty() ? sweep.db : default_db_path();
  db = shard_db_path(db, shard);
  std::vector<SweepItem> items = shard_items(sweep.items, shard);
  for (SweepItem& item : items)
    item.spec.ceilings_db = db;  // its measured ceilings feed the cost model

  auto header = [&] {
    std::cout << "Sweep " << args.file << ": " << sweep.items.size() << " runs";
    if (shard.count > 1)
      std::cout << ", shard " << shard.index << "/" << shard.count << " takes " << items.size();
    std::cout << "; database " << db << "\n";
  };
  if (args.dry_run) {
    const DeviceSpec device = builtin_device_or_usage_error(args.device);
    header();
    for (const SweepItem& item : items)
      std::cout << "  [" << item.index << "] "
                << (item.spec.replay.empty() ? item.spec.kernel + " " + item.spec.problem
                                             : "replay " + item.spec.replay)
                << " (" << item.spec.strategy << ")\n";
    // What a run would refuse only on the GPU machine (start keys, sub-spaces), caught here.
    const std::vector<std::string> refused = check_items_on_device(items, device);
    if (refused.empty()) {
      std::cout << "Every run's sub-space and start configurations fit its space on " << device.name
                << " (" << device.arch() << ").\n";
      return 0;
    }
    std::cerr << refused.size() << " run(s) would be refused on " << device.name << " ("
              << device.arch() << "):\n";
    for (const std::string& why : refused) std::cerr << "  " << why << "\n";
    return 2;
  }
  if (args.mpi) {
    // Every rank reads and checks the same file (above); rank 0 alone writes
    // the database and prints; the others evaluate what it sends them.
    MpiSession session;
    if (session.rank() != 0) {
      mpi_serve(session, items);
      return 0;
    }
    std::unique_ptr<WorkerTransport> transport = make_mpi_transport(session);
    header();
    std::cout << "Evaluating on " << transport->size() << " MPI ranks (rank 0 coordinates)\n";
    return run_items(items, db, transport.get());
  }
  std::vector<LocalWorker> workers = local_workers(args);
  header();
  std::unique_ptr<WorkerTransport> transport;
  if (!workers.empty()) {
    std::cout << "Evaluating on " << workers.size() << " local workers\n";
    transport = std::make_unique<LocalWorkerTransport>(std::move(workers));
  }
  return run_items(items, db, transport.get());
}

/// Opens the database and runs the items (distributed when `transport` is set).
int run_items(const std::vector<SweepItem>& items, const std::string& db,
              WorkerTransport* transport) {
  // What `ktune lookup` answers before the sweep, from the same databases:
  // each item evaluates it first, with the family's default.
  const UntunedLookup lookup({db, default_system_db_path()});
  Store store = open_store_for_writing(db);
  StreamProgress progress(stderr);
  std::vector<SweepOutcome> outcomes =
      transport ? run_distributed_sweep(items, store, *transport, &progress, std::cout, &lookup)
                : run_sweep(items, store, &progress, std::cout, {}, &lookup);
  std::cout << "\nSummary\n";
  print_sweep_summary(std::cout, outcomes);
  std::size_t failed = std::count_if(outcomes.begin(), outcomes.end(),
                                     [](const SweepOutcome& o) { return !o.report; });
  if (failed) {
    std::cout << "\n"
              << failed << " of " << outcomes.size()
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
      "into one database; resumable. The file's format is in docs/tuning.md.");
  cmd->add_option("file", args->file, "Sweep file (JSON)")->required();
  cmd->add_option("--shard", args->shard,
                  "Run only share I of N (items whose index % N == I) into its own database "
                  "(<db>.shard-I-of-N.db); rerunning a shard resumes it")
      ->capture_default_str();
  cmd->add_option(
      "--db", args->db,
      std::string("Database (overrides the file's \"db\"; else ") + kDefaultDbHelp + ")");
  CLI::Option* dry_run = cmd->add_flag(
      "--dry-run", args->dry_run,
      "Validate the file and list this shard's runs without tuning; also check each run's "
      "sub-space "
      "and start configurations against its space on --device (exit 2 naming the runs refused)");
  // A sweep tunes on the GPUs it finds; naming a device means only the dry run's check.
  cmd->add_option("--device", args->device,
                  "With --dry-run: the built-in device (name or arch, as for `ktune space`) whose "
                  "spaces the "
                  "runs are checked against")
      ->capture_default_str()
      ->needs(dry_run);
  cmd->add_flag(
      "--mpi", args->mpi,
      "Spread evaluation over MPI ranks (mpirun -np N ktune sweep FILE --mpi): rank 0 runs the "
      "searchers and writes the database, ranks 1..N-1 evaluate (GPU items on GPU local rank % "
      "GPUs)");
  cmd->add_option(
      "--gpus", args->gpus,
      "Spread evaluation over this host's GPUs: 'all' or ordinals such as 0,2,3 (one isolated "
      "worker process per GPU, one coordinator)");
  cmd->add_option(
         "--workers", args->workers,
         "Spread evaluation over N local workers (GPU items on GPU i % visible GPUs; replay items "
         "need no GPU)")
      ->check(CLI::PositiveNumber);
  cmd->callback([args] { set_exit_code(run_sweep_command(*args)); });
});

}  // namespace
}  // namespace ktune::cli
