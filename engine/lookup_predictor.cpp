// CostModelPredictor: groups of measurements, their calibrated models and
// per-configuration residuals, and the ranking of a lookup's candidates.
#include "engine/lookup_predictor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

namespace ktune {
namespace {

constexpr char kSep = '\x1f';

std::vector<double> log_shape(const Problem& p, const std::vector<std::string>& keys) {
  std::vector<double> out;
  for (const auto& k : keys) {
    if (!p.contains(k) || std::holds_alternative<std::string>(p.at(k))) return {};
    const double x = as_number(p.at(k));
    if (!(x > 0)) return {};
    out.push_back(std::log2(x));
  }
  return out;
}

double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double d2 = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) d2 += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(d2);
}

const KernelFamily* registered_family(const std::string& name) {
  try {
    return &find_family(name);
  } catch (const std::invalid_argument&) {
    return nullptr;
  }
}

}  // namespace

struct CostModelPredictor::Group {
  const KernelFamily* family = nullptr;
  DeviceSpec device;
  std::vector<std::string> shape_keys;
  RooflineModel model{DeviceSpec{}};
  std::vector<Problem> learned_from;
  struct Residual {
    std::vector<double> log_shape;
    double log_ratio = 0;  ///< log(measured / predicted)
  };
  std::unordered_map<std::string, std::vector<Residual>> residuals;  // by config key
  std::vector<Residual> all_residuals;
};

namespace {

/// The mean of the residuals' log ratios, each weighted 2^-distance from `here`.
double weighted_log_ratio(const std::vector<CostModelPredictor::Group::Residual>& residuals,
                          const std::vector<double>& here) {
  double weighted = 0, weights = 0;
  for (const auto& r : residuals) {
    const double w = std::exp2(-distance(here, r.log_shape));
    weighted += w * r.log_ratio;
    weights += w;
  }
  return weights > 0 ? weighted / weights : 0;
}

}  // namespace

CostModelPredictor::CostModelPredictor(const std::vector<Measurement>& measurements,
                                       CostModelPredictorOptions options)
    : options_(options) {
  struct Sample {
    WorkEstimate work;
    double time_s;
    std::string config_key;
    std::vector<double> log_shape;
  };
  struct Pending {
    Group group;
    std::vector<Sample> samples;
    std::map<std::string, Problem> problems;
  };
  std::map<std::string, Pending> pending;
  for (const Measurement& m : measurements) {
    if (!m.result.ok() || !(m.result.time.median_s > 0)) continue;
    const KernelFamily* family = registered_family(m.key.family);
    if (!family) continue;
    DeviceSpec device = m.key.device;
    if (device.sm_count <= 0) {
      auto builtin = find_builtin_device(device.name);
      if (!builtin) continue;
      builtin->name = device.name;
      device = *builtin;
    }
    try {
      const std::string shape_class =
          m.key.shape_class.empty() ? family->shape_class(m.key.problem) : m.key.shape_class;
      WorkEstimate work = family->estimate(m.key.problem, m.result.config, device);
      Pending& p = pending[m.key.family + kSep + m.key.family_hash + kSep + shape_class + kSep +
                           device.name];
      if (!p.group.family) {
        p.group.family = family;
        p.group.device = device;
        p.group.shape_keys = family->shape_keys();
      }
      p.samples.push_back({std::move(work), m.result.time.median_s, m.result.config.key(),
                           log_shape(m.key.problem, p.group.shape_keys)});
      p.problems.try_emplace(m.key.problem.key(), m.key.problem);
    } catch (const std::exception&) {
      // a measurement the family cannot estimate (an older knob set) teaches nothing
    }
  }
  for (auto& [key, p] : pending) {
    std::vector<WorkEstimate> work;
    std::vector<double> times;
    for (const Sample& s : p.samples) {
      work.push_back(s.work);
      times.push_back(s.time_s);
    }
    p.group.model = RooflineModel(p.group.device);
    p.group.model.calibrate(work, times);
    if (p.group.model.calibration().samples == 0) continue;  // too few points to learn from
    for (const Sample& s : p.samples) {
      const double predicted = p.group.model.predict(s.work).time_s;
      if (predicted > 0 && std::isfinite(predicted)) {
        const Group::Residual r{s.log_shape, std::log(s.time_s / predicted)};
        p.group.residuals[s.config_key].push_back(r);
        p.group.all_residuals.push_back(r);
      }
    }
    for (auto& [unused, problem] : p.problems) p.group.learned_from.push_back(problem);
    groups_.emplace(key, std::make_shared<const Group>(std::move(p.group)));
  }
}

std::shared_ptr<CostModelPredictor> CostModelPredictor::from_databases(
    const std::vector<std::string>& paths, CostModelPredictorOptions options) {
  std::vector<Measurement> all;
  for (const auto& path : paths) {
    const Store store = Store::open_read_only(path);
    store.for_each([&](const Measurement& m) {
      all.push_back(m);
      return true;
    });
  }
  return std::make_shared<CostModelPredictor>(all, options);
}

const CostModelPredictor::Group* CostModelPredictor::group_for(const PredictionQuery& q) const {
  const LookupRequest& req = *q.request;
  const std::string prefix = req.family + kSep + q.family_hash + kSep + q.shape_class + kSep;
  if (!req.device.empty()) {
    auto it = groups_.find(prefix + req.device);
    return it == groups_.end() ? nullptr : it->second.get();
  }
  // An arch alone: the GPU of that arch with the most measured problems.
  const Group* best = nullptr;
  for (auto it = groups_.lower_bound(prefix); it != groups_.end() && it->first.starts_with(prefix);
       ++it)
    if (it->second->device.arch() == q.arch &&
        (!best || it->second->learned_from.size() > best->learned_from.size()))
      best = it->second.get();
  return best;
}

std::optional<PredictedChoice> CostModelPredictor::choose(const PredictionQuery& q) const {
  const Group* g = group_for(q);
  if (!g) return std::nullopt;
  const Problem& problem = q.request->problem;
  const std::vector<double> here = log_shape(problem, g->shape_keys);
  std::optional<PredictedChoice> best;
  for (std::size_t i = 0; i < q.candidates.size(); ++i) {
    double t = std::numeric_limits<double>::infinity();
    try {
      t = g->model.predict(g->family->estimate(problem, q.candidates[i], g->device)).time_s;
    } catch (const std::exception&) {
      continue;  // a candidate the family cannot price is never chosen
    }
    if (!(t > 0) || !std::isfinite(t)) continue;
    if (options_.config_residuals && !here.empty()) {
      // A configuration never measured here (the general one) takes the
      // model's bias over all measurements, so that it competes on the
      // same footing as the measured ones.
      auto it = g->residuals.find(q.candidates[i].key());
      t *= std::exp(
          weighted_log_ratio(it != g->residuals.end() ? it->second : g->all_residuals, here));
    }
    if (!best || t < best->predicted_s) best = PredictedChoice{i, t, {}};
  }
  if (best) best->learned_from = g->learned_from;
  return best;
}

}  // namespace ktune
