// Per-path template hashes for stored results: the device spec a stored row
// stands for, and the CurrentHash that db stats / prune / query / rehash use.
#pragma once

#include <string>

#include "compile/compiler.hpp"
#include "db/current_hash.hpp"
#include "space/device_spec.hpp"

namespace ktune {

/// The spec that decides a stored row's kernel path: the built-in spec of that
/// exact GPU name, else the built-in spec of its arch (renamed), else a spec
/// with only the name and the compute capability read from the arch ("sm_90").
DeviceSpec stored_device_spec(const std::string& name, const std::string& arch);

/// family_source_hash(family, problem, stored_device_spec(device, arch)) for a
/// family registered in this build ("" for another), memoized per distinct
/// (family, problem, device, arch). A problem the family cannot read gets the
/// whole family's hash. Throws std::runtime_error when a template file cannot be read.
CurrentHash current_hash_resolver();

}  // namespace ktune
