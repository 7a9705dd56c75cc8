// `ktune space`: shows the search space of a kernel family for a problem and a
// device (or of a JSON space file): parameters, constraints, sizes, samples.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/user_kernel_option.hpp"
#include "engine/tune_job.hpp"
#include "kernels_templated/family.hpp"
#include "space/device_spec.hpp"
#include "space/space.hpp"

namespace ktune::cli {
namespace {

struct SpaceArgs {
  std::string kernel;
  std::string problem;
  std::string device = "sm_90";
  std::string space_file;
  std::string spec_file;  ///< a user kernel's description
  std::vector<std::string> require;
  std::size_t sample = 0;
  std::uint64_t seed = 1;
  bool as_json = false;
};

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string values_text(const Parameter& p) {
  const auto& v = p.values();
  auto text = [](const Value& x) { return to_text(x); };
  switch (p.kind()) {
    case ParamKind::int_range:
      if (v.size() > 6)
        return text(v.front()) + ".." + text(v.back()) + " step " +
               std::to_string(std::get<std::int64_t>(v[1]) - std::get<std::int64_t>(v[0])) + " (" +
               std::to_string(v.size()) + " values)";
      break;
    case ParamKind::pow2_range:
      if (v.size() > 6) return text(v.front()) + ".." + text(v.back()) + " powers of two";
      break;
    default:
      break;
  }
  std::vector<std::string> items;
  for (std::size_t k = 0; k < v.size() && k < 12; ++k) items.push_back(text(v[k]));
  if (v.size() > 12) items.push_back("... (" + std::to_string(v.size()) + " values)");
  return join(items, ", ");
}

Space load_space_file(const std::string& path, const ValueMap& extra_constants) {
  std::ifstream in(path);
  if (!in) throw UsageError("cannot read space file '" + path + "'");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError("space file '" + path + "' is not JSON: " + e.what());
  }
  return Space::from_json(j, extra_constants);
}

int run_space(SpaceArgs args) {
  if (!args.spec_file.empty()) args.kernel = user_family_name(args.kernel, args.spec_file);
  if (args.kernel.empty() == args.space_file.empty())
    throw UsageError(
        "give either --kernel FAMILY (with --problem), --spec FILE.json or --space FILE.json");

  std::string title;
  std::optional<Space> space;
  try {
    if (!args.space_file.empty()) {
      ValueMap constants;
      try {
        constants = ValueMap::parse(args.problem);
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("malformed --problem: ") + e.what());
      }
      space = load_space_file(args.space_file, constants);
      title = "space from " + args.space_file;
    } else {
      const KernelFamily& family = find_family(args.kernel);
      if (args.problem.empty() && args.spec_file.empty())
        throw UsageError("--kernel " + args.kernel + " needs --problem (" +
                         std::string(family.problem_help()) + ")");
      const Problem problem = parse_problem(family, args.problem);
      const DeviceSpec device = builtin_device_or_usage_error(args.device);
      space = family.space(problem, device);
      check_user_kernel_source(family, problem, device, device.arch());
      title = std::string(family.name()) + " for " + problem.key() + " on " + device.name + " (" +
              device.arch() + ")";
    }
    space->require_nonempty();
    restrict_space(*space, args.require);  // throws std::invalid_argument: a usage error
  } catch (const SpaceError& e) {
    throw UsageError(e.what());
  }

  if (args.as_json) {
    std::cout << space->to_json().dump(2) << "\n";
    return 0;
  }
  if (args.sample > 0) {
    for (const Config& c : space->sample(args.sample, args.seed))
      std::cout << c.to_json().dump() << "\n";
    return 0;
  }

  std::cout << "Search space: " << title << "\n";
  if (!args.require.empty())
    std::cout << "sub-space (--require, the last constraints below): "
              << describe_sub_space(args.require) << "\n";
  if (!space->constants().empty()) {
    std::vector<std::string> items;
    for (const auto& [k, v] : space->constants()) items.push_back(k + "=" + to_text(v));
    std::cout << "constants: " << join(items, ", ") << "\n";
  }
  std::cout << "\nparameters (" << space->parameters().size() << "):\n";
  std::size_t width = 4;
  for (const auto& p : space->parameters()) width = std::max(width, p.name().size());
  for (const auto& p : space->parameters()) {
    std::printf("  %-*s  %-11s  %s  [default %s]", static_cast<int>(width), p.name().c_str(),
                std::string(to_string(p.kind())).c_str(), values_text(p).c_str(),
                to_text(p.default_value()).c_str());
    if (!p.description().empty()) std::printf("  %s", p.description().c_str());
    std::printf("\n");
  }
  std::cout << "\nconstraints (" << space->constraints().size() << "):\n";
  for (const auto& c : space->constraints()) {
    if (c.expression.empty())
      std::cout << "  " << c.description << "  [C++ over " << join(c.names, ", ") << "]\n";
    else if (c.description == c.expression)
      std::cout << "  " << c.expression << "\n";
    else
      std::cout << "  " << c.description << ": " << c.expression << "\n";
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t valid = space->count_valid();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cartesian = space->cartesian_size();
  std::printf("\nCartesian points: %.0f\n", cartesian);
  std::printf("valid configurations: %llu (%.3g%% of the Cartesian product)\n",
              static_cast<unsigned long long>(valid),
              100.0 * static_cast<double>(valid) / cartesian);
  std::printf("enumeration (count_valid, pruned, all cores): %.3f s\n", elapsed);
  std::cout << "default configuration: " << space->default_config().key() << "\n";
  return 0;
}

const CommandRegistrar registrar(30, [](CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "space",
      "Show a search space: parameters and their values, constraints, Cartesian and valid counts "
      "and the enumeration time; or sample valid configurations, or print the space as JSON");
  auto args = std::make_shared<SpaceArgs>();
  cmd->add_option("--kernel", args->kernel, "Kernel family (gemm, reduce, softmax, rmsnorm, ...)");
  cmd->add_option("--problem", args->problem,
                  "Problem keys, e.g. m=4096,n=4096,k=4096,dtype=bf16 (with --space: constants "
                  "added to the file's)");
  cmd->add_option("--device", args->device,
                  "Built-in device whose limits shape the space: arch (sm_90, sm_80, ...), name or "
                  "a fragment of it (h200)")
      ->capture_default_str();
  cmd->add_option(
      "--spec", args->spec_file,
      "A user kernel's JSON description (docs/user-kernels.md); --problem defaults to its sizes");
  cmd->add_option("--space", args->space_file,
                  "Read the space from a JSON file (see space/README.md) "
                  "instead of a kernel family");
  cmd->add_option(
         "--require", args->require,
         "Show only the sub-space where this expression holds (the expression language of "
         "space/README.md; repeatable, all must hold): what `ktune tune --require` would tune")
      ->allow_extra_args(false);
  cmd->add_option("--sample", args->sample,
                  "Print N distinct valid configurations, one JSON object a line");
  cmd->add_option("--seed", args->seed, "Seed of --sample")->capture_default_str();
  cmd->add_flag("--json", args->as_json, "Print the space in its JSON form");
  cmd->callback([args] { set_exit_code(run_space(*args)); });
});

}  // namespace
}  // namespace ktune::cli
