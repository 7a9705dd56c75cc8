// OnlineCostModel: a strategy's view of the cost model, recalibrated on the
// strategy's own measurements as they arrive (internal to search/).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "search/searcher.hpp"

namespace ktune::detail {

/// Log predicted times from the context's cost model. With a roofline and a
/// work estimate, the model is recalibrated (RooflineModel::calibrate: the
/// term weights once enough estimates describe their main loop, else the
/// roofline's factors) on every ok result observed so far, lazily before the
/// next prediction; with predicted_time alone the predictions are fixed.
/// Without either, usable() is false.
class OnlineCostModel {
 public:
  explicit OnlineCostModel(const SearchContext& context, bool recalibrate = true);
  bool usable() const { return usable_; }
  /// True once a calibration on measurements here is in use (rather than the
  /// model the context came with).
  bool calibrated_here() const { return calibrated_here_; }
  /// True when the predictions deserve to rank candidates: a term model
  /// (calibrated here or given calibrated), or a bare predicted_time the
  /// caller chose to give.
  /// Recalibrates first when new results arrived.
  bool trusted() {
    refresh();
    return model_ ? !model_->calibration().term_weights.empty() : usable_;
  }
  /// Records an observed result (only ok ones teach the model).
  void observe(const Result& r);
  /// log(predicted seconds), +infinity when the model cannot price it.
  double log_time(const Config& c);
  /// Recalibrates now if new results arrived (log_time does it lazily).
  void refresh();

 private:
  const WorkEstimate* work_of(const Config& c);

  const SearchContext* context_;
  bool usable_ = false;
  bool recalibrate_ = true;
  bool calibrated_here_ = false;
  std::optional<RooflineModel> model_;
  std::unordered_map<std::string, std::optional<WorkEstimate>> work_cache_;
  std::vector<WorkEstimate> works_;
  std::vector<double> times_;
  std::size_t calibrated_at_ = 0;
  std::unordered_map<std::string, double> log_cache_;  ///< cleared when the model changes
};

/// The n configurations of `pool` with the smallest predicted time (stable
/// on ties; unpriceable ones last).
std::vector<Config> best_predicted(OnlineCostModel& model, std::vector<Config> pool, std::size_t n);

}  // namespace ktune::detail
