// Sweep: parsing and validating sweep files, sharding, running, summarising.
#include "engine/sweep.hpp"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kernels_templated/family.hpp"
#include "kernels_user/description.hpp"
#include "kernels_user/user_kernels.hpp"
#include "space/name_list.hpp"

namespace ktune {
namespace {

using nlohmann::json;

// Keys a run and "defaults" share (the tuning options).
const std::vector<std::string> kOptionKeys = {
    "strategy", "budget",  "time",   "batch",   "patience", "seed",      "resume", "warm_start",
    "source",   "profile", "device", "require", "start",    "objective", "comment"};
const std::vector<std::string> kRunOnlyKeys = {"kernel", "spec", "problems", "replay"};
const std::vector<std::string> kTopKeys = {"db", "defaults", "runs", "comment"};

class Checker {
 public:
  explicit Checker(std::string name) : name_(std::move(name)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw SweepError(name_ + ": " + (where.empty() ? "" : where + ": ") + what);
  }

  void only_keys(const json& obj, const std::string& where, const std::vector<std::string>& allowed) const {
    if (!obj.is_object()) fail(where, "expected an object, found " + std::string(obj.type_name()));
    for (const auto& [key, value] : obj.items()) {
      (void)value;
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        fail(where, "unknown key '" + key + "' (accepted: " + name_list(allowed) + ")");
    }
  }

  std::uint64_t count(const json& v, const std::string& where, bool positive) const {
    if (!v.is_number_integer() || (v.is_number_integer() && v.get<std::int64_t>() < (positive ? 1 : 0)))
      fail(where, std::string("expected ") + (positive ? "a positive" : "a non-negative") + " integer, found " +
                      v.dump());
    return v.get<std::uint64_t>();
  }

  std::string text(const json& v, const std::string& where) const {
    if (!v.is_string()) fail(where, "expected a string, found " + v.dump());
    return v.get<std::string>();
  }

  bool flag(const json& v, const std::string& where) const {
    if (!v.is_boolean()) fail(where, "expected true or false, found " + v.dump());
    return v.get<bool>();
  }

  /// A list of strings (sub-space expressions, configuration keys: `what`);
  /// their meaning is checked when the space is known.
  std::vector<std::string> strings(const json& v, const std::string& where, const std::string& what) const {
    if (!v.is_array()) fail(where, "expected a list of " + what + ", found " + v.dump());
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(text(v[i], where + "[" + std::to_string(i) + "]"));
    return out;
  }

  /// Applies the tuning options present in `obj` onto `spec`.
  void apply_options(const json& obj, const std::string& where, TuneSpec& spec) const {
    for (const auto& [key, v] : obj.items()) {
      std::string at = where + "." + key;
      if (key == "strategy") spec.strategy = text(v, at);
      else if (key == "budget") spec.options.budget = count(v, at, false);
      else if (key == "batch") spec.options.batch_size = count(v, at, true);
      else if (key == "patience") spec.options.patience = count(v, at, false);
      else if (key == "seed") spec.seed = count(v, at, false);
      else if (key == "device") spec.device = static_cast<int>(count(v, at, false));
      else if (key == "resume") spec.options.resume = flag(v, at);
      else if (key == "warm_start") spec.options.warm_start = flag(v, at);
      else if (key == "profile") spec.profile = flag(v, at);
      else if (key == "source") spec.source = text(v, at);
      else if (key == "objective") {
        try {
          spec.options.objective = objective_from_string(text(v, at));
        } catch (const std::invalid_argument& e) {
          fail(at, e.what());
        }
      }
      // A run's list replaces the defaults'; both are checked against each problem's space.
      else if (key == "require")
        spec.require = strings(v, at, "expressions (strings such as \"VEC == 8\")");
      else if (key == "start") spec.start = strings(v, at, "configuration keys (strings such as \"BLOCK_M=128,...\")");
      else if (key == "time") {
        if (v.is_number() && v.get<double>() > 0) {
          spec.options.time_limit_s = v.get<double>();
        } else if (v.is_string()) {
          try {
            spec.options.time_limit_s = parse_duration_s(v.get<std::string>());
          } catch (const std::invalid_argument& e) {
            fail(at, e.what());
          }
        } else {
          fail(at, "expected seconds (a positive number) or a duration such as \"15m\", found " + v.dump());
        }
      }
    }
  }

 private:
  std::string name_;
};

std::string resolve(const std::filesystem::path& base, const std::string& p) {
  std::filesystem::path path(p);
  if (path.is_absolute() || base.empty()) return path.lexically_normal().string();
  return (base / path).lexically_normal().string();
}

}  // namespace

SweepFile parse_sweep(const json& j, const std::filesystem::path& base_dir, const std::string& name) {
  Checker check(name);
  check.only_keys(j, "", kTopKeys);
  SweepFile file;
  if (j.contains("db")) file.db = resolve(base_dir, check.text(j["db"], "db"));

  TuneSpec defaults;
  defaults.options.warm_start = true;
  defaults.options.budget_counts_stored = true;
  if (j.contains("defaults")) {
    check.only_keys(j["defaults"], "defaults", kOptionKeys);
    check.apply_options(j["defaults"], "defaults", defaults);
  }
  if (!j.contains("runs")) check.fail("", "no \"runs\" (a list of runs to tune)");
  const json& runs = j["runs"];
  if (!runs.is_array() || runs.empty()) check.fail("runs", "expected a non-empty list of runs");

  std::vector<std::string> run_keys = kOptionKeys;
  run_keys.insert(run_keys.end(), kRunOnlyKeys.begin(), kRunOnlyKeys.end());
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const std::string where = "runs[" + std::to_string(r) + "]";
    const json& run = runs[r];
    check.only_keys(run, where, run_keys);
    TuneSpec spec = defaults;
    check.apply_options(run, where, spec);
    if (run.contains("kernel")) spec.kernel = check.text(run["kernel"], where + ".kernel");
    if (run.contains("spec")) {
      if (run.contains("kernel")) check.fail(where, "give \"kernel\" or \"spec\", not both");
      try {
        spec.kernel =
            user::load_user_kernel(resolve(base_dir, check.text(run["spec"], where + ".spec")))
                .name();
      } catch (const user::DescriptionError& e) {
        check.fail(where + ".spec", e.what());
      }
    }
    if (run.contains("replay")) spec.replay = resolve(base_dir, check.text(run["replay"], where + ".replay"));
    if (spec.kernel.empty() && spec.replay.empty())
      check.fail(where, "needs \"kernel\" or \"spec\" (with \"problems\") or \"replay\"");

    std::vector<std::string> problems;
    if (run.contains("problems")) {
      const json& list = run["problems"];
      if (!list.is_array() || list.empty())
        check.fail(where + ".problems", "expected a non-empty list of problem strings");
      for (std::size_t p = 0; p < list.size(); ++p)
        problems.push_back(check.text(list[p], where + ".problems[" + std::to_string(p) + "]"));
    }
    if (spec.replay.empty() && problems.empty())
      check.fail(where, "needs \"problems\" (a list such as [\"m=4096,n=4096,k=4096,dtype=bf16,layout=nt\"])");
    if (!spec.replay.empty() && problems.size() > 1)
      check.fail(where + ".problems", "a replay holds one problem; give at most one");
    if (problems.empty()) problems.push_back("");

    for (std::size_t p = 0; p < problems.size(); ++p) {
      SweepItem item;
      item.index = file.items.size();
      item.run = r;
      item.problem = p;
      item.spec = spec;
      item.spec.problem = problems[p];
      std::string at = where + (problems[p].empty() ? "" : ".problems[" + std::to_string(p) + "]");
      try {
        validate_tune_spec(item.spec);
      } catch (const std::invalid_argument& e) {
        check.fail(at, e.what());
      }
      file.items.push_back(std::move(item));
    }
  }
  return file;
}

namespace {

/// Evaluations per logged problem when a miss log is swept (a sweep file
/// naming the same problems chooses its own).
constexpr int kMissLogBudget = 100;

bool is_miss_entry(const json& entry) {
  return entry.is_object() && entry.contains("family") && entry.contains("problem") &&
         !entry.contains("runs");
}

/// Whether the file's first line is one miss-log entry (JSON with "family" and "problem").
bool is_miss_log(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string first;
  if (!std::getline(in, first)) return false;
  try {
    return is_miss_entry(json::parse(first));
  } catch (const json::parse_error&) {
    return false;
  }
}

json sweep_of_miss_log(const std::filesystem::path& path) {
  // One run per family, its problems in first-logged order, each once (the
  // log may name a problem again for another device or process).
  std::ifstream in(path);
  json runs = json::array();
  std::map<std::string, std::size_t> run_of;
  std::set<std::pair<std::string, std::string>> seen;
  std::size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json entry;
    try {
      entry = json::parse(line);
    } catch (const json::parse_error& e) {
      throw SweepError("miss log '" + path.string() + "' line " + std::to_string(line_no) +
                       ": not JSON: " + e.what());
    }
    if (!entry.is_object() || !entry.contains("family") || !entry["family"].is_string() ||
        !entry.contains("problem") || !entry["problem"].is_string())
      throw SweepError("miss log '" + path.string() + "' line " + std::to_string(line_no) +
                       ": expected {\"family\": ..., \"problem\": ...}");
    const std::string family = entry["family"], problem = entry["problem"];
    if (!seen.insert({family, problem}).second) continue;
    auto [it, fresh] = run_of.try_emplace(family, runs.size());
    if (fresh) runs.push_back({{"kernel", family}, {"problems", json::array()}});
    runs[it->second]["problems"].push_back(problem);
  }
  if (runs.empty()) throw SweepError("miss log '" + path.string() + "' names no problem");
  return {{"defaults", {{"budget", kMissLogBudget}}}, {"runs", runs}};
}

}  // namespace

SweepFile read_sweep(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw SweepError("cannot read sweep file '" + path.string() + "'");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    // A lookup's miss log (Lookup::log_misses: JSON lines) sweeps its problems.
    if (!is_miss_log(path)) throw SweepError("sweep file '" + path.string() + "' is not valid JSON: " + e.what());
    j = sweep_of_miss_log(path);
  }
  if (is_miss_entry(j)) j = sweep_of_miss_log(path);  // a miss log of one line
  SweepFile file = parse_sweep(j, path.parent_path(), path.string());
  file.path = path;
  return file;
}

Shard parse_shard(const std::string& text) {
  auto bad = [&] {
    return std::invalid_argument("malformed shard '" + text + "' (expected I/N with 0 <= I < N, e.g. 0/4)");
  };
  auto slash = text.find('/');
  if (slash == std::string::npos) throw bad();
  Shard s;
  try {
    std::size_t used = 0;
    std::string a = text.substr(0, slash), b = text.substr(slash + 1);
    if (a.empty() || b.empty() || a[0] == '-' || b[0] == '-') throw bad();
    s.index = std::stoul(a, &used);
    if (used != a.size()) throw bad();
    s.count = std::stoul(b, &used);
    if (used != b.size()) throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  if (s.count == 0 || s.index >= s.count) throw bad();
  return s;
}

std::vector<SweepItem> shard_items(const std::vector<SweepItem>& items, const Shard& shard) {
  std::vector<SweepItem> out;
  for (const SweepItem& item : items)
    if (shard.contains(item.index)) out.push_back(item);
  return out;
}

std::string shard_db_path(const std::string& db, const Shard& shard) {
  if (shard.count == 1) return db;
  std::filesystem::path p(db);
  std::string suffix = ".shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count);
  std::filesystem::path out = p.parent_path() / (p.stem().string() + suffix + p.extension().string());
  return out.string();
}

std::vector<std::string> check_items_on_device(const std::vector<SweepItem>& items, const DeviceSpec& device) {
  std::vector<std::string> refused;
  for (const SweepItem& item : items) {
    const TuneSpec& spec = item.spec;
    if (!spec.replay.empty()) continue;
    try {
      const KernelFamily& family = find_family(spec.kernel);
      Space space = family.space(parse_problem(family, spec.problem), device);
      space.require_nonempty();
      restrict_space(space, spec.require);
      start_configs(space, spec.start);
    } catch (const std::exception& e) {
      refused.push_back("runs[" + std::to_string(item.run) + "] " + spec.kernel + " " + spec.problem + ": " +
                        e.what());
    }
  }
  return refused;
}

std::vector<SweepOutcome> run_sweep(const std::vector<SweepItem>& items, Store& store,
                                    ProgressSink* progress, std::ostream& out,
                                    const PrepareItem& prepare, const UntunedLookup* lookup) {
  std::vector<SweepOutcome> outcomes;
  for (std::size_t i = 0; i < items.size(); ++i) {
    SweepOutcome outcome;
    outcome.item = items[i];
    const TuneSpec& spec = items[i].spec;
    outcome.label = spec.replay.empty() ? spec.kernel + " " + spec.problem : "replay " + spec.replay;
    out << "[" << i + 1 << "/" << items.size() << "] " << outcome.label << "\n" << std::flush;
    // One item failing (no GPU, a crashed evaluator, a bad recording) must not
    // cost the rest of an hours-long sweep.
    try {
      std::unique_ptr<PreparedTune> job = prepare ? prepare(items[i]) : prepare_tune(spec);
      outcome.label = job->label;
      if (lookup) choose_untuned(*job, lookup);
      print_untuned_plan(out, *job);
      TuneReport report = run_prepared_tune(*job, store, progress);
      outcome.metric = throughput_for(*job, report);
      outcome.untuned = compare_to_untuned(*job, report);
      const std::string untuned = describe_untuned(outcome.untuned, spec.options.objective);
      if (!untuned.empty()) out << "  " << untuned << "\n";
      outcome.report = std::move(report);
    } catch (const std::exception& e) {
      outcome.error = e.what();
      out << "  failed: " << outcome.error << "\n";
    }
    outcomes.push_back(std::move(outcome));
  }
  return outcomes;
}

namespace {

/// "1.23x": the best over the untuned choice called `name`; "-" without one.
std::string ratio_over(const std::vector<UntunedComparison>& comparisons, const std::string& name) {
  for (const UntunedComparison& c : comparisons) {
    if (c.choice.name != name || !c.ratio) continue;
    std::ostringstream s;
    s << std::fixed << std::setprecision(2) << *c.ratio << "x";
    return s.str();
  }
  return "-";
}

}  // namespace

void print_sweep_summary(std::ostream& out, const std::vector<SweepOutcome>& outcomes) {
  out << std::left << std::setw(5) << "#" << std::setw(52) << "run" << std::right << std::setw(16)
      << "evaluated" << std::setw(8) << "failed" << std::setw(12) << "best" << std::setw(16)
      << "throughput" << std::setw(11) << "x default" << std::setw(10) << "x lookup"
      << "  " << std::left << "stop"
      << "\n";
  for (const SweepOutcome& o : outcomes) {
    std::string label = o.label.size() > 50 ? o.label.substr(0, 47) + "..." : o.label;
    out << std::left << std::setw(5) << o.item.index << std::setw(52) << label << std::right;
    if (!o.report) {
      out << std::setw(16) << "-" << std::setw(8) << "-" << std::setw(12) << "-" << std::setw(16)
          << "-" << std::setw(11) << "-" << std::setw(10) << "-"
          << "  error: " << o.error << "\n";
      continue;
    }
    const TuneReport& r = *o.report;
    std::string evaluated = std::to_string(r.measured.size()) +
                            (r.reused.empty() ? "" : " (+" + std::to_string(r.reused.size()) + ")");
    std::string best = r.best ? format_duration(r.best->time.median_s) : "none";
    std::string tp = "-";
    if (r.best) {
      std::ostringstream s;
      s << std::fixed << std::setprecision(1);
      if (o.metric == Throughput::tflops && r.best->tflops > 0) s << r.best->tflops << " TFLOP/s";
      else if (o.metric == Throughput::gbps && r.best->gbps > 0) s << r.best->gbps << " GB/s";
      else s << "-";
      tp = s.str();
    }
    out << std::setw(16) << evaluated << std::setw(8) << r.failures << std::setw(12) << best
        << std::setw(16) << tp << std::setw(11) << ratio_over(o.untuned, kTheDefault)
        << std::setw(10) << ratio_over(o.untuned, kTheLookupsAnswer) << "  " << std::left
        << to_string(r.stop) << "\n";
  }
}

}  // namespace ktune
