// Lookup regret: per hidden shape, a database of the other recordings, the
// lookup's rules asked for the hidden problem, and their answers scored.
#include "cli/lookup_regret.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <sstream>

#include "compile/version.hpp"
#include "db/dispatch_emitter.hpp"
#include "db/query.hpp"
#include "db/result_order.hpp"
#include "db/store.hpp"
#include "engine/replay_evaluator.hpp"
#include "kernels_templated/family.hpp"
#include "lookup/lookup_predictor.hpp"
#include "lookup/lookup_validity.hpp"
#include "lookup/median.hpp"

namespace fs = std::filesystem;

namespace ktune {
namespace {

/// One recording, read and checked, with what the lookup needs of it.
struct Loaded {
  std::string path, name;
  RecordedSpace rec;
  const KernelFamily* family = nullptr;
  DeviceSpec device;
  Problem problem;  // normalized
  std::string hash, shape_class;
  double optimum_s = 0, median_s = 0;
};

Loaded load(const std::string& path) {
  Loaded l;
  l.path = path;
  l.name = fs::path(path).filename().string();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw std::invalid_argument("recording '" + path + "' does not exist or is not a file");
  l.rec = read_recorded_space(path);
  try {
    l.family = &find_family(l.rec.family);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument(path + ": family '" + l.rec.family +
                                "' is not registered in this build (bench-lookup needs its space "
                                "and cost model)");
  }
  l.device = recorded_device(l.rec);
  if (l.device.sm_count <= 0)
    throw std::invalid_argument(path + ": device '" + l.device.name +
                                "' has no spec (none recorded, none built in)");
  try {
    l.problem = l.family->normalize(l.rec.problem);
    l.shape_class = l.family->shape_class(l.problem);
  } catch (const std::exception& e) {
    throw std::invalid_argument(path + ": problem " + l.rec.problem.key() + ": " + e.what());
  }
  l.hash = recording_hash(l.rec, path);
  std::vector<double> times;
  for (const auto& [key, r] : l.rec.results)
    if (r.ok() && r.time.median_s > 0) times.push_back(r.time.median_s);
  if (times.empty()) throw std::invalid_argument(path + ": no configuration was measured ok");
  l.optimum_s = *std::min_element(times.begin(), times.end());
  l.median_s = median_of(times);
  return l;
}

bool same_shape(const Loaded& a, const Loaded& b) {
  return a.rec.family == b.rec.family && a.problem == b.problem;
}

/// A database of `others`, stored as a replay stores them (recorded device,
/// the recording's template hash, source replay:<file>).
void write_database(const fs::path& path, const std::vector<const Loaded*>& others) {
  Store store = Store::open(path.string());
  for (const Loaded* l : others) {
    RunKey key{l->device,  l->rec.family,           l->hash,
               l->problem, l->family->shape_keys(), l->shape_class};
    std::vector<Result> results;
    for (const auto& [k, r] : l->rec.results)
      if (r.status != Status::invalid_config) results.push_back(r);
    store.record(key, results, Provenance{"bench-lookup", tool_version(), "replay:" + l->name, ""});
  }
}

void remove_database(const fs::path& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    fs::remove(path.string() + suffix, ec);
}

std::vector<double> shape_of(const Problem& p, const std::vector<std::string>& keys) {
  std::vector<double> out;
  for (const auto& k : keys) {
    if (!p.contains(k) || std::holds_alternative<std::string>(p.at(k))) return {};
    out.push_back(as_number(p.at(k)));
  }
  return out;
}

/// The emitted header's rule: the best rows of the hidden problem's shape
/// class and bucket, nearest the bucket's centre first, the first that fits
/// (by the family's space, as the lookup checks); else nullptr (the default).
std::optional<Config> bucket_choice(const std::vector<std::string>& layers, const Loaded& held,
                                    const LookupRequest& req) {
  const auto mine = shape_bucket(shape_of(held.problem, req.shape_keys));
  if (!mine) return std::nullopt;
  struct Row {
    double d2;
    BestRow row;
  };
  std::vector<Row> rows;
  for (const auto& path : layers) {
    const Store store = Store::open_read_only(path);
    BestQuery q;
    q.family = req.family;
    q.device = req.device;
    q.family_hash = req.family_hash;
    for (auto& row : best_per_problem(store, q)) {
      if (row.shape_class != held.shape_class) continue;
      const auto b = shape_bucket(shape_of(row.problem, req.shape_keys));
      if (b && b->bucket == mine->bucket) rows.push_back({b->centre_d2, std::move(row)});
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.d2 != b.d2) return a.d2 < b.d2;
    return ranks_before({a.row.median_s, a.row.min_s, a.row.spread, a.row.config_key},
                        {b.row.median_s, b.row.min_s, b.row.spread, b.row.config_key});
  });
  for (const Row& r : rows)
    if (!req.fits || req.fits(r.row.config)) return r.row.config;
  return std::nullopt;
}

RuleAnswer from_lookup(const std::shared_ptr<const LookupAnswer>& a, const Loaded& held) {
  return score_answer(a ? std::string(to_string(a->source)) : "none", a ? &a->config : nullptr,
                      held.rec, held.optimum_s, held.median_s);
}

std::string shape_label(const ShapeRegret& s, const std::vector<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) {
    if (!s.problem.contains(k)) return s.problem.key();
    out += (out.empty() ? "" : "x") + to_text(s.problem.at(k));
  }
  return out.empty() ? s.problem.key() : out;
}

std::string fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

}  // namespace

RuleAnswer score_answer(const std::string& source, const Config* config,
                        const RecordedSpace& recording, double optimum_s, double median_s) {
  RuleAnswer a;
  a.source = source;
  a.time_s = median_s;
  if (config) {
    a.config_key = config->key();
    if (const Result* r = recording.find(*config); r && r->ok() && r->time.median_s > 0) {
      a.recorded = true;
      a.time_s = r->time.median_s;
    }
  }
  a.regret = a.time_s / optimum_s;
  return a;
}

LookupRegretReport leave_one_shape_out(const std::vector<std::string>& recordings,
                                       const LookupRegretOptions& options) {
  if (recordings.empty()) throw std::invalid_argument("bench-lookup needs at least one recording");
  for (const auto& db : options.databases) {
    std::error_code ec;
    if (!fs::is_regular_file(db, ec))
      throw std::invalid_argument("database '" + db + "' does not exist or is not a file");
  }
  std::vector<Loaded> loaded;
  for (const auto& path : recordings) loaded.push_back(load(path));

  const fs::path work =
      !options.work_dir.empty()
          ? options.work_dir
          : fs::temp_directory_path() / ("ktune-bench-lookup-" + std::to_string(::getpid()));
  fs::create_directories(work);

  LookupRegretReport report;
  report.rules = {"nearest", "bucket", "predicted", "model_only", "default", "lookup"};
  report.min_distance = options.rule.min_distance;
  report.shape_keys = loaded.front().family->shape_keys();
  PredictionRule always = options.rule;
  always.min_distance = 0;
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    const Loaded& held = loaded[i];
    std::vector<const Loaded*> others;
    for (const Loaded& l : loaded)
      if (!same_shape(l, held)) others.push_back(&l);
    const fs::path db = work / ("hidden-" + std::to_string(i) + ".db");
    remove_database(db);
    ShapeRegret shape;
    shape.recording = held.name;
    shape.problem = held.problem;
    shape.optimum_s = held.optimum_s;
    shape.median_s = held.median_s;
    try {
      write_database(db, others);
      std::vector<std::string> layers{db.string()};
      layers.insert(layers.end(), options.databases.begin(), options.databases.end());

      LookupRequest req;
      req.family = held.rec.family;
      req.problem = held.problem;
      req.shape_keys = held.family->shape_keys();
      req.shape_class = held.shape_class;
      req.device = held.device.name;
      req.arch = held.device.arch();
      req.family_hash = held.hash;
      const Config fallback = held.family->default_config(held.problem, held.device);
      req.default_config = fallback;
      req.fits = space_validator(*held.family, held.problem, held.device);

      Lookup lookup = Lookup::open_layers(layers);
      auto full = CostModelPredictor::from_databases(layers);
      auto model_only = CostModelPredictor::from_databases(
          layers, {.config_residuals = false, .prior_weight = {}});
      PredictionQuery group_query;
      group_query.request = &req;
      group_query.arch = req.arch;
      group_query.family_hash = req.family_hash;
      group_query.shape_class = req.shape_class;
      shape.prior_weight = full->prior_weight(group_query).value_or(-1);
      const auto nearest = lookup.best(req);
      shape.nearest_distance =
          nearest && nearest->source == LookupSource::nearest ? nearest->distance : -1;
      shape.answers.push_back(from_lookup(nearest, held));
      const auto bucket = bucket_choice(layers, held, req);
      shape.answers.push_back(score_answer(bucket ? "bucket" : "default",
                                           bucket ? &*bucket : &fallback, held.rec, held.optimum_s,
                                           held.median_s));
      lookup.set_predictor(full, always);
      shape.answers.push_back(from_lookup(lookup.best(req), held));
      lookup.set_predictor(model_only, always);
      shape.answers.push_back(from_lookup(lookup.best(req), held));
      shape.answers.push_back(
          score_answer("default", &fallback, held.rec, held.optimum_s, held.median_s));
      lookup.set_predictor(full, options.rule);
      shape.answers.push_back(from_lookup(lookup.best(req), held));
    } catch (...) {
      remove_database(db);
      throw;
    }
    remove_database(db);
    report.shapes.push_back(std::move(shape));
  }
  std::error_code ec;
  if (options.work_dir.empty()) fs::remove_all(work, ec);

  auto summarize = [&](auto regret_of, double& geomean, double& worst, auto counted) {
    double log_sum = 0;
    std::size_t n = 0;
    worst = 0;
    for (const auto& s : report.shapes) {
      if (!counted(s)) continue;
      const double r = regret_of(s);
      log_sum += std::log(r);
      worst = std::max(worst, r);
      ++n;
    }
    geomean = n ? std::exp(log_sum / static_cast<double>(n)) : 0;
    return n;
  };
  const auto every = [](const ShapeRegret&) { return true; };
  // nearest (0) and predicted (2) both measured by the hidden recording
  const auto both = [](const ShapeRegret& s) {
    return s.answers[0].recorded && s.answers[2].recorded;
  };
  report.geomean.resize(report.rules.size());
  report.worst.resize(report.rules.size());
  report.geomean_both_recorded.resize(report.rules.size());
  for (std::size_t r = 0; r < report.rules.size(); ++r) {
    const auto regret = [r](const ShapeRegret& s) { return s.answers[r].regret; };
    summarize(regret, report.geomean[r], report.worst[r], every);
    double unused;
    report.both_recorded = summarize(regret, report.geomean_both_recorded[r], unused, both);
  }
  // The chain at every switch distance worth trying: predicted from d on.
  std::set<double> thresholds{0.0, std::numeric_limits<double>::infinity()};
  for (const auto& s : report.shapes)
    if (s.nearest_distance >= 0) thresholds.insert(s.nearest_distance);
  for (double t : thresholds) {
    SwitchPoint p;
    p.min_distance = t;
    summarize(
        [t](const ShapeRegret& s) {
          const bool predict = s.nearest_distance >= 0 && s.nearest_distance >= t;
          return s.answers[predict ? 2 : 0].regret;
        },
        p.geomean, p.worst, every);
    report.switch_table.push_back(p);
  }
  return report;
}

nlohmann::json to_json(const LookupRegretReport& report) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const auto& s : report.shapes) {
    nlohmann::json answers = nlohmann::json::object();
    for (std::size_t r = 0; r < report.rules.size(); ++r) {
      const RuleAnswer& a = s.answers[r];
      answers[report.rules[r]] = {{"source", a.source},
                                  {"config", a.config_key},
                                  {"recorded", a.recorded},
                                  {"time_s", a.time_s},
                                  {"regret", a.regret}};
    }
    shapes.push_back({{"recording", s.recording},
                      {"problem", s.problem.to_json()},
                      {"optimum_s", s.optimum_s},
                      {"median_s", s.median_s},
                      {"nearest_distance", s.nearest_distance},
                      {"prior_weight", s.prior_weight},
                      {"answers", answers}});
  }
  nlohmann::json summary = nlohmann::json::object();
  for (std::size_t r = 0; r < report.rules.size(); ++r)
    summary[report.rules[r]] = {{"geomean", report.geomean[r]}, {"worst", report.worst[r]}};
  nlohmann::json both = nlohmann::json::object();
  for (std::size_t r = 0; r < report.rules.size(); ++r)
    both[report.rules[r]] = report.geomean_both_recorded[r];
  nlohmann::json switches = nlohmann::json::array();
  for (const auto& p : report.switch_table)
    switches.push_back(
        {{"min_distance",
          std::isfinite(p.min_distance) ? nlohmann::json(p.min_distance) : nlohmann::json("inf")},
         {"geomean", p.geomean},
         {"worst", p.worst}});
  return {{"rules", report.rules},
          {"min_distance", report.min_distance},
          {"shapes", shapes},
          {"summary", summary},
          {"both_recorded", {{"shapes", report.both_recorded}, {"geomean", both}}},
          {"switch_table", switches}};
}

std::string format_table(const LookupRegretReport& report) {
  const std::vector<std::string>& keys = report.shape_keys;
  std::ostringstream out;
  out << "| shape | nearest distance | prior weight |";
  for (const auto& r : report.rules) out << " " << r << " |";
  out << "\n|---|---|---|";
  for (std::size_t r = 0; r < report.rules.size(); ++r) out << "---|";
  out << "\n";
  for (const auto& s : report.shapes) {
    out << "| " << shape_label(s, keys) << " | "
        << (s.nearest_distance >= 0 ? fixed(s.nearest_distance, 2) : "-") << " | "
        << (s.prior_weight >= 0 ? fixed(s.prior_weight, 1) : "-") << " |";
    for (const auto& a : s.answers)
      out << " " << fixed(a.regret, 3) << (a.recorded ? "" : "*") << " |";
    out << "\n";
  }
  out << "| **geomean** | | |";
  for (double g : report.geomean) out << " **" << fixed(g, 3) << "** |";
  out << "\n| **worst** | | |";
  for (double w : report.worst) out << " " << fixed(w, 3) << " |";
  out << "\n| **geomean, " << report.both_recorded << " shapes** | | |";
  for (double g : report.geomean_both_recorded) out << " " << fixed(g, 3) << " |";
  out << "\n\n* the answer is not among the recording's ok results: counted as its median.\n"
      << "geomean, " << report.both_recorded
      << " shapes: over the shapes where both the nearest and the predicted answer were "
         "measured.\n"
      << "prior weight: the predictor's, chosen by its calibration on the other shapes "
         "(leaving each out in turn).\n"
      << "lookup: nearest below distance " << fixed(report.min_distance, 3)
      << ", predicted from it on.\n\n| switch distance | chain geomean | chain worst "
         "|\n|---|---|---|\n";
  for (const auto& p : report.switch_table)
    out << "| " << (std::isfinite(p.min_distance) ? fixed(p.min_distance, 3) : "never") << " | "
        << fixed(p.geomean, 3) << " | " << fixed(p.worst, 3) << " |\n";
  return out.str();
}

}  // namespace ktune
