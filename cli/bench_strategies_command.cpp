// `ktune bench-strategies`: replays search strategies against recorded
// spaces (no GPU) and reports how fast each finds the optimum.
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "engine/cost_context.hpp"
#include "search/strategy_benchmark.hpp"

namespace ktune::cli {
namespace {

struct BenchStrategiesArgs {
  std::vector<std::string> spaces;
  std::vector<std::string> strategies{"random", "evolutionary", "bayes", "auto"};
  std::vector<std::size_t> budgets{25, 50, 100, 200, 400};
  std::size_t repeats = 50;
  std::size_t batch = 1;
  std::uint64_t seed = 1;
  std::string search_options;
  std::string svg;
  bool json = false;
  bool no_cost_model = false;
  bool calibrate_on_others = false;
};

/// Cost models calibrated for each recording on the other recordings of the
/// same family and device (leave-one-out transfer: never on its own results).
std::map<std::string, RooflineModel> calibrate_on_others(
    const std::vector<std::shared_ptr<const RecordedSpace>>& spaces) {
  std::map<std::string, RooflineModel> out;
  for (const auto& target : spaces) {
    auto in = model_inputs_of(*target);
    if (!in) continue;
    std::vector<WorkEstimate> work;
    std::vector<double> times;
    for (const auto& other : spaces) {
      if (other == target || other->family != target->family ||
          other->device_name != target->device_name)
        continue;
      auto other_in = model_inputs_of(*other);
      if (!other_in) continue;
      const KernelFamily* family = other_in->family;
      const DeviceSpec device = other_in->device;
      const Problem problem = other->problem;
      auto estimate = [family, problem, device](const Config& c) {
        return family->estimate(problem, c, device);
      };
      for (const auto& [key, r] : other->results) {
        if (!r.ok()) continue;
        try {
          work.push_back(estimate(r.config));
          times.push_back(r.time.median_s);
        } catch (const std::exception&) {
          // a configuration the family cannot estimate teaches nothing
        }
      }
    }
    if (work.empty()) continue;
    RooflineModel model(in->device);
    model.calibrate(work, times);
    out.emplace(target->source, std::move(model));
  }
  return out;
}

// A recording of a ktune family on a known device gets the family's roofline
// (what `ktune tune` gives its searcher), calibrated on the other recordings
// when asked; foreign recordings get none.
void attach_recording_cost_model(const RecordedSpace& rec, SearchContext& context,
                                 const std::map<std::string, RooflineModel>& calibrated) {
  auto in = model_inputs_of(rec);
  if (!in) return;
  attach_cost_model(context, *in->family, rec.problem, in->device);
  if (!context.work_estimate || !context.roofline) return;
  auto it = calibrated.find(rec.source);
  if (it != calibrated.end()) context.roofline = it->second;
  context.predicted_time = [estimate = context.work_estimate,
                            model = *context.roofline](const Config& c) {
    try {
      return model.predict(estimate(c)).time_s;
    } catch (const std::exception&) {
      return std::numeric_limits<double>::infinity();
    }
  };
}

int run_bench_strategies(const BenchStrategiesArgs& args) {
  StrategyBenchmarkOptions opt;
  opt.strategies = args.strategies;
  opt.budgets = args.budgets;
  opt.repeats = args.repeats;
  opt.batch = args.batch;
  opt.seed = args.seed;
  if (!args.search_options.empty()) opt.search_options = ValueMap::parse(args.search_options);
  for (std::size_t b : opt.budgets)
    if (b == 0) throw UsageError("--budgets: a budget must be at least 1");
  if (opt.repeats == 0) throw UsageError("--repeats must be at least 1");
  if (opt.batch == 0) throw UsageError("--batch must be at least 1");
  std::vector<std::shared_ptr<const RecordedSpace>> spaces;
  for (const auto& path : args.spaces) {
    auto rs = std::make_shared<RecordedSpace>(read_recorded_space(path));
    if (!rs->optimum())
      throw UsageError(path + ": no configuration was measured ok; nothing to benchmark");
    spaces.push_back(std::move(rs));
  }
  if (args.calibrate_on_others && args.no_cost_model)
    throw UsageError("--calibrate-on-others needs a cost model: drop --no-cost-model");
  if (!args.no_cost_model) {
    auto calibrated = std::make_shared<const std::map<std::string, RooflineModel>>(
        args.calibrate_on_others ? calibrate_on_others(spaces)
                                 : std::map<std::string, RooflineModel>{});
    opt.cost_model = [calibrated](const RecordedSpace& rec, SearchContext& context) {
      attach_recording_cost_model(rec, context, *calibrated);
    };
  }
  const StrategyBenchmarkReport report = run_strategy_benchmark(spaces, opt);
  if (args.json)
    std::cout << to_json(report).dump(2) << "\n";
  else
    std::cout << format_table(report);
  if (!args.svg.empty()) {
    std::ofstream out(args.svg);
    if (!out) throw std::runtime_error("cannot write the plot to " + args.svg);
    out << render_svg(report);
    if (!args.json) std::cout << "convergence plot written to " << args.svg << "\n";
  }
  return 0;
}

const CommandRegistrar registrar(70, [](CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "bench-strategies",
      "Benchmark search strategies on recorded spaces (replay, no GPU): fraction of the optimum\n"
      "reached per budget, evaluations to reach 90/95/99% of it, and the methodology score\n"
      "relative to random search (0 = random, 1 = optimum at once)");
  auto args = std::make_shared<BenchStrategiesArgs>();
  cmd->add_option("--space", args->spaces,
                  "Recorded space files: ktune recordings, Kernel Tuner cache files or T4 results "
                  "(the format is told from the content)")
      ->required();  // a missing file is reported by the reader (exit 2)
  cmd->add_option("--strategies", args->strategies,
                  "Comma-separated strategies: auto, random, exhaustive, evolutionary, bayes, "
                  "bayes-lcb, model")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--budgets", args->budgets, "Comma-separated evaluation budgets (failures count)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--repeats", args->repeats, "Runs per strategy (different seeds)")
      ->capture_default_str();
  cmd->add_option("--batch", args->batch,
                  "Configurations per proposal (the compile pipeline's batch)")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Base seed; the same seed gives the same report")
      ->capture_default_str();
  cmd->add_option("--search-options", args->search_options,
                  "Strategy knobs as name=value,... e.g. population=30,acquisition=lcb,batch=liar");
  cmd->add_option("--svg", args->svg, "Write a convergence plot (SVG) to this file");
  cmd->add_flag("--json", args->json, "Print the full report as JSON instead of tables");
  cmd->add_flag("--no-cost-model", args->no_cost_model,
                "Give the strategies no roofline model, even for recordings of ktune families");
  cmd->add_flag("--calibrate-on-others", args->calibrate_on_others,
                "Calibrate each recording's cost model on the other --space recordings of the same "
                "family and "
                "device (leave-one-out transfer; never on its own results)");
  cmd->callback([args] { set_exit_code(run_bench_strategies(*args)); });
});

}  // namespace
}  // namespace ktune::cli
