// Non-negative least squares (Lawson-Hanson active set) on Eigen, with an
// optional ridge that pulls the solution towards a prior.
#pragma once

#include <Eigen/Core>

namespace ktune {

/// argmin ||A x - b||^2 + ridge * ||D (x - prior)||^2 subject to x >= 0,
/// where D scales each column by its norm (so `ridge` is unit-free: 1e-3
/// weighs the prior like a thousandth of the data). An empty prior means
/// zero. Columns that are entirely zero get x = prior (or 0). Exact for the
/// small problems the cost model has (a few dozen unknowns); throws
/// std::invalid_argument when the shapes disagree.
Eigen::VectorXd nonnegative_least_squares(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, double ridge = 0.0,
                                          const Eigen::VectorXd& prior = Eigen::VectorXd());

}  // namespace ktune
