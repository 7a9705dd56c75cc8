// `model`: model-guided search. Ranks unseen configurations by the cost
// model, measures the top ones, recalibrates (the roofline's efficiency
// factors when the family's work is known, and a local correction from the
// residuals of the nearest measured neighbours), and repeats. When the
// incumbent carries a measured bound class in its metrics ("bound":
// "memory" | "compute" | "latency"), one proposal per batch moves the knob
// that most reduces that term of the model. Without a cost model (a kernel
// ktune has no roofline for) the model is learned from the measurements
// alone: the strategy is `bayes`, the Gaussian process.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include <Eigen/Core>

#include "search/strategies.hpp"

namespace ktune::detail {
namespace {

class ModelSearcher final : public SearcherBase {
 public:
  explicit ModelSearcher(const SearchContext& context) : SearcherBase(context) {
    if (context.roofline && context.work_estimate) model_ = *context.roofline;
  }
  std::string_view name() const override { return "model"; }

  std::vector<Config> propose(std::size_t count) override {
    std::vector<Config> out;
    recalibrate();
    if (auto steered = steer()) {
      if (take(*steered)) out.push_back(std::move(*steered));
    }
    // Candidates: the whole space when it can be listed, else a large pool
    // plus neighbours of the best measured ones.
    std::vector<Config> cand;
    if (const auto* all = listing()) {
      for (std::size_t i = 0; i < all->size(); ++i) {
        Config c = space().config_at(all->row(i));
        if (!seen(c)) cand.push_back(std::move(c));
      }
    } else {
      cand = sample_unseen(2000);
      std::unordered_set<std::string> keys;
      for (const auto& c : cand) keys.insert(c.key());
      const auto ok = ok_by_time();
      for (std::size_t i = 0; i < std::min<std::size_t>(5, ok.size()); ++i)
        for (auto& nb : unseen_neighbours(history()[ok[i]].config))
          if (keys.insert(nb.key()).second) cand.push_back(std::move(nb));
    }
    std::vector<double> score(cand.size());
    for (std::size_t i = 0; i < cand.size(); ++i) score[i] = log_predicted(cand[i]);
    std::vector<std::size_t> order(cand.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return score[a] < score[b]; });
    // Local correction of the leaders by nearby residuals, then re-rank them.
    const std::size_t leaders = std::min<std::size_t>(order.size(), 256);
    for (std::size_t i = 0; i < leaders; ++i) score[order[i]] += local_residual(cand[order[i]]);
    std::stable_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(leaders),
                     [&](std::size_t a, std::size_t b) { return score[a] < score[b]; });
    for (std::size_t i = 0; i < order.size() && out.size() < count; ++i)
      if (take(cand[order[i]])) out.push_back(cand[order[i]]);
    return out;
  }

 private:
  void on_observed(const Result& r) override {
    if (!r.ok()) return;
    residual_points_.push_back(space().encode(r.config));
    residual_configs_.push_back(r.config);
    residual_times_.push_back(std::log(r.time.median_s));
    ++new_ok_;
  }

  const WorkEstimate& work_of(const Config& c) {
    const std::string key = c.key();
    auto it = work_cache_.find(key);
    if (it == work_cache_.end()) it = work_cache_.emplace(key, context().work_estimate(c)).first;
    return it->second;
  }

  double log_predicted(const Config& c) {
    const double t = model_ ? model_->predict(work_of(c)).time_s : context().predicted_time(c);
    return t > 0 && std::isfinite(t) ? std::log(t) : std::numeric_limits<double>::infinity();
  }

  void recalibrate() {
    if (new_ok_ == 0) return;
    new_ok_ = 0;
    if (model_) {
      std::vector<WorkEstimate> works;
      std::vector<double> times;
      for (const auto& r : history())
        if (r.ok()) {
          works.push_back(work_of(r.config));
          times.push_back(r.time.median_s);
        }
      model_->calibrate(works, times);
    }
    residuals_.clear();
    for (std::size_t i = 0; i < residual_configs_.size(); ++i) {
      const double lp = log_predicted(residual_configs_[i]);
      residuals_.push_back(std::isfinite(lp) ? residual_times_[i] - lp : 0.0);
    }
  }

  /// Inverse-distance-weighted mean residual (log measured - log predicted)
  /// of the 3 nearest measured configurations in feature space.
  double local_residual(const Config& c) const {
    if (residuals_.empty()) return 0;
    const Eigen::VectorXd x = space().encode(c);
    std::vector<std::pair<double, std::size_t>> near;
    for (std::size_t i = 0; i < residuals_.size(); ++i)
      near.emplace_back((residual_points_[i] - x).norm(), i);
    const std::size_t k = std::min<std::size_t>(3, near.size());
    std::partial_sort(near.begin(), near.begin() + static_cast<std::ptrdiff_t>(k), near.end());
    double sum = 0, weights = 0;
    for (std::size_t i = 0; i < k; ++i) {
      const double w = 1.0 / (near[i].first + 0.05);
      sum += w * residuals_[near[i].second];
      weights += w;
    }
    return sum / weights;
  }

  /// The unseen neighbour of the incumbent that most reduces the model's
  /// term for the incumbent's measured bound class.
  std::optional<Config> steer() {
    if (!model_) return std::nullopt;
    const auto ok = ok_by_time();
    if (ok.empty()) return std::nullopt;
    const Result& best = history()[ok.front()];
    if (!best.metrics.is_object() || !best.metrics.contains("bound") ||
        !best.metrics["bound"].is_string())
      return std::nullopt;
    const std::string bound = best.metrics["bound"].get<std::string>();
    auto term = [&](const Config& c) {
      const Prediction p = model_->predict(work_of(c));
      if (bound == "memory") return p.memory_s;
      if (bound == "compute") return p.compute_s;
      return p.time_s;  // latency-bound: fewer launches, fuller waves
    };
    const double here = term(best.config);
    std::optional<Config> pick;
    double pick_term = here;
    for (auto& nb : unseen_neighbours(best.config)) {
      const double t = term(nb);
      if (t < pick_term) {
        pick_term = t;
        pick = std::move(nb);
      }
    }
    return pick;
  }

  std::optional<RooflineModel> model_;
  std::unordered_map<std::string, WorkEstimate> work_cache_;
  std::vector<Eigen::VectorXd> residual_points_;
  std::vector<Config> residual_configs_;
  std::vector<double> residual_times_;
  std::vector<double> residuals_;
  std::size_t new_ok_ = 0;
};

}  // namespace

std::unique_ptr<Searcher> make_model_searcher(const SearchContext& context) {
  const bool has_model = (context.roofline && context.work_estimate) || context.predicted_time;
  if (!has_model) return make_bayes_searcher(context, option_text(context, "acquisition", "ei"));
  return std::make_unique<ModelSearcher>(context);
}

}  // namespace ktune::detail
