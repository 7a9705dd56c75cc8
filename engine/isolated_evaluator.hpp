// IsolatedEvaluator: a GpuEvaluator in a `ktune worker` child process, with a
// per-configuration watchdog and restarts, so that a kernel that faults or
// hangs costs one Result, never the sweep.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/evaluator.hpp"
#include "engine/gpu_evaluator.hpp"
#include "kernels_templated/family.hpp"

namespace ktune {

/// How long a configuration may stay on the GPU (from the worker's "start"
/// to its "result") before the worker is killed and the configuration
/// recorded as timeout: min(cap_s, floor_s + factor * the fastest such phase
/// seen so far), or first_limit_s before any configuration has finished.
struct WatchdogOptions {
  double factor = 20;
  double floor_s = 5;
  double cap_s = 120;
  double first_limit_s = 60;
  /// Longest silence while the worker compiles (no configuration on the GPU).
  double compile_limit_s = 900;
  /// Longest wait for a new worker's "ready" line (context creation, inputs).
  double startup_limit_s = 300;
};

struct IsolatedEvaluatorOptions {
  /// The ktune binary to run as `ktune worker`; empty: $KTUNE_BIN, else the
  /// `ktune` beside this executable, else ../bin/ktune relative to it.
  std::string worker_binary;
  GpuEvaluatorOptions gpu;     ///< passed to the worker's GpuEvaluator
  WatchdogOptions watchdog;
  /// Extra "NAME=value" environment entries for the worker (tests set
  /// KTUNE_WORKER_FAKE here).
  std::vector<std::string> worker_env;
  /// A worker that cannot start (no "ready") this many times in a row makes
  /// evaluate() throw std::runtime_error.
  int max_start_failures = 3;
};

class IsolatedEvaluator : public Evaluator {
 public:
  /// Starts the worker and waits for it to be ready (it reports the device).
  /// Throws std::runtime_error if the worker binary is missing or the worker
  /// cannot set up (its message is included, e.g. "no GPU: ...").
  IsolatedEvaluator(const KernelFamily& family, Problem problem, IsolatedEvaluatorOptions options = {});
  ~IsolatedEvaluator() override;
  IsolatedEvaluator(const IsolatedEvaluator&) = delete;
  IsolatedEvaluator& operator=(const IsolatedEvaluator&) = delete;

  /// One Result per configuration, in order. A configuration that hangs is
  /// timeout, one whose worker crashed or lost its context is launch_error;
  /// the worker is restarted and the remaining ones continue.
  std::vector<Result> evaluate(std::span<const Config> configs) override;
  const DeviceSpec& device() const override;
  const std::string& family_hash() const;
  /// Workers started after the first one (crashes, hangs, context losses).
  int restarts() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The ktune binary to use as a worker (see IsolatedEvaluatorOptions::worker_binary);
/// empty when none is found.
std::string find_worker_binary();

}  // namespace ktune
