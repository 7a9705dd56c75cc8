// `ktune tune --compile-only`: compiles configurations without a GPU and
// reports registers, spills, shared memory and compile errors.
#pragma once

#include <string>

#include "engine/tune_job.hpp"

namespace ktune::cli {

/// Runs a compile-only `ktune tune` for `spec` (family, problem, budget,
/// seed, --require) and `arch` (an arch or a built-in device name). Prints a
/// table, or the JSON report with `as_json`. Returns 0 when every
/// configuration compiled, 1 when some failed; throws UsageError or
/// std::invalid_argument (exit 2) for bad input.
int run_compile_only(const TuneSpec& spec, const std::string& arch, bool as_json);

}  // namespace ktune::cli
