// Tests of the Gaussian process against hand-computed values: kernel,
// posterior on two points, EI/LCB, likelihood gradient, fitting.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "search/gaussian_process.hpp"

namespace ktune::gp {
namespace {

Hyper unit_hyper(int dims, double noise) {
  Hyper h;
  h.log_lengthscale = Eigen::VectorXd::Zero(dims);  // length scale 1
  h.log_signal_var = 0;                             // variance 1
  h.log_noise_var = std::log(noise);
  return h;
}

TEST(GaussianProcess, Matern52Values) {
  EXPECT_DOUBLE_EQ(matern52(0), 1.0);
  // (1 + √5 + 5/3) e^{-√5}, worked out by hand
  EXPECT_NEAR(matern52(1.0), 0.5239941088318203, 1e-14);
  EXPECT_NEAR(matern52(0.5), 0.8286491424181253, 1e-14);
}

TEST(GaussianProcess, KernelUsesPerDimensionLengthScales) {
  Hyper h = unit_hyper(2, 1e-6);
  h.log_lengthscale(1) = std::log(2.0);
  h.log_signal_var = std::log(3.0);
  Eigen::MatrixXd a(1, 2), b(1, 2);
  a << 0, 0;
  b << 0.3, 0.8;  // scaled: (0.3, 0.4) -> r = 0.5
  EXPECT_NEAR(kernel_matrix(a, b, h)(0, 0), 3.0 * 0.8286491424181253, 1e-13);
}

TEST(GaussianProcess, PosteriorOnTwoPointsMatchesHandComputation) {
  Eigen::MatrixXd x(2, 1);
  x << 0, 1;
  Eigen::VectorXd y(2);
  y << 1, -1;
  Posterior post(x, y, unit_hyper(1, 1e-12));
  Eigen::MatrixXd xs(3, 1);
  xs << 0.5, 0.25, 0.0;
  Eigen::VectorXd mean, var;
  post.predict(xs, mean, var);
  EXPECT_NEAR(mean(0), 0.0, 1e-9);  // antisymmetric data, midpoint
  EXPECT_NEAR(var(0), 0.09886869345363003, 1e-9);
  // (k(.25) - k(.75)) / (1 - k(1)) and 1 - k*ᵀK⁻¹k*, by hand
  EXPECT_NEAR(mean(1), 0.5783796519499411, 1e-9);
  EXPECT_NEAR(var(1), 0.05231727687810461, 1e-9);
  EXPECT_NEAR(mean(2), 1.0, 1e-6);  // interpolates a training point
  EXPECT_NEAR(var(2), 0.0, 1e-6);
  // Covariance of the candidates with one point agrees with the variance.
  Eigen::VectorXd p(1);
  p << 0.25;
  EXPECT_NEAR(post.covariance_with(xs, p)(1), var(1), 1e-9);
}

TEST(GaussianProcess, ExpectedImprovementAndLcbFormulas) {
  EXPECT_NEAR(expected_improvement(0.0, 1.0, 0.0), 1.0 / std::sqrt(2 * M_PI), 1e-12);
  EXPECT_DOUBLE_EQ(expected_improvement(1.0, 0.0, 2.0), 1.0);
  EXPECT_DOUBLE_EQ(expected_improvement(3.0, 0.0, 2.0), 0.0);
  // z = 1: 1·Φ(1) + 1·φ(1) = 0.8413447460685429 + 0.24197072451914337
  EXPECT_NEAR(expected_improvement(1.0, 1.0, 2.0), 0.8413447460685429 + 0.24197072451914337, 1e-12);
  EXPECT_DOUBLE_EQ(lower_confidence_bound(1.0, 0.5, 2.0), 0.0);
}

TEST(GaussianProcess, LikelihoodGradientMatchesFiniteDifferences) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  Eigen::MatrixXd x(12, 3);
  Eigen::VectorXd y(12);
  for (int i = 0; i < 12; ++i) {
    for (int j = 0; j < 3; ++j) x(i, j) = u(rng);
    y(i) = std::sin(3 * x(i, 0)) + x(i, 1) * x(i, 1);
  }
  Hyper h = Hyper::defaults(3);
  h.log_lengthscale << -0.5, 0.2, 0.7;
  h.log_signal_var = 0.3;
  h.log_noise_var = -4;
  Eigen::VectorXd grad;
  log_marginal_likelihood(x, y, h, &grad);
  const Eigen::VectorXd theta = h.pack();
  for (Eigen::Index k = 0; k < theta.size(); ++k) {
    Eigen::VectorXd tp = theta, tm = theta;
    tp(k) += 1e-5;
    tm(k) -= 1e-5;
    const double fd = (log_marginal_likelihood(x, y, Hyper::unpack(tp)) -
                       log_marginal_likelihood(x, y, Hyper::unpack(tm))) / 2e-5;
    EXPECT_NEAR(grad(k), fd, 1e-4 * (1 + std::abs(fd))) << "parameter " << k;
  }
}

TEST(GaussianProcess, FitFindsTheRelevantDimension) {
  // y depends on x0 only: the fitted length scale of x1 must be much longer.
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  Eigen::MatrixXd x(30, 2);
  Eigen::VectorXd y(30);
  for (int i = 0; i < 30; ++i) {
    x(i, 0) = u(rng);
    x(i, 1) = u(rng);
    y(i) = std::sin(6 * x(i, 0));
  }
  FitOptions opt;
  opt.seed = 5;
  const Hyper h = fit(x, y, opt);
  EXPECT_GT(h.log_lengthscale(1), h.log_lengthscale(0) + 1.0);
  EXPECT_GT(log_marginal_likelihood(x, y, h), log_marginal_likelihood(x, y, Hyper::defaults(2)));
}

TEST(GaussianProcess, AFitInSlicesEndsWhereAFitAtOnceDoes) {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> u(0, 1);
  Eigen::MatrixXd x(40, 3);
  Eigen::VectorXd y(40);
  for (int i = 0; i < 40; ++i) {
    for (int j = 0; j < 3; ++j) x(i, j) = u(rng);
    y(i) = std::sin(5 * x(i, 0)) + 0.3 * x(i, 2);
  }
  FitOptions opt;
  opt.seed = 9;
  opt.restarts = 2;
  const Hyper whole = fit(x, y, opt);
  Fit sliced(x, y, opt);
  int slices = 1;
  while (!sliced.advance(3)) ++slices;
  EXPECT_GT(slices, 3);  // three starts of several iterations each do not fit in one slice
  EXPECT_EQ(sliced.best().pack(), whole.pack());
}

TEST(GaussianProcess, LbfgsInSlicesNeverSpendsMoreThanItsSliceAndEndsWhereARunAtOnceDoes) {
  // Rosenbrock from afar: the first steps backtrack many times, so a slice
  // that only paused between iterations would overrun.
  // An accepted step lowers f (Armijo), so a value at or above the lowest
  // so far is a rejected trial; `streak` counts them in a row.
  double lowest = std::numeric_limits<double>::infinity();
  int streak = 0, longest = 0;
  auto f = [&](const Eigen::VectorXd& v, Eigen::VectorXd& g) {
    const double a = 1 - v(0), b = v(1) - v(0) * v(0);
    g.resize(2);
    g(0) = -2 * a - 400 * v(0) * b;
    g(1) = 200 * b;
    const double value = a * a + 100 * b * b;
    streak = value >= lowest ? streak + 1 : 0;
    longest = std::max(longest, streak);
    lowest = std::min(lowest, value);
    return value;
  };
  const Eigen::Vector2d x0(-4, 9), lo(-5, -5), hi(10, 10);
  Lbfgs whole(f, x0, lo, hi, 200);
  whole.run(std::numeric_limits<std::size_t>::max());
  EXPECT_GE(longest, 2);  // an iteration of three evaluations or more
  Lbfgs sliced(f, x0, lo, hi, 200);
  std::size_t most = 0, calls = 0;
  for (bool done = false; !done; ++calls) {
    const std::size_t before = sliced.evaluations();
    done = sliced.run(2);
    most = std::max(most, sliced.evaluations() - before);
  }
  EXPECT_LE(most, 2u);
  EXPECT_EQ(sliced.evaluations(), whole.evaluations());
  EXPECT_EQ(sliced.x(), whole.x());
  EXPECT_EQ(sliced.value(), whole.value());
}

TEST(GaussianProcess, SlicesAtFewerPointsCostWhatOneAtTheFullPointsCosts) {
  // One evaluation costs n²(n + 4·dims): 96² · 164 at 96 points in 17
  // dimensions, 44² · 112 at 44, so 8 at 96 cost as much as 8 · 6.97 at 44.
  EXPECT_EQ(evaluations_of_equal_cost(8, 96, 96, 17), 8u);
  EXPECT_EQ(evaluations_of_equal_cost(8, 96, 44, 17), 56u);
  // n³ alone would allow 83 at 44 points: the per-dimension terms weigh more there.
  EXPECT_LT(evaluations_of_equal_cost(8, 96, 44, 17), 8u * 96 * 96 * 96 / (44 * 44 * 44));
  // Never fewer than one, also past the full points; none asked, one spent.
  EXPECT_EQ(evaluations_of_equal_cost(8, 96, 400, 17), 1u);
  EXPECT_EQ(evaluations_of_equal_cost(0, 96, 44, 17), 1u);
  EXPECT_EQ(evaluations_of_equal_cost(8, 96, 0, 17), evaluations_of_equal_cost(8, 96, 1, 17));
  // A slice too large to count stays a number (a user's fit_slice of 2^62 at 10 points).
  EXPECT_EQ(evaluations_of_equal_cost(std::size_t{1} << 62, 96, 10, 17),
            std::size_t{1'000'000'000'000'000'000});
}

TEST(GaussianProcess, LbfgsMinimisesAQuadraticInsideTheBox) {
  auto f = [](const Eigen::VectorXd& v, Eigen::VectorXd& g) {
    g = 2 * (v - Eigen::Vector2d(1, 5));
    return (v - Eigen::Vector2d(1, 5)).squaredNorm();
  };
  const Eigen::VectorXd x = minimize_lbfgs(f, Eigen::Vector2d(0, 0), Eigen::Vector2d(-2, -2),
                                           Eigen::Vector2d(2, 2), 50);
  EXPECT_NEAR(x(0), 1.0, 1e-6);
  EXPECT_NEAR(x(1), 2.0, 1e-9);  // clipped at the bound
}

}  // namespace
}  // namespace ktune::gp
