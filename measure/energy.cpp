// Energy per launch: a gated window of back-to-back launches between two
// refreshes of the board's energy counter.
#include "measure/energy.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "measure/stream_gate.hpp"

namespace ktune {
namespace {

using Clock = std::chrono::steady_clock;

/// Launches queued behind the gate before the window opens: a head start that
/// keeps the GPU busy while the host queues the rest, and few enough (with a
/// launch's memsets) to stay well inside the driver's launch queue.
constexpr int kGatedLaunches = 128;

/// The counter's next value after `from` (polled every 0.2 ms), or its value
/// when it has not moved within `limit_s`; nothing when it cannot be read.
std::optional<unsigned long long> next_refresh(const EnergyCounter& counter,
                                               unsigned long long from, double limit_s) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(limit_s);
  for (;;) {
    const std::optional<unsigned long long> now = counter();
    if (!now || *now != from || Clock::now() > deadline) return now;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// One gated window of `n` launches between two refreshes of the counter.
EnergyMeasurement one_window(int n, const LaunchFn& launch, double launch_s, cudaStream_t stream,
                             const EnergyOptions& o, const EnergyCounter& counter,
                             const WaitFn& wait, double kernel_timeout_s) {
  EnergyMeasurement out;
  cudaEvent_t begin = nullptr, end = nullptr;
  if (cudaError_t err = cudaEventCreate(&begin); err != cudaSuccess) {
    out.error = err;
    return out;
  }
  if (cudaError_t err = cudaEventCreate(&end); err != cudaSuccess) {
    cudaEventDestroy(begin);
    out.error = err;
    return out;
  }
  struct Destroy {
    cudaEvent_t a, b;
    ~Destroy() {
      cudaEventDestroy(a);
      cudaEventDestroy(b);
    }
  } destroy{begin, end};

  const double limit = kernel_timeout_s + 4.0 * n * std::max(launch_s, 1e-6) + o.tick_wait_s;
  out.failed_limit_s = limit;
  std::optional<unsigned long long> start_mj;
  Clock::time_point started;
  {
    StreamGate gate(stream);
    cudaError_t err = cudaEventRecord(begin, stream);
    // Only a head start is queued behind the gate: a full launch queue blocks
    // the host inside the launch call, and behind a closed gate it never drains.
    const int gated = std::min(n, kGatedLaunches);
    for (int i = 0; i < gated && err == cudaSuccess; ++i) err = launch(stream);
    // Opened just after a refresh: the window starts where the counter does.
    if (err == cudaSuccess)
      if (const std::optional<unsigned long long> before = counter())
        start_mj = next_refresh(counter, *before, o.tick_wait_s);
    started = Clock::now();
    gate.release();
    // The rest are queued while the head start runs.
    for (int i = gated; i < n && err == cudaSuccess; ++i) err = launch(stream);
    if (err == cudaSuccess) err = cudaEventRecord(end, stream);
    const cudaError_t waited = wait(limit);
    if (err == cudaSuccess) err = waited;
    if (err != cudaSuccess) {
      // The gate's host function must have run before the gate is destroyed.
      if (err != cudaErrorNotReady) cudaStreamSynchronize(stream);
      out.error = err;
      return out;
    }
  }
  // The first refresh after the last launch ended holds all of its energy.
  const std::optional<unsigned long long> now = counter();
  const std::optional<unsigned long long> end_mj =
      now ? next_refresh(counter, *now, o.tick_wait_s) : std::nullopt;
  if (!start_mj || !end_mj) {
    out.unavailable = "the energy counter could not be read around the launches";
    return out;
  }
  EnergyReading reading;
  reading.launches = n;
  reading.counted_s = seconds_since(started);
  reading.counter_mj = *end_mj > *start_mj ? *end_mj - *start_mj : 0;
  float ms = 0;
  if (cudaEventElapsedTime(&ms, begin, end) == cudaSuccess) reading.window_s = ms * 1e-3;
  out.reading = reading;
  return out;
}

}  // namespace

int energy_launch_count(double launch_s, const EnergyOptions& o) {
  const int lo = std::max(1, o.min_launches);
  const int hi = std::max(lo, o.max_launches);
  if (!(launch_s > 0)) return hi;
  const double wanted = std::ceil(o.min_window_s / launch_s);
  return static_cast<int>(std::clamp(wanted, static_cast<double>(lo), static_cast<double>(hi)));
}

void store_energy(nlohmann::json& metrics, const EnergyReading& reading) {
  const nlohmann::json facts = {
      {"method", "nvml_total_energy_counter"}, {"launches", reading.launches},
      {"window_s", reading.window_s},          {"counted_s", reading.counted_s},
      {"counter_mj", reading.counter_mj},      {"l2_flushed", false}};
  if (reading.counter_mj == 0 || reading.launches <= 0 || !(reading.window_s > 0)) {
    store_energy_unavailable(metrics, "the energy counter did not advance over " +
                                          std::to_string(reading.launches) + " launches");
    metrics["energy"].update(facts);
    return;
  }
  const double joules = static_cast<double>(reading.counter_mj) * 1e-3;
  metrics["energy_j"] = joules / reading.launches;
  metrics["power_w"] = joules / reading.window_s;
  metrics["energy"] = facts;
}

void store_energy_unavailable(nlohmann::json& metrics, const std::string& why) {
  metrics.erase("energy_j");
  metrics.erase("power_w");
  metrics["energy"] = {{"unavailable", why}};
}

EnergyMeasurement measure_energy(const LaunchFn& launch, double launch_s, cudaStream_t stream,
                                 const EnergyOptions& o, const EnergyCounter& counter,
                                 const WaitFn& wait, double kernel_timeout_s) {
  if (!counter()) {
    EnergyMeasurement out;
    out.unavailable = "the energy counter cannot be read";
    return out;
  }
  EnergyMeasurement m = one_window(energy_launch_count(launch_s, o), launch, launch_s, stream, o,
                                   counter, wait, kernel_timeout_s);
  // Back to back, with a warm L2, a launch may be much faster than its timed
  // (cold-L2) median: a window that fell well short is measured again with
  // as many launches as its own speed needs.
  if (m.reading && m.reading->window_s > 0 && m.reading->window_s < 0.5 * o.min_window_s) {
    const double measured_s = m.reading->window_s / m.reading->launches;
    const int n = energy_launch_count(measured_s, o);
    if (n > m.reading->launches)
      m = one_window(n, launch, measured_s, stream, o, counter, wait, kernel_timeout_s);
  }
  return m;
}

}  // namespace ktune
