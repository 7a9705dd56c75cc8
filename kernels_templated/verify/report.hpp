// The verification record of one result: which stages ran and passed, the
// tolerances, the errors and the seeds, as stored in metrics["verification"].
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels_templated/verify/tolerance.hpp"

namespace ktune::verify {

/// The seed's five stages, in the order they run.
inline constexpr const char* kStages[] = {"compile", "numerical", "edge", "determinism",
                                          "performance"};

struct Report {
  /// Stages that ran, in order, each with its outcome (compile, numerical,
  /// determinism, edge, performance: docs/verification.md); absent: not run.
  std::vector<std::pair<std::string, bool>> stages;
  Tolerances tolerances;
  CheckStats numerical;            ///< the seeded random inputs (the ones timed)
  std::optional<CheckStats> edge;  ///< the family's edge inputs, when it has them
  std::vector<std::uint64_t> seeds;
  /// Bitwise equal over two runs on the same input; empty when not checked.
  std::optional<bool> deterministic;
  /// The configuration is built to differ between runs (atomics-based split-K).
  bool nondeterminism_expected = false;

  void set_stage(const std::string& name, bool passed);
};

/// {"stages": {name: bool}, "deterministic": bool (only when checked),
///  "nondeterminism_expected", "tolerance": {atol, rtol, mag_scale, rel_l2,
///  row_rel_l2}, "numerical": stats, "edge": stats, "seeds": [...]}; stats are
/// {max_abs_error, max_rel_error, rel_l2_error, worst_ratio, worst_index,
///  worst_row_rel_l2, worst_row, off, non_finite, unwritten, undefined, checked}.
nlohmann::json to_json(const Report& r);
nlohmann::json to_json(const CheckStats& s);
nlohmann::json to_json(const Tolerances& t);

}  // namespace ktune::verify
