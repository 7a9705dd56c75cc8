// median_of: the median of a sample (the mean of the two middle values for an
// even count), shared by the lookup's predictor and its regret bench.
#pragma once

#include <algorithm>
#include <vector>

namespace ktune {

/// 0 for an empty sample.
inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace ktune
