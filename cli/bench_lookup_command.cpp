// `ktune bench-lookup`: scores the lookup's rules on recorded spaces, leaving
// one shape out at a time (regret = recorded time of the answer / optimum).
#include <cmath>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/lookup_regret.hpp"

namespace ktune::cli {
namespace {

struct BenchLookupArgs {
  std::vector<std::string> recorded;
  std::vector<std::string> databases;
  double min_distance = PredictionRule{}.min_distance;
  bool json = false;
};

int run_bench_lookup(const BenchLookupArgs& args) {
  if (!(args.min_distance >= 0) || !std::isfinite(args.min_distance))
    throw UsageError("--min-distance must be a finite distance >= 0");
  LookupRegretOptions options;
  options.databases = args.databases;
  options.rule.min_distance = args.min_distance;
  const LookupRegretReport report = leave_one_shape_out(args.recorded, options);
  if (args.json)
    std::cout << to_json(report).dump(2) << "\n";
  else
    std::cout << format_table(report);
  return 0;
}

const CommandRegistrar registrar(72, [](CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "bench-lookup",
      "Score the lookup's rules (nearest, bucket, predicted, default, the chain) on recorded "
      "spaces, "
      "hiding each shape in turn: regret = recorded time of the answer / recorded optimum");
  auto args = std::make_shared<BenchLookupArgs>();
  cmd->add_option(
         "--recorded", args->recorded,
         "ktune recordings of registered families, one problem each (the other files answer)")
      ->required();
  cmd->add_option(
      "--db", args->databases,
      "Tuning databases layered under the recordings (they answer and teach the predictor)");
  cmd->add_option("--min-distance", args->min_distance,
                  "The chain's switch: predicted from this nearest-shape distance on (log2 space)")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print the report as JSON instead of tables");
  cmd->callback([args] { set_exit_code(run_bench_lookup(*args)); });
});

}  // namespace
}  // namespace ktune::cli
