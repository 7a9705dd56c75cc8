// conclude(): a Verification's summary fields and verdict from its statistics.
#include <sstream>

#include "kernels_templated/harness.hpp"

namespace ktune {

std::string conclude(Verification& v) {
  const verify::CheckStats& s = v.stats;
  v.rel_l2_error = s.rel_l2();
  v.max_abs_error = s.max_abs;
  v.nan_or_inf = s.non_finite;
  v.unwritten = s.unwritten;
  v.tolerance = v.tolerances.rel_l2;
  std::string why = verify::failure_reason(s, v.tolerances);
  v.passed = why.empty();
  return why;
}

}  // namespace ktune
