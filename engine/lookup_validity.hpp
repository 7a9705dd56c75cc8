// Validity of tuned answers from the family's space: the validator a Lookup
// request carries (LookupRequest::fits) and the conditions the emitted
// dispatch header's choices carry (DispatchOptions::condition).
#pragma once

#include <functional>
#include <string>

#include "db/query.hpp"
#include "kernels_templated/family.hpp"

namespace ktune {

/// Builds the family's space for (problem, device) once and answers whether
/// a configuration lies in it. Throws ProblemError / SpaceError as
/// KernelFamily::space does for a problem the family cannot serve there.
std::function<bool(const Config&)> space_validator(const KernelFamily& family,
                                                   const Problem& normalized,
                                                   const DeviceSpec& device);

/// space_validator for results of another template version (`ktune lookup
/// --hash`): a parameter the configuration lacks is a knob added since, which
/// that text did not have, and is judged at its default (the knob's behaviour
/// before it existed). Every parameter the configuration names must still be
/// one of the space's, with a listed value.
std::function<bool(const Config&)> other_version_validator(const KernelFamily& family,
                                                           const Problem& normalized,
                                                           const DeviceSpec& device);

/// KernelFamily::dispatch_condition of a best row; "false" (served to no
/// other problem) for a row the family cannot read, e.g. a configuration
/// stored before one of its knobs existed.
std::function<std::string(const BestRow&)> dispatch_conditions(const KernelFamily& family);

}  // namespace ktune
