// ReplayEvaluator: an Evaluator that answers from a recorded space (every
// configuration measured once, offline) instead of the GPU.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "engine/evaluator.hpp"
#include "search/recorded_space.hpp"

namespace ktune {

/// Answers each configuration with its recorded Result (status, times,
/// throughput, message as recorded), through the search room's ReplayOracle.
/// An unrecorded configuration answers `invalid_config` ("not recorded"); the
/// tuning loop neither counts nor stores such answers. device() is the
/// recorded device.
class ReplayEvaluator final : public Evaluator {
 public:
  explicit ReplayEvaluator(std::shared_ptr<const RecordedSpace> recording);

  std::vector<Result> evaluate(std::span<const Config> configs) override;
  const DeviceSpec& device() const override { return device_; }

  const RecordedSpace& recording() const { return oracle_.recording(); }
  /// Configurations answered so far.
  std::size_t answered() const { return answered_; }

 private:
  ReplayOracle oracle_;
  DeviceSpec device_;
  std::size_t answered_ = 0;
};

/// The device a recording was measured on: its full spec when it carries one,
/// else the built-in spec of that name (ceilings for the roofline), else a
/// spec holding only the recorded name.
DeviceSpec recorded_device(const RecordedSpace& recording);

/// Identity of a replayed "version" of a family: the hash recorded with it if
/// any, else the hash of the file's bytes at `path` (replays never pose as
/// current templates).
std::string recording_hash(const RecordedSpace& recording, const std::string& path);

}  // namespace ktune
