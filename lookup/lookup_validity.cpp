// space_validator and dispatch_conditions: the family's space and conditions
// behind the lookup's and the emitted header's validity.
#include "lookup/lookup_validity.hpp"

#include <memory>
#include <stdexcept>

#include "compile/family_hash.hpp"

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

std::string complete_request(LookupRequest& req, const KernelFamily& family, DeviceSpec spec,
                             const Lookup& lookup, const std::string& hash) {
  // The asking GPU's own spec: a sibling's prediction is evaluated for it.
  if (spec.cc_major > 0 && !req.device.empty() && !req.device_spec) req.device_spec = spec;
  if (req.arch.empty()) req.arch = lookup.arch_of(req.device);
  if (spec.cc_major == 0 && !req.arch.empty())
    if (auto b = find_builtin_device(req.arch)) spec = *b;
  if (!hash.empty()) req.family_hash = hash;
  if (spec.cc_major == 0) return "";
  // Validity first: only configurations the space accepts for this problem
  // and device are served (a neighbour's unpredicated tile may not divide M).
  req.default_config = family.default_config(req.problem, spec);
  // Another template version may predate some of today's knobs.
  req.fits = hash.empty() ? space_validator(family, req.problem, spec)
                          : other_version_validator(family, req.problem, spec);
  if (!hash.empty()) return "";
  // Served: results of the current text of the kernel path this problem takes
  // on this GPU (an edit to another path leaves them fresh).
  try {
    req.family_hash = family_source_hash(family, req.problem, spec);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace ktune
