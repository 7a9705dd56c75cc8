// content_fingerprint: a key for what a database holds, so that anything
// derived from its measurements (the lookup predictor's calibration) can be
// kept and reused until the measurements change.
#pragma once

#include <string>

namespace ktune {

/// 32 hex digits over the device and family rows, and checksums (computed
/// by SQLite in one pass) of every result's id, device, family, problem,
/// status and median time and of the problem and configuration rows: equal for databases holding
/// the same measurements, different after a result is added, removed or changed (its provenance and
/// metrics aside), short of a change built to keep every checksum. Opens
/// the database read-only. Throws DatabaseError.
std::string content_fingerprint(const std::string& path);

}  // namespace ktune
