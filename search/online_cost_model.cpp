// OnlineCostModel: cached work estimates, lazy recalibration, log times.
#include "search/online_cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace ktune::detail {

OnlineCostModel::OnlineCostModel(const SearchContext& context, bool recalibrate)
    : context_(&context), recalibrate_(recalibrate) {
  if (context.roofline && context.work_estimate) model_ = *context.roofline;
  usable_ = model_.has_value() || static_cast<bool>(context.predicted_time);
}

const WorkEstimate* OnlineCostModel::work_of(const Config& c) {
  const std::string key = c.key();
  auto it = work_cache_.find(key);
  if (it == work_cache_.end()) {
    std::optional<WorkEstimate> w;
    try {
      w = context_->work_estimate(c);
    } catch (const std::exception&) {
      // A configuration the family cannot estimate: no prediction, no lesson.
    }
    it = work_cache_.emplace(key, std::move(w)).first;
  }
  return it->second ? &*it->second : nullptr;
}

void OnlineCostModel::observe(const Result& r) {
  if (!model_ || !recalibrate_ || !r.ok() || !(r.time.median_s > 0)) return;
  if (const WorkEstimate* w = work_of(r.config)) {
    works_.push_back(*w);
    times_.push_back(r.time.median_s);
  }
}

void OnlineCostModel::refresh() {
  if (!model_ || !recalibrate_ || works_.size() == calibrated_at_) return;
  // Past a few dozen points one more barely moves the fit: refit when the
  // data grew by a twentieth (keeps a proposal cheap at 1000s of points).
  if (calibrated_at_ >= 40 && works_.size() < calibrated_at_ + calibrated_at_ / 20) return;
  calibrated_at_ = works_.size();
  // Always from the context's model, so an early fit on a handful of points
  // does not anchor later ones (the ridge pulls towards the context's weights).
  RooflineModel fresh = *context_->roofline;
  fresh.calibrate(works_, times_);
  if (fresh.calibration().samples == 0) return;
  model_ = std::move(fresh);
  calibrated_here_ = true;
  log_cache_.clear();
}

double OnlineCostModel::log_time(const Config& c) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (!usable_) return kInf;
  refresh();
  const std::string key = c.key();
  if (auto it = log_cache_.find(key); it != log_cache_.end()) return it->second;
  double t = kInf;
  if (model_) {
    if (const WorkEstimate* w = work_of(c)) t = model_->predict(*w).time_s;
  } else {
    try {
      t = context_->predicted_time(c);
    } catch (const std::exception&) {
    }
  }
  const double lt = t > 0 && std::isfinite(t) ? std::log(t) : kInf;
  log_cache_.emplace(key, lt);
  return lt;
}

std::vector<Config> best_predicted(OnlineCostModel& model, std::vector<Config> pool, std::size_t n) {
  std::vector<double> score(pool.size());
  for (std::size_t i = 0; i < pool.size(); ++i) score[i] = model.log_time(pool[i]);
  std::vector<std::size_t> order(pool.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return score[a] < score[b]; });
  std::vector<Config> out;
  for (std::size_t i = 0; i < order.size() && out.size() < n; ++i) out.push_back(std::move(pool[order[i]]));
  return out;
}

}  // namespace ktune::detail
