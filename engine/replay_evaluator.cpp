// ReplayEvaluator: recorded results served through the ReplayOracle.
#include "engine/replay_evaluator.hpp"

#include <fstream>
#include <sstream>

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

std::string recording_hash(const RecordedSpace& rec, const std::string& path) {
  if (rec.provenance.is_object()) {
    auto it = rec.provenance.find("family_hash");
    if (it != rec.provenance.end() && it->is_string() && !it->get<std::string>().empty())
      return it->get<std::string>();
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return "recorded-" + stable_hash_hex(bytes.str());
}

ReplayEvaluator::ReplayEvaluator(std::shared_ptr<const RecordedSpace> recording)
    : oracle_(recording), device_(recorded_device(*recording)) {}

std::vector<Result> ReplayEvaluator::evaluate(std::span<const Config> configs) {
  answered_ += configs.size();
  return oracle_.evaluate(configs);
}

}  // namespace ktune
