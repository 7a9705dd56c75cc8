// Energy per launch: the board's mean power while a kernel runs back to back,
// measured between two refreshes of its energy counter, times the kernel's
// time per launch.
#include "measure/energy.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <thread>

namespace ktune {
namespace {

using Clock = std::chrono::steady_clock;

/// GPU work per queued chunk. Two chunks are in flight at any time, so the GPU
/// stays busy while the host reads the counter between them.
constexpr double kChunkS = 2e-3;
constexpr int kMaxChunk = 256;

/// The window opens at this refresh of the counter after the launches began:
/// the interval up to the first one holds idle time, and a counter that
/// integrates a smoothed power reading needs one more to catch up.
constexpr int kLeadInRefreshes = 2;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

/// The counter read between chunks: when it moved, a refresh happened then.
class RefreshWatch {
 public:
  RefreshWatch(const EnergyCounter& counter, double min_window_s, double tick_wait_s)
      : counter_(counter), min_window_s_(min_window_s), tick_wait_s_(tick_wait_s) {}

  /// Reads the counter once. False when the window cannot be measured
  /// (unavailable() says why); done() once the window is closed.
  bool poll() {
    const std::optional<unsigned long long> now = counter_();
    const Clock::time_point at = Clock::now();
    if (!now) return fail("the energy counter could not be read during the launches");
    if (!last_) {
      last_ = now;
      last_at_ = at;
      return true;
    }
    if (*now == *last_) {
      if (seconds(at - last_at_) > tick_wait_s_)
        return fail("the energy counter did not refresh within " + std::to_string(tick_wait_s_) +
                    " s");
      return true;
    }
    last_ = now;
    last_at_ = at;
    ++refreshes_;
    if (refreshes_ == kLeadInRefreshes) {
      start_mj_ = *now;
      start_at_ = at;
    } else if (refreshes_ > kLeadInRefreshes && seconds(at - start_at_) >= min_window_s_) {
      end_mj_ = *now;
      end_at_ = at;
      done_ = true;
    }
    return true;
  }

  bool done() const { return done_; }
  const std::string& unavailable() const { return unavailable_; }
  unsigned long long counted_mj() const { return end_mj_ - start_mj_; }
  double counted_s() const { return seconds(end_at_ - start_at_); }
  int counted_refreshes() const { return refreshes_ - kLeadInRefreshes; }

 private:
  bool fail(std::string why) {
    unavailable_ = std::move(why);
    return false;
  }

  const EnergyCounter& counter_;
  double min_window_s_, tick_wait_s_;
  std::optional<unsigned long long> last_;
  Clock::time_point last_at_, start_at_, end_at_;
  unsigned long long start_mj_ = 0, end_mj_ = 0;
  int refreshes_ = 0;
  bool done_ = false;
  std::string unavailable_;
};

/// Events created and destroyed together.
class Events {
 public:
  cudaError_t create() {
    for (cudaEvent_t& e : events_)
      if (cudaError_t err = cudaEventCreate(&e); err != cudaSuccess) return err;
    return cudaSuccess;
  }
  ~Events() {
    for (cudaEvent_t e : events_)
      if (e) cudaEventDestroy(e);
  }
  cudaEvent_t operator[](int i) const { return events_[i]; }

 private:
  std::array<cudaEvent_t, 4> events_{};  ///< begin, end, and one per chunk in flight
};

}  // namespace

int energy_chunk_launches(double launch_s) {
  if (!(launch_s > 0)) return 1;
  return static_cast<int>(std::clamp(std::ceil(kChunkS / launch_s), 1.0, double{kMaxChunk}));
}

void store_energy(nlohmann::json& metrics, const EnergyReading& reading) {
  const nlohmann::json facts = {{"method", "nvml_total_energy_counter"},
                                {"launches", reading.launches},
                                {"window_s", reading.window_s},
                                {"counted_s", reading.counted_s},
                                {"counter_mj", reading.counter_mj},
                                {"refreshes", reading.refreshes},
                                {"l2_flushed", false}};
  if (reading.counter_mj == 0 || reading.launches <= 0 || !(reading.window_s > 0) ||
      !(reading.counted_s > 0)) {
    store_energy_unavailable(metrics, "the energy counter did not advance over " +
                                          std::to_string(reading.launches) + " launches");
    metrics["energy"].update(facts);
    return;
  }
  const double watts = static_cast<double>(reading.counter_mj) * 1e-3 / reading.counted_s;
  metrics["power_w"] = watts;
  metrics["energy_j"] = watts * reading.window_s / reading.launches;
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
  EnergyMeasurement out;
  if (!counter()) {
    out.unavailable = "the energy counter cannot be read";
    return out;
  }
  Events events;
  if (cudaError_t err = events.create(); err != cudaSuccess) {
    out.error = err;
    return out;
  }
  const cudaEvent_t begin = events[0], end = events[1];
  const int chunk = energy_chunk_launches(launch_s);
  out.failed_limit_s = kernel_timeout_s + 4.0 * chunk * std::max(launch_s, 1e-6);
  int launches = 0;
  const auto queue_chunk = [&](cudaEvent_t done) {
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < chunk && err == cudaSuccess; ++i) err = launch(stream);
    launches += chunk;
    return err == cudaSuccess ? cudaEventRecord(done, stream) : err;
  };
  // A failed launch or wait leaves no work behind: the caller may reuse the stream.
  const auto failed = [&](cudaError_t err) {
    if (err != cudaErrorNotReady) cudaStreamSynchronize(stream);
    out.error = err;
    return out;
  };

  cudaError_t err = cudaEventRecord(begin, stream);
  if (err == cudaSuccess) err = queue_chunk(events[2]);
  if (err == cudaSuccess) err = queue_chunk(events[3]);
  if (err != cudaSuccess) return failed(err);
  RefreshWatch watch(counter, o.min_window_s, o.tick_wait_s);
  // Each turn waits for the older chunk, reading the counter meanwhile, and
  // queues the next one behind the younger: the GPU never runs dry.
  for (int oldest = 2; !watch.done(); oldest = oldest == 2 ? 3 : 2) {
    // Without a kernel timeout a chunk may take as long as it takes.
    const Clock::time_point deadline =
        kernel_timeout_s > 0 ? Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                  std::chrono::duration<double>(out.failed_limit_s))
                             : Clock::time_point::max();
    for (;;) {
      if (!watch.poll()) {
        if (cudaError_t drained = wait(out.failed_limit_s); drained != cudaSuccess)
          return failed(drained);
        out.unavailable = watch.unavailable();
        return out;
      }
      const cudaError_t q = cudaEventQuery(events[oldest]);
      if (q == cudaSuccess) break;
      if (q != cudaErrorNotReady) return failed(q);
      if (Clock::now() > deadline) return failed(cudaErrorNotReady);
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    if (!watch.done())
      if (err = queue_chunk(events[oldest]); err != cudaSuccess) return failed(err);
  }
  if (err = cudaEventRecord(end, stream); err != cudaSuccess) return failed(err);
  if (err = wait(out.failed_limit_s + 2 * chunk * std::max(launch_s, 1e-6)); err != cudaSuccess)
    return failed(err);

  EnergyReading reading;
  reading.launches = launches;
  reading.counter_mj = watch.counted_mj();
  reading.counted_s = watch.counted_s();
  reading.refreshes = watch.counted_refreshes();
  float ms = 0;
  if (cudaEventElapsedTime(&ms, begin, end) == cudaSuccess) reading.window_s = ms * 1e-3;
  out.reading = reading;
  return out;
}

}  // namespace ktune
