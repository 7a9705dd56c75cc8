// KernelProfiler: hardware-counter metrics of one launch through the CUPTI
// Range Profiler (CUDA 13), with CUPTI loaded at run time so that ktune
// starts where CUPTI or the driver is missing.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "measure/profiler_metrics.hpp"

namespace ktune {

/// The CUPTI metrics collected, in the order they are requested.
const std::vector<std::string>& profiled_metric_names();

/// The metric configuration CUPTI's host API makes for a chip, without a GPU.
struct MetricPlan {
  std::vector<std::string> metrics;  ///< the requested metrics the chip supports, in order
  std::size_t passes = 0;            ///< replay passes they need
  double duration_to_s = 1e-9;       ///< gpu__time_duration's unit, in seconds
  std::vector<std::string> notes;    ///< metrics left out, and why
  std::string error;                 ///< CUPTI not loadable, unknown chip...; empty when usable
};

/// What profiling would collect on `chip` (CUPTI's name, e.g. "GH100" for the
/// H100 and H200): a check of the metric names that needs no GPU. Never throws.
MetricPlan plan_profiler_metrics(const std::string& chip);
/// The same for another metric list: a name the chip does not know is left
/// out with a note, the others are kept (as profiling does).
MetricPlan plan_profiler_metrics(const std::string& chip, const std::vector<std::string>& metrics);

/// Profiles launches on one CUDA device of this process.
///
/// How: the range profiler is enabled on the device's primary context with
/// auto ranges (one range per kernel) and kernel replay (CUPTI saves the
/// memory a kernel may touch, runs it once per pass the metric set needs and
/// restores it), around exactly one call of `launch`; then disabled again,
/// so launches outside profile() run unobserved. CUPTI (libcupti.so.N of the
/// toolkit, N = the CUDA major version) is opened with dlopen on first use:
/// $KTUNE_CUPTI_LIBRARY if set, else by name through the loader, else beside
/// libcudart, else under /usr/local/cuda. The library, the metric
/// configuration and the counter availability are set up once per process
/// and device and shared by every KernelProfiler.
class KernelProfiler {
 public:
  /// Nothing is loaded until the first profile().
  explicit KernelProfiler(int device);
  ~KernelProfiler();
  KernelProfiler(const KernelProfiler&) = delete;
  KernelProfiler& operator=(const KernelProfiler&) = delete;

  /// Calls `launch(stream)` once under the profiler and waits for the stream.
  /// `launch` must be idempotent (kernel replay reruns each kernel) and must
  /// not synchronise the device. Never throws: no GPU, no CUPTI, counters
  /// not permitted or a CUPTI error come back as ok == false with the reason;
  /// a failing launch also sets launch_error. Thread-safe (serialised).
  ProfileOutcome profile(const std::function<cudaError_t(cudaStream_t)>& launch,
                         cudaStream_t stream);

  int device() const { return device_; }

 private:
  int device_;
};

}  // namespace ktune
