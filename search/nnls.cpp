// Non-negative least squares: Lawson and Hanson's active-set method on
// column-normalised data, the ridge as extra rows.
#include "search/nnls.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <Eigen/Dense>

namespace ktune {

Eigen::VectorXd nonnegative_least_squares(const Eigen::MatrixXd& a_in, const Eigen::VectorXd& b_in, double ridge,
                                          const Eigen::VectorXd& prior_in) {
  const Eigen::Index n = a_in.cols();
  if (a_in.rows() != b_in.size()) throw std::invalid_argument("nnls: A has " + std::to_string(a_in.rows()) +
                                                              " rows but b has " + std::to_string(b_in.size()));
  if (prior_in.size() != 0 && prior_in.size() != n)
    throw std::invalid_argument("nnls: the prior has " + std::to_string(prior_in.size()) + " entries for " +
                                std::to_string(n) + " unknowns");
  const Eigen::VectorXd prior =
      prior_in.size() ? Eigen::VectorXd(prior_in.cwiseMax(0.0)) : Eigen::VectorXd(Eigen::VectorXd::Zero(n));
  if (n == 0) return Eigen::VectorXd();

  // Unit-norm columns: the active-set tolerances and the ridge then mean the
  // same for a term in seconds as for one in microseconds.
  Eigen::VectorXd scale(n);
  for (Eigen::Index j = 0; j < n; ++j) scale(j) = a_in.col(j).norm();
  std::vector<Eigen::Index> live;
  for (Eigen::Index j = 0; j < n; ++j)
    if (scale(j) > 0 && std::isfinite(scale(j))) live.push_back(j);
  Eigen::VectorXd x_full = prior;
  if (live.empty()) return x_full;
  const auto m = static_cast<Eigen::Index>(live.size());
  const Eigen::Index rows = a_in.rows() + (ridge > 0 ? m : 0);
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(rows, m);
  Eigen::VectorXd b = Eigen::VectorXd::Zero(rows);
  b.head(a_in.rows()) = b_in;
  for (Eigen::Index k = 0; k < m; ++k) a.col(k).head(a_in.rows()) = a_in.col(live[static_cast<std::size_t>(k)]) / scale(live[static_cast<std::size_t>(k)]);
  if (ridge > 0) {
    const double r = std::sqrt(ridge);
    for (Eigen::Index k = 0; k < m; ++k) {
      const Eigen::Index j = live[static_cast<std::size_t>(k)];
      a(a_in.rows() + k, k) = r;
      b(a_in.rows() + k) = r * prior(j) * scale(j);
    }
  }

  // Lawson-Hanson: grow the passive set by the most promising variable,
  // solve unconstrained on it, step back to the boundary when a variable
  // would go negative.
  Eigen::VectorXd x = Eigen::VectorXd::Zero(m);
  std::vector<bool> passive(static_cast<std::size_t>(m), false);
  const double tol = 1e-12 * std::max(1.0, b.norm()) * static_cast<double>(m);
  auto solve_passive = [&](Eigen::VectorXd& z) {
    std::vector<Eigen::Index> cols;
    for (Eigen::Index k = 0; k < m; ++k)
      if (passive[static_cast<std::size_t>(k)]) cols.push_back(k);
    Eigen::MatrixXd ap(rows, static_cast<Eigen::Index>(cols.size()));
    for (std::size_t c = 0; c < cols.size(); ++c) ap.col(static_cast<Eigen::Index>(c)) = a.col(cols[c]);
    const Eigen::VectorXd zp = ap.colPivHouseholderQr().solve(b);
    z = Eigen::VectorXd::Zero(m);
    for (std::size_t c = 0; c < cols.size(); ++c) z(cols[c]) = zp(static_cast<Eigen::Index>(c));
  };
  for (int outer = 0; outer < 3 * static_cast<int>(m) + 10; ++outer) {
    const Eigen::VectorXd w = a.transpose() * (b - a * x);
    Eigen::Index pick = -1;
    double best = tol;
    for (Eigen::Index k = 0; k < m; ++k)
      if (!passive[static_cast<std::size_t>(k)] && w(k) > best) {
        best = w(k);
        pick = k;
      }
    if (pick < 0) break;
    passive[static_cast<std::size_t>(pick)] = true;
    for (int inner = 0; inner < 3 * static_cast<int>(m) + 10; ++inner) {
      Eigen::VectorXd z;
      solve_passive(z);
      bool feasible = true;
      for (Eigen::Index k = 0; k < m; ++k)
        if (passive[static_cast<std::size_t>(k)] && !(z(k) > 0)) feasible = false;
      if (feasible) {
        x = z;
        break;
      }
      // Step from x towards z until the first passive variable reaches zero.
      double alpha = 1.0;
      for (Eigen::Index k = 0; k < m; ++k)
        if (passive[static_cast<std::size_t>(k)] && !(z(k) > 0)) {
          const double denom = x(k) - z(k);
          if (denom > 0) alpha = std::min(alpha, x(k) / denom);
        }
      x += alpha * (z - x);
      for (Eigen::Index k = 0; k < m; ++k)
        if (passive[static_cast<std::size_t>(k)] && x(k) <= 1e-15) {
          passive[static_cast<std::size_t>(k)] = false;
          x(k) = 0;
        }
    }
  }
  for (Eigen::Index k = 0; k < m; ++k) {
    const Eigen::Index j = live[static_cast<std::size_t>(k)];
    x_full(j) = std::max(0.0, x(k)) / scale(j);
  }
  return x_full;
}

}  // namespace ktune
