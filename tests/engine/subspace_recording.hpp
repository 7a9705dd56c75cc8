// Test support: a synthetic recorded space (not a measurement) with three
// knobs and one constraint, for the sub-space (--require) tests of the engine
// and the CLI.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "search/recorded_space.hpp"

namespace ktune::testing {

/// a = 0..5, b in {p, q, r}, c boolean; constraint "a != 3 || b != 'r'":
/// 36 - 2 = 34 valid configurations, every one recorded (synthetic times:
/// 1 ms + 0.1 ms * a + 0.01 ms * position of b + 0.001 ms * c; a = 5, b = p,
/// c = true a compile error).
inline constexpr std::uint64_t kGridValid = 34;

inline Space grid_space() {
  Space s;
  s.add(Parameter::int_range("a", 0, 5, 1, 0));
  s.add(Parameter::categorical("b", {"p", "q", "r"}, "p"));
  s.add(Parameter::boolean("c", false));
  s.require("a != 3 || b != 'r'");
  return s;
}

/// Writes the recording to `recording` and, if given, the bare space (JSON,
/// as `ktune space --space` reads it) to `space_json`.
inline void write_grid_recording(const std::filesystem::path& recording,
                                 const std::filesystem::path& space_json = {}) {
  RecordedSpace rec;
  rec.family = "synthetic_grid";
  rec.device_name = "Synthetic GPU";
  rec.problem = Problem{{"size0", std::int64_t{34}}};
  rec.provenance = {{"notes", "synthetic test fixture, not a measurement"}};
  rec.space = grid_space();
  for (const Config& c : rec.space.enumerate()) {
    Result r;
    r.config = c;
    const std::int64_t a = c.integer("a");
    const std::string& b = c.text("b");
    const bool flag = c.boolean("c");
    if (a == 5 && b == "p" && flag) {
      r.status = Status::compile_error;
      r.message = "synthetic";
    } else {
      r.status = Status::ok;
      r.time.median_s = 1e-3 + 1e-4 * static_cast<double>(a) + 1e-5 * (b[0] - 'p') + 1e-6 * flag;
      r.time.repetitions = 1;
    }
    rec.results[c.key()] = r;
  }
  write_recorded_space(rec, recording);
  if (!space_json.empty()) std::ofstream(space_json) << rec.space.to_json().dump(2);
}

}  // namespace ktune::testing
