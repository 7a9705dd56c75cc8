// Lookup regret: each recorded shape hidden in turn, the lookup built from the
// other recordings (and databases), and every rule scored by the recorded
// time of its answer over the recorded optimum (`ktune bench-lookup`).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/lookup.hpp"
#include "search/recorded_space.hpp"
#include "space/value_map.hpp"

namespace ktune {

struct LookupRegretOptions {
  /// Databases layered under the recordings (their measurements answer and
  /// teach the predictor too).
  std::vector<std::string> databases;
  /// The switch the "lookup" rule uses (the chain as `ktune lookup` serves it).
  PredictionRule rule;
  /// Where the per-shape databases are written (and removed); empty: the
  /// system's temporary folder.
  std::filesystem::path work_dir;
};

/// One rule's answer for one hidden shape.
struct RuleAnswer {
  std::string source;      ///< the lookup's source of the answer (exact, nearest, predicted, ...)
  std::string config_key;  ///< empty: no answer
  bool recorded = false;   ///< the recording measured it ok (else it counts as the median)
  double time_s = 0;       ///< recorded time (or the recording's median)
  double regret = 0;       ///< time_s / the recording's optimum
};

struct ShapeRegret {
  std::string recording;  ///< file name
  Problem problem;        ///< normalized
  double optimum_s = 0;
  double median_s = 0;  ///< median of the recording's ok times
  /// log2-space distance to the nearest other measured shape of the class
  /// that could answer (negative: none).
  double nearest_distance = -1;
  /// The predictor's prior weight for this shape's group, as its calibration
  /// on the other shapes chose it (negative: no group, the predictor declined).
  double prior_weight = -1;
  std::vector<RuleAnswer> answers;  ///< in LookupRegretReport::rules order
};

/// The chain (nearest below a distance, predicted from it on) at one switch
/// distance, over every shape.
struct SwitchPoint {
  double min_distance = 0;
  double geomean = 0, worst = 0;
};

struct LookupRegretReport {
  /// nearest: today's exact-or-nearest chain (no predictor); bucket: the
  /// emitted header's rule; predicted: the predictor wherever the shape is not
  /// measured; model_only: the same without the per-configuration residuals;
  /// default: the family's general configuration; lookup: the chain with
  /// the options' PredictionRule.
  std::vector<std::string> rules;
  std::vector<ShapeRegret> shapes;
  std::vector<std::string>
      shape_keys;  ///< of the first recording's family (the table's shape column)
  std::vector<double> geomean, worst;  ///< per rule
  /// The same over the shapes where both the nearest and the predicted
  /// answers were measured by the hidden recording (no median stand-ins).
  std::size_t both_recorded = 0;
  std::vector<double> geomean_both_recorded;
  double min_distance = 0;  ///< the "lookup" rule's switch
  std::vector<SwitchPoint> switch_table;
};

/// Leave one shape out over the recordings (ktune recordings of registered
/// families, each with a device and an ok result). Recordings of the same
/// family and problem are hidden together. Throws std::invalid_argument for
/// a file it cannot use (naming it and why).
LookupRegretReport leave_one_shape_out(const std::vector<std::string>& recordings,
                                       const LookupRegretOptions& options = {});

/// Regret of an answer against a recording: its ok recorded time over the
/// optimum, or the recording's median over the optimum when the answer is
/// missing from the recording or did not run ok there.
/// (`config` null: no answer, scored as the median.)
RuleAnswer score_answer(const std::string& source, const Config* config,
                        const RecordedSpace& recording, double optimum_s, double median_s);

nlohmann::json to_json(const LookupRegretReport& report);
/// Markdown: one row per shape, then the geomean and worst rows, then the switch table.
std::string format_table(const LookupRegretReport& report);

}  // namespace ktune
