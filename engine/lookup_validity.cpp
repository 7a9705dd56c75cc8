// space_validator and dispatch_conditions: the family's space and conditions
// behind the lookup's and the emitted header's validity.
#include "engine/lookup_validity.hpp"

#include <memory>

namespace ktune {

std::function<bool(const Config&)> space_validator(const KernelFamily& family,
                                                   const Problem& normalized,
                                                   const DeviceSpec& device) {
  auto space = std::make_shared<const Space>(family.space(normalized, device));
  return [space](const Config& c) { return space->is_valid(c); };
}

std::function<bool(const Config&)> other_version_validator(const KernelFamily& family,
                                                           const Problem& normalized,
                                                           const DeviceSpec& device) {
  auto space = std::make_shared<const Space>(family.space(normalized, device));
  return [space](const Config& c) {
    // snap gives missing parameters their defaults; it also moves unlisted
    // values and drops unknown names, which must refuse the configuration.
    const Config completed = space->snap(c);
    for (const auto& [name, value] : c)
      if (!completed.contains(name) || completed.at(name) != value) return false;
    return space->is_valid(completed);
  };
}

std::function<std::string(const BestRow&)> dispatch_conditions(const KernelFamily& family) {
  return [&family](const BestRow& row) {
    try {
      return family.dispatch_condition(family.normalize(row.problem), row.config);
    } catch (const std::exception&) {
      return std::string("false");
    }
  };
}

}  // namespace ktune
