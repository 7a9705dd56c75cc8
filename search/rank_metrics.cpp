// Rank metrics: average ranks, Spearman correlation, rank of the optimum.
#include "search/rank_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace ktune {

std::vector<double> average_ranks(std::span<const double> values) {
  const std::size_t n = values.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(n);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n && values[order[j + 1]] == values[order[i]]) ++j;
    const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

double spearman(std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size())
    throw std::invalid_argument("spearman: series of different lengths (" + std::to_string(a.size()) +
                                " and " + std::to_string(b.size()) + ")");
  if (a.size() < 2) throw std::invalid_argument("spearman: needs at least 2 points");
  const auto ra = average_ranks(a);
  const auto rb = average_ranks(b);
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n;
  const double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  if (saa == 0 || sbb == 0) return 0;
  return sab / std::sqrt(saa * sbb);
}

double optimum_rank_percentile(std::span<const double> predicted, std::span<const double> measured) {
  if (predicted.size() != measured.size())
    throw std::invalid_argument("optimum_rank_percentile: series of different lengths");
  if (predicted.empty()) throw std::invalid_argument("optimum_rank_percentile: empty input");
  const auto best = static_cast<std::size_t>(
      std::min_element(measured.begin(), measured.end()) - measured.begin());
  std::size_t ahead = 0;  // configurations the model ranks before or with the optimum
  for (std::size_t i = 0; i < predicted.size(); ++i)
    if (i != best && predicted[i] <= predicted[best]) ++ahead;
  if (predicted.size() == 1) return 0;
  return 100.0 * static_cast<double>(ahead) / static_cast<double>(predicted.size() - 1);
}

}  // namespace ktune
