// `ktune lookup`: the best tuned configuration for one problem on one GPU,
// from the user's database over the shipped system one, with its provenance.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/asked_device.hpp"
#include "cli/command.hpp"
#include "cli/user_kernel_option.hpp"
#include "compile/compiler.hpp"
#include "db/lookup.hpp"
#include "kernels_templated/family.hpp"
#include "lookup/lookup_predictor.hpp"
#include "lookup/lookup_predictor_cache.hpp"
#include "lookup/lookup_validity.hpp"
#include "measure/device_query.hpp"

namespace ktune::cli {
namespace {

struct LookupOptions {
  std::string kernel, problem, device, db, system_db;
  std::string spec;        ///< a user kernel's description, in place of --kernel
  std::string hash;        ///< serve this template version instead of the current templates'
  std::string log_misses;  ///< append the problem here when no exact measurement answers it
  bool json = false;
  bool deterministic = false;      ///< serve only results verified bit-for-bit repeatable
  std::string objective = "time";  ///< time, energy or edp: what "best" means
  bool no_predict = false;         ///< answer unmeasured shapes with the nearest, not the model
  bool own_only = false;           ///< only the asked GPU's own measurements, no sibling's
  bool verbose = false;            ///< what each step cost, on stderr
  double min_distance = PredictionRule{}.min_distance;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run_lookup(LookupOptions o) {
  if (!o.spec.empty()) o.kernel = user_family_name(o.kernel, o.spec);
  if (o.kernel.empty()) throw UsageError("give --kernel FAMILY or --spec FILE");
  // A description's sizes have defaults, as in `ktune space` and `ktune tune`.
  if (o.problem.empty() && o.spec.empty())
    throw UsageError("--kernel " + o.kernel + " needs --problem");
  LookupRequest req;
  req.family = o.kernel;
  req.deterministic_only = o.deterministic;
  req.objective = objective_from_string(o.objective);
  const KernelFamily* family = nullptr;
  std::string not_built_in;  ///< find_family's refusal, for a family that is not built in
  try {
    family = &find_family(o.kernel);
  } catch (const std::invalid_argument& e) {
    not_built_in = e.what();
  }
  req.problem = family ? parse_problem(*family, o.problem) : ValueMap::parse(o.problem);
  if (family) {
    req.shape_keys = family->shape_keys();
    req.shape_class = family->shape_class(req.problem);
  }

  std::vector<std::string> layers;
  // A path that is there, or that cannot even be examined (a symlink loop):
  // opening it says what is wrong with it.
  auto present = [](const std::string& path) {
    std::error_code ec;
    return !path.empty() && (std::filesystem::exists(path, ec) || ec);
  };
  if (present(o.db)) layers.push_back(o.db);
  if (present(o.system_db)) layers.push_back(o.system_db);
  if (layers.empty())
    throw UsageError("no tuning database: neither '" + o.db + "' nor the system database '" +
                     o.system_db + "' exists");
  auto step = std::chrono::steady_clock::now();
  Lookup lookup = Lookup::open_layers(layers);
  for (const std::string& w : lookup.warnings()) std::fprintf(stderr, "warning: %s\n", w.c_str());
  if (!family && o.spec.empty()) {
    // A family this build does not register is served as a database stores it
    // (a replayed recording's, a user kernel's); one that no database holds
    // either is a wrong name, not a miss.
    if (!lookup.holds_family(o.kernel))
      throw UsageError(not_built_in + ", and no database given holds it");
    std::fprintf(stderr,
                 "note: family '%s' is not registered in this build: the problem is used as given, "
                 "without a default configuration\n",
                 o.kernel.c_str());
  }
  if (o.verbose)
    std::fprintf(stderr, "lookup: indexed %zu measured entries of %zu database(s) in %.1f ms\n",
                 lookup.indexed_entries(), layers.size(), seconds_since(step) * 1e3);
  const AskedDevice asked = [&] {
    try {
      return resolve_asked_device(o.device, lookup);
    } catch (const std::invalid_argument& e) {
      // A description's default device, as in `ktune space` and `ktune tune --compile-only`.
      if (!o.device.empty() || o.spec.empty()) throw UsageError(e.what());
      std::fprintf(stderr, "note: %s; answering for sm_90\n", e.what());
      return resolve_asked_device("sm_90", lookup);
    }
  }();
  DeviceSpec spec = asked.spec;
  req.device = asked.name;
  req.arch = asked.arch;
  req.own_device_only = o.own_only;
  if (spec.cc_major > 0 && !req.device.empty()) req.device_spec = spec;
  std::string miss_log = o.log_misses;
  if (const char* env = std::getenv("KTUNE_LOOKUP_LOG"); miss_log.empty() && env && *env)
    miss_log = env;
  if (!miss_log.empty()) {
    try {
      lookup.log_misses(miss_log);
    } catch (const DatabaseError& e) {
      throw UsageError(e.what());
    }
  }
  if (!(o.min_distance >= 0) || !std::isfinite(o.min_distance))
    throw UsageError("--min-distance must be a finite distance >= 0");
  if (family && !o.no_predict) {
    // Shapes far from every measured one: the family's cost model,
    // calibrated on the databases' own measurements per GPU, ranks the
    // measured winners of the class (docs/lookup.md).
    // The calibration is kept per database content (lookup/lookup_predictor_cache.hpp).
    PredictionRule rule;
    rule.min_distance = o.min_distance;
    const PredictorLoad load = cached_predictor(layers, default_predictor_cache_dir());
    lookup.set_predictor(load.predictor, rule);
    if (o.verbose) {
      std::fprintf(stderr,
                   "lookup: predictor key %.1f ms (databases' fingerprints), %s %.1f ms%s%s\n",
                   load.key_s * 1e3,
                   load.from_cache           ? "calibration read from cache in"
                   : load.cache_file.empty() ? "calibrated (no cache folder) in"
                                             : "calibrated and cached in",
                   load.load_s * 1e3, load.cache_file.empty() ? "" : ": ", load.cache_file.c_str());
      if (!load.note.empty()) std::fprintf(stderr, "lookup: %s\n", load.note.c_str());
    }
  }
  if (family) {
    const std::string note = complete_request(req, *family, spec, lookup, o.hash);
    if (!note.empty())
      std::fprintf(stderr, "note: %s; serving the newest-measured template version\n",
                   note.c_str());
  } else {
    // A family this build does not register (a replayed recording's): served as stored.
    if (req.arch.empty()) req.arch = lookup.arch_of(req.device);
    if (!o.hash.empty()) req.family_hash = o.hash;
  }

  step = std::chrono::steady_clock::now();
  auto a = lookup.best(req);
  if (o.verbose) std::fprintf(stderr, "lookup: answered in %.1f ms\n", seconds_since(step) * 1e3);
  if (!a) {
    if (o.json)
      std::cout << nlohmann::json{{"found", false}}.dump(2) << "\n";
    else
      std::printf("no tuned or default configuration for %s %s on %s\n", o.kernel.c_str(),
                  req.problem.key().c_str(),
                  req.device.empty() ? req.arch.c_str() : req.device.c_str());
    return 1;
  }
  if (o.json) {
    nlohmann::json j{{"found", true},
                     {"family", o.kernel},
                     {"problem", req.problem.to_json()},
                     {"device", req.device},
                     {"arch", req.arch},
                     {"source", to_string(a->source)},
                     {"reach", to_string(a->reach)},
                     {"from", describe(*a)},
                     {"objective", to_string(req.objective)},
                     {"config", a->config.to_json()},
                     {"config_key", a->config_key}};
    if (a->source == LookupSource::predicted) {
      j["predicted_s"] = a->predicted_s;
      nlohmann::json learned = nlohmann::json::array();
      for (const auto& p : a->learned_from) learned.push_back(p.to_json());
      j["learned_from"] = learned;
      j["learned_on"] = a->learned_on;
      j["distance"] = a->distance;
    }
    // A predicted general configuration carries no measurement of its own.
    if (a->source != LookupSource::default_config && !a->measured_problem.empty()) {
      j["measured"] = result_to_json(a->result);
      j["measured_device"] = a->measured_device;
      j["measured_arch"] = a->measured_arch;
      j["measured_problem"] = a->measured_problem.to_json();
      j["distance"] = a->distance;
      j["family_hash"] = a->family_hash;
      j["database"] = a->database;
      j["provenance"] = {{"host", a->provenance.host},
                         {"tool_version", a->provenance.tool_version},
                         {"source", a->provenance.source},
                         {"measured_at", a->provenance.measured_at}};
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  // The first line keeps "<configuration>  (<source>)" for scripts; the next
  // says whose measurements the answer rests on.
  std::printf("%s  (%s)\n", a->config_key.c_str(), std::string(to_string(a->source)).c_str());
  if (a->source != LookupSource::default_config)
    std::printf("  %s%s\n", describe(*a).c_str(),
                a->reach == LookupReach::sibling ? ": another GPU of this arch" : "");
  if (a->source == LookupSource::default_config) {
    std::printf("  the family's safe default: nothing measured fits this problem and device%s\n",
                req.objective == Objective::time ? "" : " with energy (metrics.energy_j)");
    return 0;
  }
  if (a->source == LookupSource::predicted) {
    std::printf(
        "  predicted %.4g ms for %s by the cost model calibrated on %zu measured problems of this "
        "class on %s (nearest at distance %.3f, log2 space)\n",
        a->predicted_s * 1e3, req.device.empty() ? req.arch.c_str() : req.device.c_str(),
        a->learned_from.size(), a->learned_on.c_str(), a->distance);
    if (a->measured_problem.empty()) {
      std::printf("  the family's general configuration: not measured\n");
      return 0;
    }
  }
  const Result& r = a->result;
  std::printf("  measured on %s (%s) for %s\n", a->measured_device.c_str(),
              a->measured_arch.c_str(), a->measured_problem.key().c_str());
  if (a->source == LookupSource::nearest)
    std::printf("  shape distance %.3f (log2 space)\n", a->distance);
  std::printf(
      "  median %.4g ms (min %.4g, max %.4g, spread %.3f, %d repetitions), %.2f TFLOP/s, %.1f "
      "GB/s\n",
      r.time.median_s * 1e3, r.time.min_s * 1e3, r.time.max_s * 1e3, r.time.spread,
      r.time.repetitions, r.tflops, r.gbps);
  if (const std::optional<double> joules = energy_per_launch(r)) {
    std::printf("  energy %.4g J per launch", *joules);
    if (const auto w = r.metrics.find("power_w"); w != r.metrics.end() && w->is_number())
      std::printf(" (%.0f W mean board power)", w->get<double>());
    std::printf("; best by %s\n", std::string(to_string(req.objective)).c_str());
  }
  std::printf("  verified: relative error %.3g, max abs error %.3g\n", r.error, r.max_abs_error);
  std::printf("  provenance: host %s, %s, source '%s', measured %s\n", a->provenance.host.c_str(),
              a->provenance.tool_version.c_str(), a->provenance.source.c_str(),
              a->provenance.measured_at.c_str());
  std::printf("  database %s, template hash %s\n", a->database.c_str(), a->family_hash.c_str());
  return 0;
}

const CommandRegistrar registrar(60, [](CLI::App& app) {
  auto o = std::make_shared<LookupOptions>();
  o->db = default_db_path();
  o->system_db = default_system_db_path();
  auto* cmd = app.add_subcommand("lookup",
                                 "Best tuned configuration for a problem on a GPU: exact, nearest "
                                 "or predicted shape on this GPU, then on other GPUs of its arch, "
                                 "then the family's default; each answer says whose measurements");
  cmd->add_option("--kernel", o->kernel, "Kernel family, e.g. gemm");
  cmd->add_option("--spec", o->spec,
                  "A user kernel's JSON description (docs/user-kernels.md), in place of --kernel");
  cmd->add_option("--problem", o->problem,
                  "Problem, e.g. 'm=4096,n=4096,k=4096,dtype=bf16' (with --spec: default its "
                  "description's sizes)");
  cmd->add_option("--device", o->device,
                  "GPU name ('NVIDIA H200', 'h100 pcie', or any name this machine's driver "
                  "reports) or arch (sm_90); default: this machine's GPU 0 (with --spec and no "
                  "GPU: sm_90)");
  cmd->add_option("--db", o->db,
                  std::string("User tuning database; its results win (") + kDefaultDbHelp + ")");
  cmd->add_option(
      "--system-db", o->system_db,
      "Shipped read-only database filling the gaps "
      "(default $KTUNE_SYSTEM_DB, else share/ktune/ktune.db beside the binary's folder)");
  cmd->add_option(
      "--hash", o->hash,
      "Serve results of this template hash (`ktune db stats` lists them) instead of the current "
      "templates' path hash: a replayed recording, or a database measured with other kernel text "
      "(a knob that text lacked counts at its default in the validity check)");
  cmd->add_option(
      "--log-misses", o->log_misses,
      "Append the problem to this file (JSON lines, once each) when no exact measurement answers "
      "it; `ktune sweep FILE` tunes them (default $KTUNE_LOOKUP_LOG)");
  cmd->add_flag(
      "--deterministic", o->deterministic,
      "Serve only results whose verification found two runs bit-for-bit equal (else the next "
      "candidate, or the family's default)");
  cmd->add_option(
         "--objective", o->objective,
         "Best by time (median per launch), energy (joules per launch) or edp (energy x time); "
         "energy and edp consider only verified results that carry energy")
      ->capture_default_str()
      ->check(CLI::IsMember({"time", "energy", "edp"}));
  cmd->add_flag("--no-predict", o->no_predict,
                "Answer shapes not measured with the nearest measured shape's winner, "
                "not the cost model's pick");
  cmd->add_option("--min-distance", o->min_distance,
                  "Predict from this distance to the nearest measured shape on (log2 space of the "
                  "shape keys)")
      ->capture_default_str();
  cmd->add_flag("--own-only", o->own_only,
                "Serve only this GPU's own measurements (exact, nearest, predicted), never another "
                "GPU's of its arch or another arch's; else the family's default");
  cmd->add_flag("--verbose", o->verbose,
                "Say on stderr what each step cost: indexing, the predictor's calibration (read "
                "from its cache or fitted), the answer");
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->callback([o] { set_exit_code(run_lookup(*o)); });
});

}  // namespace
}  // namespace ktune::cli
