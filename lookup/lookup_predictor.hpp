// CostModelPredictor: the lookup's model for shapes never measured, the
// family's cost model calibrated on a database's own measurements per GPU.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "db/lookup.hpp"
#include "kernels_templated/family.hpp"
#include "search/cost_model.hpp"

namespace ktune {

struct CostModelPredictorOptions {
  /// Scale each candidate's model time by how its own measurements at other
  /// problems of the class compared with the model: its residuals
  /// log(measured / predicted), each less the median residual of its problem
  /// (so that a problem the model misjudges for every configuration does not
  /// count against the configurations measured there), averaged with weights
  /// 2^-distance to the asked problem and shrunk towards 0 (the problem's
  /// median configuration) by `prior_weight`. Off: the calibrated model alone
  /// ranks.
  bool config_residuals = true;
  /// Weight of the prior in the residual average, in the same units as the
  /// 2^-distance weights: a configuration whose measurements are far from the
  /// asked problem is predicted close to a median one instead of by its far
  /// residuals. Unset: chosen per group at calibration among
  /// kPriorWeightGrid by leaving each measured problem out in turn (the
  /// choice whose picks had the lowest geometric-mean regret on the group's
  /// own measurements).
  std::optional<double> prior_weight;
};

/// The prior weights the calibration chooses from.
inline constexpr std::array<double, 5> kPriorWeightGrid{0, 0.3, 1, 3, 10};
/// The prior weight of a group with too few measured problems to choose one
/// (fewer than 3).
inline constexpr double kDefaultPriorWeight = 1;

/// Installed on a Lookup (Lookup::set_predictor): one RooflineModel per
/// (family, template hash, shape class, GPU), calibrated at construction on
/// every ok measurement stored for them (families this build does not
/// register are skipped). choose() predicts each candidate's time for the
/// asked problem with the group's model and picks the fastest. Thread-safe
/// (read-only after construction).
class CostModelPredictor final : public LookupPredictor {
 public:
  explicit CostModelPredictor(const std::vector<Measurement>& measurements,
                              CostModelPredictorOptions options = {});
  /// Every measurement of the databases (read-only opens). Throws DatabaseError.
  static std::shared_ptr<CostModelPredictor> from_databases(const std::vector<std::string>& paths,
                                                            CostModelPredictorOptions options = {});

  std::optional<PredictedChoice> choose(const PredictionQuery& query) const override;

  /// The calibration (every group's model, residuals and prior weight), so
  /// that a later process skips the fit (lookup/lookup_predictor_cache.hpp).
  nlohmann::json to_json() const;
  /// The predictor to_json described, with `options` for its choices. Throws
  /// std::invalid_argument when `j` is malformed or names a family this
  /// build does not register (a calibration to fit again).
  static std::shared_ptr<CostModelPredictor> from_json(const nlohmann::json& j,
                                                       CostModelPredictorOptions options = {});

  /// Calibrated groups (family, hash, class, GPU).
  std::size_t models() const { return groups_.size(); }
  /// The prior weight of the group that would answer `query`; nullopt when
  /// none would.
  std::optional<double> prior_weight(const PredictionQuery& query) const;

  struct Group;

 private:
  explicit CostModelPredictor(CostModelPredictorOptions options) : options_(options) {}
  const Group* group_for(const PredictionQuery& query) const;
  CostModelPredictorOptions options_;
  std::map<std::string, std::shared_ptr<const Group>> groups_;  // family, hash, class, GPU name
};

}  // namespace ktune
