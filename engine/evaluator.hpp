// Evaluator: turns configurations into Results (on the GPU, or by replay).
#pragma once

#include <span>
#include <vector>

#include "space/device_spec.hpp"
#include "space/result.hpp"
#include "space/value_map.hpp"

namespace ktune {

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  /// One Result per configuration, in the same order. Never throws for a
  /// failing candidate: its failure is its Result's status.
  virtual std::vector<Result> evaluate(std::span<const Config> configs) = 0;
  /// The device the results belong to (the replayed device for replay).
  virtual const DeviceSpec& device() const = 0;
};

}  // namespace ktune
