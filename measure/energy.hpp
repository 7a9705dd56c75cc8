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
  /// Back-to-back launches for at least this long (GPU time). NVML refreshes
  /// the counter every few milliseconds, and the figure may include up to one
  /// refresh period of the idle board after the last launch: 0.2 s keeps
  /// that within a few per cent.
  double min_window_s = 0.2;
  int min_launches = 10;
  int max_launches = 100000;  ///< bounds the queue for kernels of a few microseconds
  /// How long to wait for the counter to move when aligning the window's
  /// start and end to its refreshes; past it the window goes on unaligned.
  double tick_wait_s = 0.25;
};

/// Reads the cumulative counter in millijoules; nothing when unavailable.
using EnergyCounter = std::function<std::optional<unsigned long long>()>;

/// Launches to queue so that, back to back at `launch_s` each, they last at
/// least the window (and at least min_launches, at most max_launches).
int energy_launch_count(double launch_s, const EnergyOptions& o);

/// What one window measured.
struct EnergyReading {
  unsigned long long counter_mj = 0;  ///< the counter's advance over the window
  int launches = 0;
  double window_s = 0;   ///< GPU time of the launches (events around them)
  double counted_s = 0;  ///< host time between the two counter readings
};

/// metrics.energy_j (joules per launch), metrics.power_w (mean board power
/// while the launches ran: energy / window) and metrics.energy (the window's
/// facts, "method"). A counter that did not move stores "unavailable"
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
/// called repeatedly) behind a gate, with the counter read at a refresh just
/// before the gate opens and at the first refresh after the stream drained.
/// A window shorter than half the minimum (a launch faster with a warm L2
/// than its timed median) is measured again with enough launches.
EnergyMeasurement measure_energy(const LaunchFn& launch, double launch_s, cudaStream_t stream,
                                 const EnergyOptions& o, const EnergyCounter& counter,
                                 const WaitFn& wait, double kernel_timeout_s);

}  // namespace ktune
