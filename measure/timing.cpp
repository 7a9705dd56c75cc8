// The shared timing method: L2 flush, warm-up, rounds of event-timed launches
// until the spread target or a cap.
#include "measure/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "measure/stream_gate.hpp"

namespace ktune {
namespace {

double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return percentile(v, 0.5);
}

}  // namespace

L2Flush::L2Flush(long long l2_bytes) {
  if (l2_bytes <= 0) return;
  const std::size_t want = 2 * static_cast<std::size_t>(l2_bytes);
  if (cudaMalloc(&data_, want) != cudaSuccess) {
    cudaGetLastError();
    data_ = nullptr;
    return;
  }
  bytes_ = want;
}

L2Flush::~L2Flush() {
  if (data_) cudaFree(data_);
}

long long L2Flush::device_l2_bytes() {
  int device = 0, bytes = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return bytes;
}

cudaError_t L2Flush::enqueue(cudaStream_t stream, int round) const {
  if (!data_) return cudaSuccess;
  return cudaMemsetAsync(data_, round & 0xff, bytes_, stream);
}

TimeStats time_stats(std::vector<double> samples) {
  TimeStats t;
  if (samples.empty()) return t;
  std::sort(samples.begin(), samples.end());
  t.median_s = percentile(samples, 0.5);
  t.min_s = samples.front();
  t.max_s = samples.back();
  t.spread =
      t.median_s > 0 ? (percentile(samples, 0.9) - percentile(samples, 0.1)) / t.median_s : 0;
  t.repetitions = static_cast<int>(samples.size());
  return t;
}

bool is_noisy(const TimeStats& t, const TimingOptions& o) { return t.spread > o.target_spread; }

bool timing_done(const TimeStats& t, double gpu_seconds, const TimingOptions& o) {
  if (t.repetitions >= o.min_repetitions && t.spread <= o.target_spread) return true;
  return t.repetitions >= o.max_repetitions || gpu_seconds >= o.max_seconds;
}

TimedLaunches time_launches(std::span<const LaunchFn> launches, cudaStream_t stream,
                            const TimingOptions& o, const L2Flush* flush, const WaitFn& wait,
                            double kernel_timeout_s) {
  TimedLaunches out;
  const std::size_t count = launches.size();
  out.stats.resize(count);
  if (count == 0) return out;
  std::vector<std::vector<double>> samples(count);
  std::vector<cudaEvent_t> events;
  struct Destroy {
    std::vector<cudaEvent_t>& ev;
    ~Destroy() {
      for (auto e : ev) cudaEventDestroy(e);
    }
  } destroy{events};
  auto fail = [&](cudaError_t err, const char* phase, double limit) {
    out.error = err;
    out.failed_phase = phase;
    out.failed_limit_s = limit;
    return out;
  };

  double turn_s = 0;  // one launch of each, from the last round's medians
  double gpu_total = 0;
  // Round 0 is the warm-up (discarded); later rounds add timed samples.
  for (int round = 0;; ++round) {
    const int have = static_cast<int>(samples[0].size());
    int n = round == 0  ? std::max(1, o.warmup)
            : have == 0 ? std::max(1, o.min_repetitions)
                        : std::max(1, std::min(10, o.max_repetitions - have));
    // Never queue more than the remaining time budget (at least one turn).
    if (round > 0 && turn_s > 0)
      n = std::clamp(static_cast<int>((o.max_seconds - gpu_total) / turn_s), 1, n);
    while (events.size() < 2 * count * static_cast<std::size_t>(n)) {
      cudaEvent_t e;
      if (cudaError_t err = cudaEventCreate(&e); err != cudaSuccess)
        return fail(err, "creating events", 0);
      events.push_back(e);
    }
    const char* phase = round == 0 ? "warm-up" : "timed runs";
    const double limit = kernel_timeout_s + 4.0 * n * std::max(turn_s, 1e-3);
    cudaError_t err = cudaSuccess;
    {
      // The warm-up is not gated: a launch's first call may synchronise the
      // device (a launcher growing its workspace frees the old one), which
      // behind a closed gate would wait for the gate's own host function.
      std::optional<StreamGate> gate;
      if (round > 0) gate.emplace(stream);
      for (int i = 0; i < n && err == cudaSuccess; ++i)
        for (std::size_t j = 0; j < count && err == cudaSuccess; ++j) {
          const std::size_t slot = 2 * (static_cast<std::size_t>(i) * count + j);
          if (flush) err = flush->enqueue(stream, i);
          if (err == cudaSuccess) err = cudaEventRecord(events[slot], stream);
          if (err == cudaSuccess) err = launches[j](stream);
          if (err == cudaSuccess) err = cudaEventRecord(events[slot + 1], stream);
        }
      if (gate) gate->release();
      const cudaError_t waited = wait(limit);
      if (err == cudaSuccess) err = waited;
      if (err != cudaSuccess) {
        // The gate's host function must have run before the gate is destroyed.
        if (err != cudaErrorNotReady) cudaStreamSynchronize(stream);
        return fail(err, phase, limit);
      }
    }
    turn_s = 0;
    std::vector<std::vector<double>> round_times(count);
    for (std::size_t j = 0; j < count; ++j) {
      for (int i = 0; i < n; ++i) {
        const std::size_t slot = 2 * (static_cast<std::size_t>(i) * count + j);
        float ms = 0;
        if (cudaEventElapsedTime(&ms, events[slot], events[slot + 1]) == cudaSuccess)
          round_times[j].push_back(ms * 1e-3);
      }
      if (round_times[j].empty())
        return fail(cudaErrorInvalidResourceHandle, "reading event timings", limit);
      turn_s += median_of(round_times[j]);
    }
    if (round == 0) continue;
    bool done = true;
    for (std::size_t j = 0; j < count; ++j) {
      for (double s : round_times[j]) gpu_total += s;
      samples[j].insert(samples[j].end(), round_times[j].begin(), round_times[j].end());
      out.stats[j] = time_stats(samples[j]);
    }
    for (std::size_t j = 0; j < count; ++j) done = done && timing_done(out.stats[j], gpu_total, o);
    if (done) break;
  }
  for (const TimeStats& t : out.stats) out.noisy = out.noisy || is_noisy(t, o);
  return out;
}

nlohmann::json timing_json(const TimeStats& t, const TimingOptions& o, bool noisy,
                           std::size_t flush_bytes) {
  return {{"noisy", noisy},
          {"reps", t.repetitions},
          {"spread", t.spread},
          {"target_spread", o.target_spread},
          {"flush_bytes", flush_bytes},
          {"warmup", o.warmup}};
}

}  // namespace ktune
