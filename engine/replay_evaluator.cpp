// ReplayEvaluator: recorded results served through the ReplayOracle.
#include "engine/replay_evaluator.hpp"

namespace ktune {

DeviceSpec recorded_device(const RecordedSpace& recording) {
  if (recording.device) return *recording.device;
  if (!recording.device_name.empty()) {
    if (auto builtin = find_builtin_device(recording.device_name)) {
      builtin->name = recording.device_name;
      return *builtin;
    }
  }
  DeviceSpec d;
  d.name = recording.device_name.empty() ? "unknown (recorded)" : recording.device_name;
  return d;
}

ReplayEvaluator::ReplayEvaluator(std::shared_ptr<const RecordedSpace> recording)
    : oracle_(recording), device_(recorded_device(*recording)) {}

std::vector<Result> ReplayEvaluator::evaluate(std::span<const Config> configs) {
  answered_ += configs.size();
  return oracle_.evaluate(configs);
}

}  // namespace ktune
