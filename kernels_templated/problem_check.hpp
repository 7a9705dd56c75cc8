// The checks every kernel family's problem passes before its normalize().
#pragma once

#include "kernels_templated/family.hpp"

namespace ktune {

/// Each real of `raw` is finite (no "nan" or "inf"), and each of the family's
/// shape keys is a number, not true or false (which ValueMap::integer would
/// read as 1 or 0). Throws ProblemError naming the key and its value.
/// parse_problem runs it; so does the check of an imported record.
void check_problem_values(const KernelFamily& family, const Problem& raw);

}  // namespace ktune
