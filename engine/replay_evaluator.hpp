// ReplayEvaluator: an Evaluator that answers from a recorded space (every
// configuration measured once, offline) instead of the GPU.
#pragma once

#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/evaluator.hpp"

namespace ktune {

/// Answers each configuration with its recorded Result (status, times,
/// throughput, message as recorded). A configuration absent from the
/// recording answers `invalid_config` with a message saying so: a recorded
/// space is complete over its valid configurations, so absence means the
/// recording's tuner ruled it out. device() is the recorded device.
class ReplayEvaluator final : public Evaluator {
 public:
  /// `origin` names the recording in messages (its path). Later duplicates of
  /// a configuration replace earlier ones.
  ReplayEvaluator(DeviceSpec device, std::span<const Result> recorded, std::string origin = {});

  std::vector<Result> evaluate(std::span<const Config> configs) override;
  const DeviceSpec& device() const override { return device_; }

  std::size_t size() const { return by_key_.size(); }
  /// Configurations answered so far (every evaluate() call counts each entry).
  std::size_t answered() const { return answered_; }

 private:
  DeviceSpec device_;
  std::unordered_map<std::string, Result> by_key_;
  std::string origin_;
  std::size_t answered_ = 0;
};

}  // namespace ktune
