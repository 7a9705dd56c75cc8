// Validity of tuned answers from the family's space: the validator a Lookup
// request carries (LookupRequest::fits) and the conditions the emitted
// dispatch header's choices carry (DispatchOptions::condition).
#pragma once

#include <functional>
#include <string>

#include "db/lookup.hpp"
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

/// Completes a request whose family, problem and device (a GPU name, or only
/// an arch) are set, the one way `ktune lookup` and the C ABI serve it: the
/// arch of a named GPU from the databases, the device's spec (the arch's
/// built-in one where `spec` is unknown), the family's default, the filter of
/// configurations valid for the problem there and the template hash of the
/// kernel path it takes (`hash`: serve that version instead, judged by
/// other_version_validator). Returns a note when the templates cannot be
/// read (the newest-measured version is then served), else "".
std::string complete_request(LookupRequest& req, const KernelFamily& family, DeviceSpec spec,
                             const Lookup& lookup, const std::string& hash = "");

/// KernelFamily::dispatch_condition of a best row; "false" (served to no
/// other problem) for a row the family cannot read, e.g. a configuration
/// stored before one of its knobs existed.
std::function<std::string(const BestRow&)> dispatch_conditions(const KernelFamily& family);

}  // namespace ktune
