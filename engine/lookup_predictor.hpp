// CostModelPredictor: the lookup's model for shapes never measured, the
// family's cost model calibrated on a database's own measurements per GPU.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "db/lookup.hpp"
#include "kernels_templated/family.hpp"
#include "search/cost_model.hpp"

namespace ktune {

struct CostModelPredictorOptions {
  /// Scale each candidate's model time by how its own measurements at other
  /// problems of the class compared with the model (the geometric mean of
  /// measured / predicted, each weighted 2^-distance to the asked problem).
  /// Off: the calibrated model alone ranks.
  bool config_residuals = true;
};

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

  /// Calibrated groups (family, hash, class, GPU).
  std::size_t models() const { return groups_.size(); }

  struct Group;

 private:
  const Group* group_for(const PredictionQuery& query) const;
  CostModelPredictorOptions options_;
  std::map<std::string, std::shared_ptr<const Group>> groups_;  // family, hash, class, GPU name
};

}  // namespace ktune
