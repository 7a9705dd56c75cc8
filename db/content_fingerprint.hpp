// content_fingerprint: a key for what a database holds, so that anything
// derived from its measurements (the lookup predictor's calibration) can be
// kept and reused until the measurements change.
#pragma once

#include <string>

namespace ktune {

/// 32 hex digits over every result's identity, status and median time and
/// the device, family, problem and configuration rows they name: equal for
/// databases holding the same measurements, different after any result is
/// added, removed or changed (its provenance and metrics aside). Opens the
/// database read-only. Throws DatabaseError.
std::string content_fingerprint(const std::string& path);

}  // namespace ktune
