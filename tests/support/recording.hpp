// Test support: writes a synthetic recording (results made up by a test, not
// measured) as `ktune record` would have written it.
#pragma once

#include <filesystem>
#include <utility>
#include <vector>

#include "search/recorded_space.hpp"

namespace ktune::testing {

/// Writes `rec` to `path` holding exactly `results`: its space is theirs,
/// restricted to the recorded configurations, and each is recorded.
inline void write_recording(RecordedSpace rec, std::vector<Result> results,
                            const std::filesystem::path& path) {
  rec.space = space_from_recorded(results);
  rec.restricted_to_recorded = true;
  for (const Result& r : results) rec.results[r.config.key()] = r;
  write_recorded_space(rec, path);
}

}  // namespace ktune::testing
