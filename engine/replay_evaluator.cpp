// ReplayEvaluator: recorded results served by configuration key.
#include "engine/replay_evaluator.hpp"

namespace ktune {

ReplayEvaluator::ReplayEvaluator(DeviceSpec device, std::span<const Result> recorded, std::string origin)
    : device_(std::move(device)), origin_(std::move(origin)) {
  by_key_.reserve(recorded.size());
  for (const Result& r : recorded) by_key_[r.config.key()] = r;
}

std::vector<Result> ReplayEvaluator::evaluate(std::span<const Config> configs) {
  std::vector<Result> out;
  out.reserve(configs.size());
  for (const Config& c : configs) {
    ++answered_;
    auto it = by_key_.find(c.key());
    if (it != by_key_.end()) {
      out.push_back(it->second);
      continue;
    }
    Result r;
    r.config = c;
    r.status = Status::invalid_config;
    r.message = "not in the recording" + (origin_.empty() ? std::string() : " " + origin_) +
                " (its tuner ruled this configuration out)";
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace ktune
