// The one way ktune times kernels, shared by `ktune tune` (GpuEvaluator) and
// the benches: an L2 flush sized from the device's L2 before every timed
// launch, a warm-up, then rounds of event-timed launches until the spread
// target or a cap; a measurement that ends at the cap is marked noisy.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "space/result.hpp"

namespace ktune {

/// How configurations are timed (CUDA events around each launch).
struct TimingOptions {
  int warmup = 3;               ///< untimed launches first (per launch)
  int min_repetitions = 10;     ///< timed launches at least ...
  int max_repetitions = 200;    ///< ... and at most (per launch)
  double max_seconds = 0.5;     ///< stop adding repetitions after this much GPU time
  double target_spread = 0.02;  ///< stop once (p90 - p10) / median is at most this
  /// Memset a buffer of twice the device's L2 before every timed launch,
  /// whatever the working set: each launch starts with a cold L2.
  bool flush_l2 = true;
};

/// The L2 flush buffer: twice the device's L2, so a memset of it leaves none
/// of the previous launch's data in L2.
class L2Flush {
 public:
  /// Allocates 2 x l2_bytes on the current device; empty (bytes() == 0) when
  /// l2_bytes is 0 or the allocation fails (timing then goes on unflushed).
  explicit L2Flush(long long l2_bytes);
  ~L2Flush();
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;
  /// The L2 size of the current device (cudaDevAttrL2CacheSize), 0 on error.
  static long long device_l2_bytes();

  /// Queues the memset (the value varies with `round`, so no write is elided).
  cudaError_t enqueue(cudaStream_t stream, int round) const;
  std::size_t bytes() const { return bytes_; }
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Enqueues one launch on the stream.
using LaunchFn = std::function<cudaError_t(cudaStream_t)>;
/// Waits for the stream: cudaSuccess, its error, or cudaErrorNotReady when
/// still running after limit_s (a hang; the caller decides what that means).
using WaitFn = std::function<cudaError_t(double limit_s)>;

struct TimedLaunches {
  std::vector<TimeStats> stats;  ///< one per launch, in the order given
  bool noisy = false;            ///< some launch ended at the cap above the spread target
  cudaError_t error = cudaSuccess;
  const char* failed_phase = "";  ///< "warm-up" or "timed runs" when error is set
  double failed_limit_s = 0;      ///< the wait limit that applied when it failed
};

/// (p90 - p10) / median, median, min, max and count of the samples (seconds).
TimeStats time_stats(std::vector<double> samples);
/// True when the repetitions ended above the spread target.
bool is_noisy(const TimeStats& t, const TimingOptions& o);
/// The stopping rule after a round: enough repetitions and spread on target,
/// or the repetition cap, or the time budget spent.
bool timing_done(const TimeStats& t, double gpu_seconds, const TimingOptions& o);

/// Times `launches` in turns (within a round each runs after its own flush,
/// so a drift of clocks affects them alike): one warm-up round, then rounds
/// until timing_done holds for every launch. Launches of a timed round are
/// queued behind a host gate and released together, so the GPU never waits
/// for the CPU between them; the warm-up round is not gated, so a launch may
/// synchronise the device on its first call. `flush` may be null (no flush).
TimedLaunches time_launches(std::span<const LaunchFn> launches, cudaStream_t stream,
                            const TimingOptions& options, const L2Flush* flush, const WaitFn& wait,
                            double kernel_timeout_s = 0);

/// metrics["timing"]: {"noisy", "reps", "spread", "target_spread", "flush_bytes", "warmup"}.
nlohmann::json timing_json(const TimeStats& t, const TimingOptions& o, bool noisy,
                           std::size_t flush_bytes);

}  // namespace ktune
