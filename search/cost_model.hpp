// RooflineModel: predicted time and bound class of a configuration from the
// family's WorkEstimate and the device's ceilings, with calibration: the
// roofline's efficiency factors, or, when the family describes its main
// loop, one weight per cost term (a least-squares fit per family and device).
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "space/device_spec.hpp"
#include "space/work.hpp"

namespace ktune {

enum class Bound { memory, compute, latency };
std::string_view to_string(Bound b);

/// Mechanisms of the term model. Each term is the time one mechanism would
/// take alone at its ideal rate (seconds); a calibrated model predicts
/// sum_j weight_j x term_j, so a weight is an inverse efficiency (or, for the
/// latency terms, a latency in microseconds). search/README.md defines each.
enum class CostTerm {
  compute,           ///< executed FLOPs at the unit's peak, wave-quantized
  dram,              ///< DRAM bytes (+ extra bytes) at the DRAM ceiling
  launch,            ///< 1 us per kernel launch
  shared_traffic,    ///< shared-memory bytes at 128 B/clock per SM, wave-quantized
  split_reduce,      ///< extra bytes (split-K partials) at the DRAM ceiling
  pipeline_latency,  ///< 1 us per main-loop iteration of a wave / max(stages - 1, 1/2)
  iteration_latency, ///< 1 us per main-loop iteration of a wave
  block_iterations,  ///< 1 us per main-loop iteration of each resident block (per SM, serial)
  block_load_issue,  ///< one clock per warp-level copy of a block's iteration, per wave
  predicated_load_issue,  ///< one clock per copy of all resident blocks, bounds-checked copies only
  thread_load_issue_predicated,  ///< ten clocks per copy of one thread's iteration, per wave, bounds-checked only
  tensor_underfill,  ///< compute x max(0, 8 / resident warps - 1): too few warps to feed the math units
  prologue,          ///< 1 us per pipeline stage filled before a wave's first iteration
};
inline constexpr std::size_t kCostTerms = 13;
std::string_view to_string(CostTerm t);
/// Every term, in enum order.
const std::array<CostTerm, kCostTerms>& all_cost_terms();
/// The terms a calibration fits when the estimates describe their main loop.
/// Chosen by forward selection on the three H200 GEMM recordings with
/// leave-one-shape-out rank correlation as the criterion (so the choice of
/// terms, though not their weights, has seen that data: a held-out GPU or
/// family may want other terms).
const std::vector<CostTerm>& default_loop_terms();

struct Prediction {
  double time_s = 0;
  Bound bound = Bound::latency;
  double compute_s = 0;   ///< compute term(s) after wave quantization and occupancy
  double memory_s = 0;    ///< DRAM term(s)
  double latency_s = 0;   ///< launch, latency and issue terms
  double waves = 0;       ///< blocks / (SMs x resident blocks per SM)
  int resident_blocks_per_sm = 0;
  bool term_model = false;  ///< predicted by the calibrated term model (else the roofline)
};

/// Efficiency factors fitted per (family, device); 1.0 means "reaches the ceiling".
struct Calibration {
  double compute_efficiency = 0.7;
  double memory_efficiency = 0.8;
  double launch_overhead_s = 4e-6;
  int samples = 0;  ///< measurements the fit used; 0 = uncalibrated defaults
  /// Term model weights, one per CostTerm in enum order (0 for a term not
  /// fitted); empty = predict with the roofline factors above. Used only for
  /// estimates that describe their main loop (loop_iterations > 0).
  std::vector<double> term_weights;
};

/// Options of RooflineModel::calibrate.
struct CalibrationOptions {
  /// Terms the term model fits (default_loop_terms() when empty).
  std::vector<CostTerm> terms;
  /// Ridge towards the current term weights (or zero when there are none),
  /// relative to the data (see nonnegative_least_squares): keeps a fit on a
  /// handful of points near what was known before.
  double ridge = 1e-4;
  /// Fewest points with a described main loop for a term-model fit without
  /// prior weights; below it the roofline factors are fitted instead.
  std::size_t min_term_samples = 12;
};

/// The raw (unweighted) cost terms of one estimate on one device, in enum
/// order, and the occupancy they assumed. fits = false when a block cannot be
/// resident (then every term is +infinity).
struct CostTerms {
  std::array<double, kCostTerms> seconds{};
  int resident_blocks_per_sm = 0;
  double waves = 0;
  bool fits = true;
  bool has_loop = false;  ///< the estimate describes its main loop
};
CostTerms cost_terms(const WorkEstimate& work, const DeviceSpec& device);

/// The roofline: max(compute, memory) + latency, with wave quantization,
/// occupancy and padding waste taken from the WorkEstimate; once calibrated
/// on estimates that describe their main loop, the term model.
class RooflineModel {
 public:
  explicit RooflineModel(DeviceSpec device, Calibration calibration = {});
  Prediction predict(const WorkEstimate& work) const;
  /// Least-squares fit to measured (estimate, time) pairs, relative error:
  /// the term weights (non-negative, through nonnegative_least_squares) when
  /// enough estimates describe their main loop (or term weights exist to
  /// start from), else the roofline's efficiency factors. Keeps the current
  /// calibration when fewer than 3 usable points are given.
  void calibrate(const std::vector<WorkEstimate>& work, const std::vector<double>& measured_s,
                 const CalibrationOptions& options = {});
  const Calibration& calibration() const { return calibration_; }
  const DeviceSpec& device() const { return device_; }

 private:
  void calibrate_roofline(const std::vector<WorkEstimate>& work, const std::vector<double>& measured_s);
  DeviceSpec device_;
  Calibration calibration_;
};

}  // namespace ktune
