// Energy per launch from the board's cumulative energy counter (NVML's total
// energy, millijoules), over back-to-back launches in a window long enough
// for the counter's refresh period not to matter (docs/energy.md).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "measure/timing.hpp"

namespace ktune {

struct EnergyOptions {
  /// Off unless asked for: the window costs each configuration at least
  /// min_window_s of GPU time, several times a fast kernel's timing. `ktune
  /// tune` turns it on for the energy and edp objectives, or with --energy.
  bool enabled = false;
  /// The counter's window (refresh to refresh, the GPU busy throughout) lasts
  /// at least this long; the host times it to the 0.1 ms it polls at.
  double min_window_s = 0.2;
  /// How long the counter may stay unchanged before the figure is given up
  /// as unavailable (the driver refreshes it every few to a hundred ms).
  double tick_wait_s = 0.5;
};

/// Reads the cumulative counter in millijoules; nothing when unavailable.
using EnergyCounter = std::function<std::optional<unsigned long long>()>;

/// Launches queued per chunk: about 2 ms of GPU time at `launch_s` each, at
/// least 1 and at most 256.
int energy_chunk_launches(double launch_s);

/// What one window measured.
struct EnergyReading {
  unsigned long long counter_mj = 0;  ///< the counter's advance over its window
  int launches = 0;                   ///< all launches, before, in and after that window
  double window_s = 0;                ///< GPU time of all launches (events around them)
  double counted_s = 0;               ///< host time between the window's two refreshes
  int refreshes = 0;                  ///< refreshes of the counter from its first to its last
};

/// metrics.power_w (mean board power while busy: the counter's advance /
/// counted_s), metrics.energy_j (joules per launch: that power times the GPU
/// time of one launch, window_s / launches) and metrics.energy (the facts,
/// "method"). A counter that did not move stores "unavailable"
/// instead: a zero would be a fake figure.
void store_energy(nlohmann::json& metrics, const EnergyReading& reading);
/// metrics.energy = {"unavailable": why}; no energy_j, no power_w.
void store_energy_unavailable(nlohmann::json& metrics, const std::string& why);

struct EnergyMeasurement {
  std::optional<EnergyReading> reading;  ///< set when the window ran
  std::string unavailable;               ///< why there is no reading (no error)
  cudaError_t error = cudaSuccess;       ///< a launch or wait failed
  double failed_limit_s = 0;
};

/// Runs `launch` back to back (no L2 flush: the steady state of a kernel
/// called repeatedly) in chunks, two always queued, and reads the counter
/// between them: its window opens at its second refresh after the launches
/// began and closes at the first refresh min_window_s later, while the GPU is
/// still busy, so no idle time is counted.
EnergyMeasurement measure_energy(const LaunchFn& launch, double launch_s, cudaStream_t stream,
                                 const EnergyOptions& o, const EnergyCounter& counter,
                                 const WaitFn& wait, double kernel_timeout_s);

}  // namespace ktune
