// RooflineModel: predicted time and bound class of a configuration from the
// family's WorkEstimate and the device's ceilings, with calibration.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "space/device_spec.hpp"
#include "space/work.hpp"

namespace ktune {

enum class Bound { memory, compute, latency };
std::string_view to_string(Bound b);

struct Prediction {
  double time_s = 0;
  Bound bound = Bound::latency;
  double compute_s = 0;   ///< compute term after wave quantization and occupancy
  double memory_s = 0;    ///< DRAM term
  double latency_s = 0;   ///< fixed launch/latency term
  double waves = 0;       ///< blocks / (SMs x resident blocks per SM)
  int resident_blocks_per_sm = 0;
};

/// Efficiency factors fitted per (family, device); 1.0 means "reaches the ceiling".
struct Calibration {
  double compute_efficiency = 0.7;
  double memory_efficiency = 0.8;
  double launch_overhead_s = 4e-6;
  int samples = 0;  ///< measurements the fit used; 0 = uncalibrated defaults
};

/// The roofline: max(compute, memory) + latency, with wave quantization,
/// occupancy and padding waste taken from the WorkEstimate.
class RooflineModel {
 public:
  explicit RooflineModel(DeviceSpec device, Calibration calibration = {});
  Prediction predict(const WorkEstimate& work) const;
  /// Least-squares fit of the efficiency factors to measured (estimate, time)
  /// pairs; keeps the defaults when fewer than 3 usable points are given.
  void calibrate(const std::vector<WorkEstimate>& work, const std::vector<double>& measured_s);
  const Calibration& calibration() const { return calibration_; }
  const DeviceSpec& device() const { return device_; }

 private:
  DeviceSpec device_;
  Calibration calibration_;
};

}  // namespace ktune
