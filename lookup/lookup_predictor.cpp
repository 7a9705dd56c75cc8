// CostModelPredictor: groups of measurements, their calibrated models and
// per-configuration residuals, and the ranking of a lookup's candidates.
#include "lookup/lookup_predictor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "lookup/median.hpp"

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
  std::vector<std::vector<double>> problem_shapes;  ///< log shapes, by problem index
  struct Residual {
    double log_ratio = 0;  ///< log(measured / predicted) less its problem's median
    std::size_t problem = 0;
  };
  std::unordered_map<std::string, std::vector<Residual>> residuals;  // by config key
  double prior_weight = kDefaultPriorWeight;
};

namespace {

using Residuals = std::vector<CostModelPredictor::Group::Residual>;
constexpr std::size_t kNoProblem = std::numeric_limits<std::size_t>::max();

/// 2^-distance from `here` to each measured problem of the group.
std::vector<double> problem_weights(const CostModelPredictor::Group& g,
                                    const std::vector<double>& here) {
  std::vector<double> out;
  out.reserve(g.problem_shapes.size());
  for (const auto& shape : g.problem_shapes) out.push_back(std::exp2(-distance(here, shape)));
  return out;
}

/// The residuals' log ratios averaged with their problems' weights, with a
/// prior of 0 weighing `prior_weight`; the residuals of problem `skip` are
/// left out.
double shrunk_log_ratio(const Residuals& residuals, const std::vector<double>& weights,
                        double prior_weight, std::size_t skip = kNoProblem) {
  double weighted = 0, sum = prior_weight;
  for (const auto& r : residuals) {
    if (r.problem == skip) continue;
    weighted += weights[r.problem] * r.log_ratio;
    sum += weights[r.problem];
  }
  return sum > 0 ? weighted / sum : 0;
}

/// One measured configuration of one problem, as the calibration saw it.
struct Point {
  std::string config_key;
  double time_s = 0;
  double log_model = 0;  ///< log of the model's time
};

/// One measured problem hidden from the others: the candidates the lookup
/// would offer for it (the fastest configurations of the other problems) that
/// it measured, and its optimum.
struct HiddenProblem {
  struct Candidate {
    double log_model = 0;
    double time_s = 0;
    const Residuals* residuals = nullptr;  ///< null: none
  };
  std::vector<Candidate> candidates;  ///< in configuration key order (ties break alike)
  double optimum_s = 0;
};

std::vector<HiddenProblem> hidden_problems(const CostModelPredictor::Group& g,
                                           const std::vector<std::vector<Point>>& by_problem) {
  const std::size_t winners = PredictionRule{}.winners_per_problem;
  std::vector<HiddenProblem> out(by_problem.size());
  for (std::size_t y = 0; y < by_problem.size(); ++y) {
    std::map<std::string, const Point*> here;
    for (const Point& p : by_problem[y]) here.emplace(p.config_key, &p);
    std::map<std::string, const Point*> offered;
    for (std::size_t s = 0; s < by_problem.size(); ++s) {
      if (s == y) continue;
      // by_problem[s] is sorted fastest first
      for (std::size_t i = 0; i < by_problem[s].size() && i < winners; ++i)
        if (auto it = here.find(by_problem[s][i].config_key); it != here.end()) offered.insert(*it);
    }
    out[y].optimum_s = by_problem[y].empty() ? 0 : by_problem[y].front().time_s;
    for (const auto& [key, point] : offered) {
      auto it = g.residuals.find(key);
      out[y].candidates.push_back(
          {point->log_model, point->time_s, it == g.residuals.end() ? nullptr : &it->second});
    }
  }
  return out;
}

/// Geometric-mean regret of the predictor's picks with this prior weight,
/// each measured problem hidden in turn and its candidates ranked by the
/// model and the other problems' residuals. Infinity when none was scored.
double leave_one_problem_out_regret(const std::vector<HiddenProblem>& hidden,
                                    const std::vector<std::vector<double>>& weights,
                                    double prior_weight) {
  double log_sum = 0;
  std::size_t scored = 0;
  for (std::size_t y = 0; y < hidden.size(); ++y) {
    const HiddenProblem::Candidate* best = nullptr;
    double best_log = std::numeric_limits<double>::infinity();
    for (const auto& c : hidden[y].candidates) {
      const double t =
          c.log_model +
          (c.residuals ? shrunk_log_ratio(*c.residuals, weights[y], prior_weight, y) : 0);
      if (t < best_log) {
        best_log = t;
        best = &c;
      }
    }
    if (!best) continue;
    log_sum += std::log(best->time_s / hidden[y].optimum_s);
    ++scored;
  }
  return scored ? std::exp(log_sum / static_cast<double>(scored))
                : std::numeric_limits<double>::infinity();
}

double chosen_prior_weight(const CostModelPredictor::Group& g,
                           const std::vector<std::vector<Point>>& by_problem) {
  if (by_problem.size() < 3) return kDefaultPriorWeight;
  std::vector<std::vector<double>> weights;  // between the measured problems
  for (const auto& shape : g.problem_shapes) weights.push_back(problem_weights(g, shape));
  const std::vector<HiddenProblem> hidden = hidden_problems(g, by_problem);
  double best = kDefaultPriorWeight, best_regret = std::numeric_limits<double>::infinity();
  for (double w : kPriorWeightGrid) {
    const double regret = leave_one_problem_out_regret(hidden, weights, w);
    if (regret < best_regret) {
      best_regret = regret;
      best = w;
    }
  }
  return best;
}

}  // namespace

CostModelPredictor::CostModelPredictor(const std::vector<Measurement>& measurements,
                                       CostModelPredictorOptions options)
    : options_(options) {
  struct Sample {
    WorkEstimate work;
    double time_s;
    std::string config_key;
    std::size_t problem;  ///< index into Pending::problems
  };
  struct Pending {
    Group group;
    std::vector<Sample> samples;
    std::map<std::string, std::size_t> problem_index;  // by problem key
    std::vector<Problem> problems;
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
      const auto [it, added] = p.problem_index.try_emplace(m.key.problem.key(), p.problems.size());
      if (added) p.problems.push_back(m.key.problem);
      p.samples.push_back(
          {std::move(work), m.result.time.median_s, m.result.config.key(), it->second});
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
    std::vector<std::vector<Point>> by_problem(p.problems.size());
    for (const Sample& s : p.samples) {
      const double predicted = p.group.model.predict(s.work).time_s;
      if (predicted > 0 && std::isfinite(predicted))
        by_problem[s.problem].push_back({s.config_key, s.time_s, std::log(predicted)});
    }
    for (const Problem& problem : p.problems)
      p.group.problem_shapes.push_back(log_shape(problem, p.group.shape_keys));
    for (std::size_t i = 0; i < by_problem.size(); ++i) {
      auto& points = by_problem[i];
      if (points.empty()) continue;
      std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
        return a.time_s != b.time_s ? a.time_s < b.time_s : a.config_key < b.config_key;
      });
      std::vector<double> ratios;
      for (const Point& pt : points) ratios.push_back(std::log(pt.time_s) - pt.log_model);
      const double centre = median_of(ratios);
      for (std::size_t j = 0; j < points.size(); ++j)
        p.group.residuals[points[j].config_key].push_back({ratios[j] - centre, i});
    }
    p.group.prior_weight =
        options_.prior_weight ? *options_.prior_weight : chosen_prior_weight(p.group, by_problem);
    for (const Problem& problem : p.problems) p.group.learned_from.push_back(problem);
    std::sort(p.group.learned_from.begin(), p.group.learned_from.end(),
              [](const Problem& a, const Problem& b) { return a.key() < b.key(); });
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

nlohmann::json CostModelPredictor::to_json() const {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& [key, g] : groups_) {
    const Calibration& c = g->model.calibration();
    nlohmann::json learned = nlohmann::json::array();
    for (const Problem& p : g->learned_from) learned.push_back(p.to_json());
    nlohmann::json residuals = nlohmann::json::object();
    for (const auto& [config, list] : g->residuals) {
      nlohmann::json& out = residuals[config];
      for (const Group::Residual& r : list) out.push_back({r.log_ratio, r.problem});
    }
    groups.push_back({{"key", key},
                      {"family", std::string(g->family->name())},
                      {"device", g->device.to_json()},
                      {"shape_keys", g->shape_keys},
                      {"calibration",
                       {{"compute_efficiency", c.compute_efficiency},
                        {"memory_efficiency", c.memory_efficiency},
                        {"launch_overhead_s", c.launch_overhead_s},
                        {"samples", c.samples},
                        {"term_weights", c.term_weights}}},
                      {"learned_from", learned},
                      {"problem_shapes", g->problem_shapes},
                      {"residuals", residuals},
                      {"prior_weight", g->prior_weight}});
  }
  return {{"groups", groups}};
}

std::shared_ptr<CostModelPredictor> CostModelPredictor::from_json(
    const nlohmann::json& j, CostModelPredictorOptions options) {
  std::shared_ptr<CostModelPredictor> out(new CostModelPredictor(options));
  try {
    for (const nlohmann::json& gj : j.at("groups")) {
      auto g = std::make_shared<Group>();
      g->family = registered_family(gj.at("family").get<std::string>());
      if (!g->family)
        throw std::invalid_argument("family '" + gj.at("family").get<std::string>() +
                                    "' is not registered in this build");
      g->device = DeviceSpec::from_json(gj.at("device"));
      g->shape_keys = gj.at("shape_keys").get<std::vector<std::string>>();
      const nlohmann::json& cj = gj.at("calibration");
      Calibration c;
      c.compute_efficiency = cj.at("compute_efficiency").get<double>();
      c.memory_efficiency = cj.at("memory_efficiency").get<double>();
      c.launch_overhead_s = cj.at("launch_overhead_s").get<double>();
      c.samples = cj.at("samples").get<int>();
      c.term_weights = cj.at("term_weights").get<std::vector<double>>();
      g->model = RooflineModel(g->device, c);
      for (const nlohmann::json& p : gj.at("learned_from"))
        g->learned_from.push_back(Problem::from_json(p));
      g->problem_shapes = gj.at("problem_shapes").get<std::vector<std::vector<double>>>();
      for (const auto& [config, list] : gj.at("residuals").items())
        for (const nlohmann::json& r : list) {
          const std::size_t problem = r.at(1).get<std::size_t>();
          if (problem >= g->problem_shapes.size())
            throw std::invalid_argument("a residual names problem " + std::to_string(problem) +
                                        " of " + std::to_string(g->problem_shapes.size()));
          g->residuals[config].push_back({r.at(0).get<double>(), problem});
        }
      g->prior_weight = gj.at("prior_weight").get<double>();
      out->groups_.emplace(gj.at("key").get<std::string>(), std::move(g));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("malformed predictor calibration: ") + e.what());
  }
  return out;
}

const CostModelPredictor::Group* CostModelPredictor::group_for(const PredictionQuery& q) const {
  const LookupRequest& req = *q.request;
  const std::string prefix = req.family + kSep + q.family_hash + kSep + q.shape_class + kSep;
  const std::string& device = !q.measured_on.empty() ? q.measured_on : req.device;
  if (!device.empty()) {
    auto it = groups_.find(prefix + device);
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

std::optional<double> CostModelPredictor::prior_weight(const PredictionQuery& query) const {
  const Group* g = group_for(query);
  return g ? std::optional<double>(g->prior_weight) : std::nullopt;
}

std::optional<PredictedChoice> CostModelPredictor::choose(const PredictionQuery& q) const {
  const Group* g = group_for(q);
  if (!g) return std::nullopt;
  // The roofline of the GPU asked about, with the weights its arch sibling's
  // measurements calibrated: the terms carry the specs (SMs, clocks,
  // bandwidth, L2, shared memory), the weights the efficiencies.
  const DeviceSpec& target = q.device ? *q.device : g->device;
  const RooflineModel retargeted(target, g->model.calibration());
  const RooflineModel& model = q.device ? retargeted : g->model;
  const Problem& problem = q.request->problem;
  const std::vector<double> here = log_shape(problem, g->shape_keys);
  const std::vector<double> weights =
      here.empty() ? std::vector<double>{} : problem_weights(*g, here);
  std::optional<PredictedChoice> best;
  for (std::size_t i = 0; i < q.candidates.size(); ++i) {
    double t = std::numeric_limits<double>::infinity();
    try {
      t = model.predict(g->family->estimate(problem, q.candidates[i], target)).time_s;
    } catch (const std::exception&) {
      continue;  // a candidate the family cannot price is never chosen
    }
    if (!(t > 0) || !std::isfinite(t)) continue;
    if (options_.config_residuals && !here.empty()) {
      // A configuration never measured here (the general one) is predicted
      // as a median configuration: the model's time alone.
      auto it = g->residuals.find(q.candidates[i].key());
      if (it != g->residuals.end())
        t *= std::exp(shrunk_log_ratio(it->second, weights, g->prior_weight));
    }
    if (!best || t < best->predicted_s) best = PredictedChoice{i, t, {}, {}};
  }
  if (best) {
    best->learned_from = g->learned_from;
    best->learned_on = g->device.name;
  }
  return best;
}

}  // namespace ktune
