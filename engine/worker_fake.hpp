// FakeWorkerBackend: a GPU-free stand-in for GpuEvaluator inside `ktune
// worker`, so that CI can prove the parent's watchdog and restart logic.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "engine/gpu_evaluator.hpp"

namespace ktune {

/// Answers by the configuration's `mode` knob (test_faulty's): see
/// kWorkerFakeEnv in worker_protocol.hpp. `crash` selects the abort variant.
/// Times are synthetic (metrics.synthetic = true), never measurements.
class FakeWorkerBackend {
 public:
  explicit FakeWorkerBackend(bool crash);
  std::vector<Result> evaluate(std::span<const Config> configs, const EvaluationObserver& observer);
  bool context_lost() const { return lost_; }
  const DeviceSpec& device() const { return device_; }

 private:
  bool crash_;
  bool lost_ = false;
  DeviceSpec device_;
};

}  // namespace ktune
