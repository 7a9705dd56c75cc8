// Rank metrics: how well a cost model orders configurations compared with
// their measured times (Spearman correlation, rank of the measured optimum).
#pragma once

#include <span>
#include <vector>

namespace ktune {

/// Ranks 1..n of the values (ties share their average rank).
std::vector<double> average_ranks(std::span<const double> values);

/// Spearman rank correlation of two equally long series (Pearson correlation
/// of their average ranks). Throws std::invalid_argument on different lengths
/// or fewer than 2 points; returns 0 when either series is constant.
double spearman(std::span<const double> a, std::span<const double> b);

/// Where the measured optimum (smallest measured time) lands in the order the
/// model gives (ascending predicted time), as a percentile in [0, 100]:
/// 0 = the model's first choice is the true optimum, 100 = its last. Ties in
/// the prediction count pessimistically (the optimum after its equals).
/// Throws std::invalid_argument on different lengths or empty input.
double optimum_rank_percentile(std::span<const double> predicted, std::span<const double> measured);

}  // namespace ktune
