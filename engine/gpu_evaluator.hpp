// GpuEvaluator: compiles, loads, verifies and times configurations of one
// family and problem on one local GPU (in this process).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compile/compiler.hpp"
#include "engine/evaluator.hpp"
#include "kernels_templated/family.hpp"
#include "measure/energy.hpp"
#include "measure/timing.hpp"

namespace ktune {

struct GpuEvaluatorOptions {
  int device = 0;           ///< CUDA ordinal
  std::uint64_t seed = 42;  ///< the harness' random inputs
  /// Compiler settings; an empty arch means the device's own ("sm_90"; sources
  /// that need arch-specific features get "sm_90a" from the Compiler).
  CompilerOptions compiler{.arch = "", .cache_dir = "", .extra = {}};
  /// measure/timing.hpp. The L2 flush is decided once per evaluator, so every
  /// configuration of a problem is timed under the same condition
  /// (metrics.l2_flushed records it).
  TimingOptions timing;
  /// After timing, energy per launch and mean board power over a window of
  /// back-to-back launches (measure/energy.hpp): metrics.energy_j,
  /// metrics.power_w, metrics.energy; or metrics.energy.unavailable saying
  /// why not (no NVML, no counter). Whatever the run's objective.
  EnergyOptions energy;
  /// Run the configuration once more on the same input and compare the output
  /// bitwise: metrics.verification.deterministic.
  bool check_determinism = true;
  /// A kernel still running after this long is reported as timeout and the
  /// context is given up (the process must restart). 0: wait forever.
  double kernel_timeout_s = 0;
  /// Configurations compiled per pipeline step (the next step compiles while
  /// this one is measured); 0: twice the hardware threads.
  int compile_chunk = 0;
  /// After a verified configuration is timed, profile one more launch with
  /// CUPTI (measure/profiler.hpp): metrics.profile, metrics.bottleneck and
  /// metrics.bound, or metrics.profile.error saying why not. The timed
  /// figures never include it; it costs a replay of each kernel per pass.
  bool profile = false;
};

/// Called as a batch progresses, so that a worker can report each
/// configuration the moment it is known (and say which one is on the GPU).
struct EvaluationObserver {
  std::function<void(std::size_t index)> on_gpu_start;              ///< before its first launch
  std::function<void(std::size_t index, const Result&)> on_result;  ///< once its result is final
};

class GpuEvaluator : public Evaluator {
 public:
  /// Selects the device, builds the space and prepares the harness (seeded
  /// random inputs, reference). Throws std::runtime_error when there is no
  /// usable GPU or the harness cannot be prepared, ProblemError for a bad
  /// problem, std::invalid_argument for a family without a harness.
  GpuEvaluator(const KernelFamily& family, Problem problem, GpuEvaluatorOptions options = {});
  ~GpuEvaluator() override;
  GpuEvaluator(const GpuEvaluator&) = delete;
  GpuEvaluator& operator=(const GpuEvaluator&) = delete;

  std::vector<Result> evaluate(std::span<const Config> configs) override;
  /// Same, reporting each configuration through `observer` as it completes.
  /// After a context loss the remaining configurations are not run: their
  /// Results are launch_error with metrics.not_run = true, and they are not
  /// passed to on_result.
  std::vector<Result> evaluate(std::span<const Config> configs, const EvaluationObserver& observer);

  const DeviceSpec& device() const override;
  /// True once a sticky CUDA error (illegal address, trap, a kernel that never
  /// returned...) has poisoned this process' context: nothing can run on the
  /// GPU any more and the process must restart (IsolatedEvaluator does).
  bool context_lost() const;
  /// The template hash of this problem's kernel path on this GPU
  /// (family_source_hash(family, problem, device)), for the database key.
  const std::string& family_hash() const;
  const Problem& problem() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Whether a CUDA error leaves the context unusable (every later call fails).
bool is_sticky_cuda_error(int cuda_error);

}  // namespace ktune
