// TuneJob: validating a tuning request, resolving it into the loop's inputs,
// running it, and summarising its results.
#include "engine/tune_job.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "compile/compiler.hpp"
#include "compile/version.hpp"
#include "engine/cost_context.hpp"
#include "engine/isolated_evaluator.hpp"
#include "engine/replay_evaluator.hpp"
#include "measure/device_query.hpp"
#include "measure/nvml.hpp"
#include "search/cost_model.hpp"
#include "space/name_list.hpp"

namespace ktune {
namespace {

void check_strategy(const std::string& name) {
  std::vector<std::string> known = searcher_names();
  if (std::find(known.begin(), known.end(), name) == known.end())
    throw std::invalid_argument("unknown strategy '" + name + "' (known: " + name_list(known) +
                                ")");
}

/// A known family's name, or nullptr when the recording's family is foreign.
const KernelFamily* family_if_known(const std::string& name) {
  std::vector<std::string> known = family_names();
  if (std::find(known.begin(), known.end(), name) == known.end()) return nullptr;
  return &find_family(name);
}

std::shared_ptr<const RecordedSpace> read_recording(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw std::invalid_argument("replay file '" + path + "' does not exist or is not a file");
  try {
    return std::make_shared<const RecordedSpace>(read_recorded_space(path));
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::exception& e) {
    throw std::invalid_argument("replay file '" + path +
                                "' is not a recording in an accepted format (ktune recording, Kernel "
                                "Tuner cache, T4): " + e.what());
  }
}

/// The GPU path: the eval room's isolated evaluator (a crashing or hanging
/// candidate costs a worker restart and one Result, not the run), with the
/// compile cache of the CLI.
std::unique_ptr<Evaluator> make_gpu_evaluator(const KernelFamily& family, const Problem& problem,
                                              const TuneSpec& spec) {
  IsolatedEvaluatorOptions options;
  options.gpu.device = spec.device;
  options.gpu.compiler.cache_dir = default_compile_cache_dir();
  options.gpu.profile = spec.profile;
  options.gpu.energy.enabled = spec.energy || spec.options.objective != Objective::time;
  return std::make_unique<IsolatedEvaluator>(family, problem, options);
}

/// The database seen from a sub-space: stored results that the sub-space
/// rules out stay in the database but are not part of the run (not reused,
/// not counted, never its best); new results go to the same key, since they
/// are configurations of the whole space.
class SubSpaceLog final : public ResultLog {
 public:
  SubSpaceLog(ResultLog& whole, const Space& sub_space) : whole_(whole), sub_space_(sub_space) {}
  std::vector<Result> stored() const override {
    std::vector<Result> inside;
    for (Result& r : whole_.stored())
      if (sub_space_.is_valid(r.config)) inside.push_back(std::move(r));
    return inside;
  }
  void append_batch(std::span<const Result> batch) override { whole_.append_batch(batch); }
  std::vector<Result> warm_start_prior(std::size_t limit) const override {
    return whole_.warm_start_prior(limit);  // hints; the loop repairs them into the sub-space
  }

 private:
  ResultLog& whole_;
  const Space& sub_space_;
};

/// Energy and EDP need energy in the results: a recording that carries none
/// (metrics.energy_j of its ok results) cannot answer them.
void check_recording_has_energy(const RecordedSpace& rec, const TuneSpec& spec) {
  if (spec.options.objective == Objective::time) return;
  for (const auto& [key, r] : rec.results)
    if (energy_per_launch(r)) return;
  throw std::invalid_argument("objective " + std::string(to_string(spec.options.objective)) +
                              ": replay file '" + spec.replay +
                              "' records no energy (metrics.energy_j of its ok results)");
}

/// Energy and EDP on a GPU need NVML's total energy counter for it.
void check_energy_counter(const LiveDevice& device, Objective objective) {
  if (objective == Objective::time) return;
  const Nvml& nvml = Nvml::instance();
  if (!nvml.available())
    throw std::invalid_argument("objective " + std::string(to_string(objective)) +
                                " needs NVML (libnvidia-ml.so.1), which is not available here");
  if (!nvml.total_energy_mj(device.pci_bus_id))
    throw std::invalid_argument("objective " + std::string(to_string(objective)) + ": " +
                                device.spec.name +
                                " has no NVML total energy counter "
                                "(nvmlDeviceGetTotalEnergyConsumption)");
}

void check_bounded(const TuneSpec& spec) {
  if (spec.options.budget == 0 && spec.options.time_limit_s <= 0)
    throw std::invalid_argument("no limit given: set a budget (evaluations) or a time limit");
  if (spec.options.batch_size == 0) throw std::invalid_argument("batch size must be at least 1");
}

}  // namespace

std::vector<Config> start_configs(const Space& space, const std::vector<std::string>& keys) {
  std::vector<Config> out;
  for (const std::string& key : keys) {
    Config c;
    try {
      c = ValueMap::parse(key);
    } catch (const std::exception& e) {
      throw std::invalid_argument("bad start configuration '" + key + "': " + e.what());
    }
    std::string why;
    if (!space.is_valid(c, &why))
      throw std::invalid_argument("start configuration '" + key + "' is not in this run's space: " + why);
    out.push_back(std::move(c));
  }
  return out;
}

void restrict_space(Space& space, const std::vector<std::string>& expressions) {
  if (expressions.empty()) return;
  for (const std::string& expression : expressions) {
    try {
      space.require(expression);
    } catch (const SpaceError& e) {
      // e names the expression and the column or the unknown name.
      throw std::invalid_argument(std::string("bad sub-space expression: ") + e.what());
    }
  }
  try {
    space.require_nonempty();
  } catch (const SpaceError& e) {
    std::string quoted;
    for (const std::string& x : expressions) quoted += (quoted.empty() ? "'" : ", '") + x + "'";
    throw std::invalid_argument("the sub-space required by " + quoted + " has no valid configuration: " +
                                e.what());
  }
}

std::string describe_sub_space(const std::vector<std::string>& expressions) {
  std::string text;
  for (const std::string& x : expressions) text += (text.empty() ? "(" : " && (") + x + ")";
  return text;
}

Store open_store_for_writing(const std::string& path) {
  std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path() && !std::filesystem::exists(p.parent_path(), ec)) {
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec)
      throw std::invalid_argument("cannot create the folder of database '" + path + "': " + ec.message());
  }
  try {
    return Store::open(path);
  } catch (const DatabaseError& e) {
    throw std::invalid_argument("cannot use database '" + path + "' for writing: " + e.what());
  }
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

double parse_duration_s(const std::string& text) {
  std::string t = text;
  double scale = 1;
  if (!t.empty()) {
    char unit = t.back();
    if (unit == 's' || unit == 'm' || unit == 'h') {
      scale = unit == 's' ? 1 : unit == 'm' ? 60 : 3600;
      t.pop_back();
    }
  }
  try {
    std::size_t used = 0;
    double v = std::stod(t, &used);
    if (used != t.size() || !(v > 0) || !std::isfinite(v)) throw std::invalid_argument("bad");
    return v * scale;
  } catch (const std::exception&) {
    throw std::invalid_argument("malformed duration '" + text +
                                "' (expected a positive number of seconds, or with s/m/h: 90s, 15m, 2h)");
  }
}

void validate_tune_spec(const TuneSpec& spec) {
  check_bounded(spec);
  check_strategy(spec.strategy);
  if (!spec.replay.empty()) {
    // Reading it is the only way to know its format; prepare_tune reads it again.
    std::shared_ptr<const RecordedSpace> rec = read_recording(spec.replay);
    check_recording_has_energy(*rec, spec);
    Space sub_space = rec->space;  // the recorded space is known: check the sub-space now
    restrict_space(sub_space, spec.require);
    if (!spec.kernel.empty() && spec.kernel != rec->family) {
      find_family(spec.kernel);  // an unknown name is reported as such
      throw std::invalid_argument("replay file '" + spec.replay + "' records family '" + rec->family +
                                  "', not '" + spec.kernel + "'");
    }
    if (!spec.problem.empty()) {
      // Only the keys the user gave must match: the recording holds the
      // normalized problem, with defaulted keys filled in.
      Problem asked;
      try {
        asked = ValueMap::parse(spec.problem);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("malformed problem: ") + e.what());
      }
      for (const auto& [name, value] : asked) {
        if (!rec->problem.contains(name) || to_text(rec->problem.at(name)) != to_text(value))
          throw std::invalid_argument("replay file '" + spec.replay + "' records problem '" +
                                      rec->problem.key() + "', not '" + asked.key() + "'");
      }
    }
    return;
  }
  if (spec.kernel.empty())
    throw std::invalid_argument(
        "no kernel family given (--kernel; known: " + name_list(family_names()) + ")");
  const KernelFamily& family = find_family(spec.kernel);
  if (spec.problem.empty())
    throw std::invalid_argument("no problem given for family '" + spec.kernel + "' (expected " +
                                std::string(family.problem_help()) + ")");
  parse_problem(family, spec.problem);
}

void apply_stored_ceilings(const std::string& db_path, DeviceSpec& device) {
  if (db_path.empty() || !std::filesystem::exists(db_path)) return;
  const Store store = Store::open_read_only(db_path);
  if (auto measured = store.measured_ceilings(device.name)) device.adopt_measured_ceilings(*measured);
}

std::unique_ptr<PreparedTune> prepare_tune(const TuneSpec& spec) { return prepare_tune(spec, PrepareHooks{}); }

std::unique_ptr<PreparedTune> prepare_tune(const TuneSpec& spec, const PrepareHooks& hooks) {
  validate_tune_spec(spec);
  auto job = std::make_unique<PreparedTune>();
  job->spec = spec;
  job->provenance.host = host_name();
  job->provenance.tool_version = tool_version();
  job->provenance.source = spec.source;

  if (!spec.replay.empty()) {
    job->recording = read_recording(spec.replay);
    const RecordedSpace& rec = *job->recording;
    job->family = family_if_known(rec.family);
    job->problem = rec.problem;
    job->device = recorded_device(rec);
    job->space = std::make_unique<Space>(rec.space);
    restrict_space(*job->space, spec.require);
    if (!hooks.evaluator) job->evaluator = std::make_unique<ReplayEvaluator>(job->recording);
    job->key.family_hash = recording_hash(rec, spec.replay);
    job->key.family = rec.family;
    if (job->provenance.source.empty())
      job->provenance.source = "replay:" + std::filesystem::path(spec.replay).filename().string();
  } else {
    job->family = &find_family(spec.kernel);
    job->problem = parse_problem(*job->family, spec.problem);
    if (hooks.device) {
      job->device = *hooks.device;
    } else {
      DeviceQuery query = query_devices();
      if (query.devices.empty())
        throw NoGpuError("no GPU: " + query.none_reason +
                         ". Use --replay FILE to run the same search against a recorded space");
      auto live = std::find_if(query.devices.begin(), query.devices.end(),
                               [&](const LiveDevice& d) { return d.ordinal == spec.device; });
      if (live == query.devices.end())
        throw std::invalid_argument("no GPU with ordinal " + std::to_string(spec.device) + " (" +
                                    std::to_string(query.devices.size()) + " visible)");
      check_energy_counter(*live, spec.options.objective);
      job->device = live->spec;
    }
    apply_stored_ceilings(spec.ceilings_db, job->device);
    job->space = std::make_unique<Space>(job->family->space(job->problem, job->device));
    job->space->require_nonempty();
    restrict_space(*job->space, spec.require);
    if (!hooks.evaluator) job->evaluator = make_gpu_evaluator(*job->family, job->problem, spec);
    job->key.family = std::string(job->family->name());
    job->key.family_hash = family_source_hash(*job->family, job->problem, job->device);
  }

  job->key.device = job->device;
  job->key.problem = job->problem;
  if (job->family) {
    job->key.shape_keys = job->family->shape_keys();
    job->key.shape_class = job->family->shape_class(job->problem);
  }
  job->label = job->key.family + " " + job->problem.key();
  // The family's default first, then the user's start configurations.
  choose_untuned(*job, nullptr);

  SearchContext context;
  context.space = job->space.get();
  context.seed = spec.seed;
  context.options.set("objective", std::string(to_string(spec.options.objective)));
  if (job->family) attach_cost_model(context, *job->family, job->problem, job->device);
  job->searcher = make_searcher(spec.strategy, context);
  if (hooks.evaluator) job->evaluator = hooks.evaluator(*job);
  return job;
}

TuneReport run_prepared_tune(PreparedTune& job, Store& store, ProgressSink* progress) {
  StoreLog whole(store, job.key, job.provenance);
  SubSpaceLog sub_space(whole, *job.space);
  ResultLog& log = job.spec.require.empty() ? static_cast<ResultLog&>(whole) : sub_space;
  TuneInputs in;
  in.family = job.family;
  in.problem = job.problem;
  in.space = job.space.get();
  in.searcher = job.searcher.get();
  in.evaluator = job.evaluator.get();
  in.log = &log;
  in.progress = progress;
  TuneOptions options = job.spec.options;
  if (options.label.empty()) options.label = job.label;
  return Tuner(in, options).run();
}

std::vector<ResultRow> top_results(const PreparedTune& job, const TuneReport& report, std::size_t limit) {
  std::vector<Result> all = report.reused;
  all.insert(all.end(), report.measured.begin(), report.measured.end());
  std::stable_sort(all.begin(), all.end(), [&](const Result& a, const Result& b) {
    return better_result(a, b, job.spec.options.objective);
  });
  if (all.size() > limit) all.resize(limit);

  // The ideal roofline: the ceilings themselves, no efficiency loss, no launch cost.
  Calibration ideal;
  ideal.compute_efficiency = 1.0;
  ideal.memory_efficiency = 1.0;
  ideal.launch_overhead_s = 0.0;
  std::optional<RooflineModel> model;
  if (job.family && job.device.sm_count > 0) model.emplace(job.device, ideal);

  std::vector<ResultRow> rows;
  for (Result& r : all) {
    ResultRow row{std::move(r), std::nullopt};
    if (model && row.result.ok() && row.result.time.median_s > 0) {
      try {
        double ideal_s = model->predict(job.family->estimate(job.problem, row.result.config, job.device)).time_s;
        if (ideal_s > 0 && std::isfinite(ideal_s)) row.roofline_fraction = ideal_s / row.result.time.median_s;
      } catch (const std::exception&) {
        // A configuration the family cannot estimate (e.g. from a foreign
        // recording) simply has no fraction.
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Throughput throughput_for(const PreparedTune& job, const TuneReport& report) {
  if (job.family && job.device.sm_count > 0) {
    try {
      RooflineModel model(job.device);
      Config c = job.family->default_config(job.problem, job.device);
      Bound bound = model.predict(job.family->estimate(job.problem, c, job.device)).bound;
      if (bound == Bound::compute) return Throughput::tflops;
      if (bound == Bound::memory) return Throughput::gbps;
    } catch (const std::exception&) {
    }
    if (job.family->flops(job.problem) > 0) return Throughput::tflops;
    return Throughput::gbps;
  }
  auto any = [&](auto field) {
    for (const auto* list : {&report.reused, &report.measured})
      for (const Result& r : *list)
        if (r.ok() && r.*field > 0) return true;
    return false;
  };
  if (any(&Result::tflops)) return Throughput::tflops;
  if (any(&Result::gbps)) return Throughput::gbps;
  return Throughput::none;
}

}  // namespace ktune
