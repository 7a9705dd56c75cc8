// `ktune tune`: tunes one problem of one kernel family on the GPU (or replays
// a recording), storing every result in the tuning database.
#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "cli/compile_only_command.hpp"
#include "cli/user_kernel_option.hpp"
#include "db/store.hpp"
#include "engine/tune_job.hpp"
#include "space/name_list.hpp"

namespace ktune::cli {
namespace {

struct TuneArgs {
  TuneSpec spec;
  std::string db = default_db_path();
  std::string time;
  std::size_t top = 10;
  bool no_resume = false;
  bool no_warm_start = false;
  std::string objective = "time";
  std::string spec_file;  ///< a user kernel's description (instead of --kernel)
  bool compile_only = false;
  std::string arch;  ///< --compile-only's target: an arch or a built-in device name
  bool as_json = false;
};

void print_plan(const PreparedTune& job, const std::string& db) {
  const TuneSpec& s = job.spec;
  // The first two lines are read by scripts (scripts/main-job): keep their form.
  std::cout << "Tuning " << job.label << "\n";
  std::cout << "  device: " << job.device.name;
  if (job.device.cc_major > 0) std::cout << " (" << job.device.arch() << ")";
  std::cout << "\n";
  if (job.recording)
    std::cout << "  replaying " << s.replay << " (" << to_string(job.recording->format) << ", "
              << job.recording->results.size() << " recorded configurations; no GPU work)\n";
  else
    std::cout << "  on GPU " << s.device
              << ", each candidate compiled, verified and timed in a worker process\n";
  if (s.profile && job.recording)
    std::cout << "  note: --profile has no effect on a replay (nothing runs on a GPU)\n";
  else if (s.profile)
    std::cout << "  profiling each verified configuration once more after timing (CUPTI, kernel "
                 "replay)\n";
  if (!s.require.empty())
    std::cout << "  sub-space: " << describe_sub_space(s.require)
              << " (stored results outside it are not reused)\n";
  std::cout << "  strategy " << s.strategy << ", seed " << s.seed;
  if (s.options.budget) std::cout << ", budget " << s.options.budget << " evaluations";
  if (s.options.time_limit_s > 0)
    std::cout << ", time limit " << format_clock(s.options.time_limit_s);
  if (s.options.patience) std::cout << ", patience " << s.options.patience;
  std::cout << ", batch " << s.options.batch_size << "\n";
  if (s.options.objective != Objective::time)
    std::cout
        << "  objective " << to_string(s.options.objective)
        << (s.options.objective == Objective::energy ? " (joules per launch"
                                                     : " (joules x seconds per launch")
        << ", NVML's total energy counter; stored results without energy are measured again)\n";
  std::cout << "  database " << db << (s.options.resume ? " (resuming)" : " (not resuming)")
            << "\n";
  print_untuned_plan(std::cout, job);
  std::cout << std::flush;
}

void print_outcome(const PreparedTune& job, const TuneReport& report, std::size_t top) {
  std::cout << "\nStopped: " << to_string(report.stop) << ". " << report.measured.size()
            << " evaluated in this run (" << report.failures << " failed)";
  if (!report.reused.empty())
    std::cout << ", " << report.reused.size() << " stored results reused without re-measuring";
  if (report.skipped_invalid)
    std::cout << ", " << report.skipped_invalid << " invalid proposals skipped";
  if (report.warm_started)
    std::cout << ", " << report.warm_started
              << " results of related problems given to the searcher as hints";
  std::cout << "; " << format_clock(report.elapsed_s) << " elapsed.\n\n";
  print_results_table(std::cout, top_results(job, report, top), throughput_for(job, report));
  if (!report.best)
    std::cout << "\nNo configuration was verified: nothing can be served for this problem.\n";
  const std::string untuned =
      describe_untuned(compare_to_untuned(job, report), job.spec.options.objective);
  if (!untuned.empty()) std::cout << "\n" << untuned << ".\n";
  if (job.recording)
    std::cout << "\n(Replayed measurements from " << job.spec.replay << "; provenance source '"
              << job.provenance.source << "'.)\n";
}

int run_tune(TuneArgs& args) {
  TuneSpec& spec = args.spec;
  if (!args.spec_file.empty()) {
    spec.kernel = user_family_name(spec.kernel, args.spec_file);
    // A description's default sizes make --problem optional.
    if (spec.problem.empty()) try {
        spec.problem = find_family(spec.kernel).normalize({}).key();
      } catch (const ProblemError&) {
        // Some size has no default: validate_tune_spec names the missing problem.
      }
  }
  if (args.compile_only)
    return run_compile_only(spec, args.arch.empty() ? "sm_90" : args.arch, args.as_json);
  if (!args.arch.empty() || args.as_json)
    throw UsageError("--arch and --json go with --compile-only");
  if (!args.time.empty()) spec.options.time_limit_s = parse_duration_s(args.time);
  spec.options.resume = !args.no_resume;
  spec.options.warm_start = !args.no_warm_start;
  spec.ceilings_db = args.db;
  spec.options.objective = objective_from_string(args.objective);

  std::unique_ptr<PreparedTune> job;
  try {
    job = prepare_tune(spec);
  } catch (const NoGpuError& e) {
    std::cerr << "ktune tune: " << e.what() << ".\n";
    return 1;
  }
  if (job->family && !job->recording)
    check_user_kernel_source(*job->family, job->problem, job->device, job->device.arch());
  {
    // What `ktune lookup` would answer before this run, from the same databases.
    const UntunedLookup lookup({args.db, default_system_db_path()});
    choose_untuned(*job, &lookup);
  }
  Store store = open_store_for_writing(args.db);  // only now: bad input leaves it untouched
  print_plan(*job, args.db);
  StreamProgress progress(stderr);
  TuneReport report = run_prepared_tune(*job, store, &progress);
  print_outcome(*job, report, args.top);
  return 0;
}

const CommandRegistrar registrar(20, [](CLI::App& app) {
  auto args = std::make_shared<TuneArgs>();
  auto* cmd = app.add_subcommand(
      "tune",
      "Tune one problem of a kernel family: propose, compile, verify and time configurations on "
      "the "
      "GPU (or answer them from a recording with --replay), storing every result in the database. "
      "Resumes from what the database already holds.");
  cmd->add_option("--kernel", args->spec.kernel,
                  "Kernel family (" + name_list(family_names()) +
                      "); optional with --replay of a file that defines its space");
  cmd->add_option(
      "--spec", args->spec_file,
      "A user kernel: its JSON description (docs/user-kernels.md), instead of --kernel");
  cmd->add_option("--problem", args->spec.problem,
                  "Problem keys, e.g. \"m=4096,n=4096,k=4096,dtype=bf16,layout=nt\"");
  cmd->add_option("--strategy", args->spec.strategy,
                  "Search strategy: " + name_list(searcher_names()))
      ->capture_default_str();
  cmd->add_option("--budget", args->spec.options.budget,
                  "Evaluations in this run (failed ones count; reused stored results do not)");
  cmd->add_option("--time", args->time,
                  "Time limit: seconds, or 90s, 15m, 2h (the batch in flight finishes)");
  cmd->add_option("--db", args->db,
                  std::string("Tuning database to read and write (") + kDefaultDbHelp + ")");
  cmd->add_option("--replay", args->spec.replay,
                  "Answer from a recorded space instead of the GPU (ktune recording, Kernel Tuner "
                  "cache or T4 file)");
  cmd->add_flag(
      "--profile", args->spec.profile,
      "After timing each verified configuration, profile one more launch with CUPTI (DRAM bytes, "
      "speed of light, occupancy, L2 hit rate) and classify it memory, compute or latency bound; "
      "stored in the result's metrics (GPU only; the replays cost time, never the timed figures)");
  cmd->add_option(
         "--require", args->spec.require,
         "Tune only the sub-space where this expression holds, in the space's expression language "
         "(e.g. \"VEC == 8 && SMEM == 'xor'\"; repeatable, all must hold; see `ktune space`)")
      ->allow_extra_args(false);
  cmd->add_option(
         "--start", args->spec.start,
         "Evaluate this configuration first, after the family's default and the lookup's answer "
         "(a canonical key, e.g. from a bench; repeatable, in order; must be valid in the space; "
         "counts against the budget)")
      ->allow_extra_args(false);
  cmd->add_option(
         "--objective", args->objective,
         "What to minimise: time (median per launch), energy (board joules per launch, NVML's "
         "total energy counter) or edp (energy x time); energy and edp store each result's "
         "energy (see --energy)")
      ->capture_default_str()
      ->check(CLI::IsMember({"time", "energy", "edp"}));
  cmd->add_flag(
      "--energy", args->spec.energy,
      "Store each result's energy under objective time too (NVML's counter over a window of "
      "at least 0.2 s of back-to-back launches per configuration: GPU time the timing does "
      "not need)");
  cmd->add_option("--batch", args->spec.options.batch_size,
                  "Configurations per batch (one DB transaction each)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", args->spec.seed, "Seed of the search strategy")->capture_default_str();
  cmd->add_option("--patience", args->spec.options.patience,
                  "Stop after this many evaluations without a new best (0: off)")
      ->capture_default_str();
  cmd->add_flag(
      "--no-resume", args->no_resume,
      "Ignore stored results for this problem and measure again (results are still stored)");
  cmd->add_flag("--no-warm-start", args->no_warm_start,
                "Do not give the searcher the best results of related shapes or devices as hints");
  cmd->add_option("--source", args->spec.source,
                  "Provenance label stored with every result (team, machine)");
  cmd->add_option("--device", args->spec.device, "CUDA device ordinal (GPU only)")
      ->capture_default_str();
  cmd->add_flag(
      "--compile-only", args->compile_only,
      "Only compile, with NVRTC and no GPU: --budget N sampled configurations (seeded), or the "
      "whole "
      "sub-space given by --require; report registers, spills, shared memory and compile errors "
      "(exit 0: all compiled, 1: some failed). Nothing is stored");
  cmd->add_option(
      "--arch", args->arch,
      "--compile-only's target: an architecture (sm_90a, sm_90, sm_80) or a built-in device's name "
      "(h200); default sm_90");
  cmd->add_flag("--json", args->as_json, "With --compile-only: print the report as JSON");
  cmd->add_option("--top", args->top, "Rows of the final table")->capture_default_str();
  cmd->callback([args] { set_exit_code(run_tune(*args)); });
});

}  // namespace
}  // namespace ktune::cli
