// Gaussian process regression: Matérn 5/2 kernel, marginal likelihood,
// projected L-BFGS fitting, posterior and acquisition functions.
#include "search/gaussian_process.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <random>
#include <stdexcept>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

namespace ktune::gp {
namespace {

constexpr double kSqrt5 = 2.23606797749978969641;

/// Squared distances scaled by the length scales, between rows of a and b.
Eigen::MatrixXd scaled_sq_dist(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b,
                               const Eigen::VectorXd& inv_l) {
  const Eigen::MatrixXd as = a * inv_l.asDiagonal();
  const Eigen::MatrixXd bs = b * inv_l.asDiagonal();
  Eigen::MatrixXd d = (-2.0 * as * bs.transpose()).eval();
  d.colwise() += as.rowwise().squaredNorm();
  d.rowwise() += bs.rowwise().squaredNorm().transpose();
  return d.cwiseMax(0.0);
}

}  // namespace

double matern52(double r) {
  const double s = kSqrt5 * r;
  return (1.0 + s + s * s / 3.0) * std::exp(-s);
}

Eigen::VectorXd Hyper::pack() const {
  Eigen::VectorXd t(log_lengthscale.size() + 2);
  t.head(log_lengthscale.size()) = log_lengthscale;
  t(t.size() - 2) = log_signal_var;
  t(t.size() - 1) = log_noise_var;
  return t;
}

Hyper Hyper::unpack(const Eigen::VectorXd& theta) {
  Hyper h;
  h.log_lengthscale = theta.head(theta.size() - 2);
  h.log_signal_var = theta(theta.size() - 2);
  h.log_noise_var = theta(theta.size() - 1);
  return h;
}

Hyper Hyper::defaults(int dims) {
  Hyper h;
  h.log_lengthscale = Eigen::VectorXd::Constant(dims, std::log(0.5));
  h.log_signal_var = 0.0;
  h.log_noise_var = std::log(1e-3);
  return h;
}

Eigen::MatrixXd kernel_matrix(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, const Hyper& h) {
  const Eigen::VectorXd inv_l = (-h.log_lengthscale.array()).exp().matrix();
  const Eigen::MatrixXd d2 = scaled_sq_dist(a, b, inv_l);
  const double s2 = std::exp(h.log_signal_var);
  return d2.unaryExpr([s2](double v) { return s2 * matern52(std::sqrt(v)); });
}

double log_marginal_likelihood(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, const Hyper& h,
                               Eigen::VectorXd* gradient) {
  const Eigen::Index n = x.rows();
  const int d = h.dims();
  const Eigen::VectorXd inv_l = (-h.log_lengthscale.array()).exp().matrix();
  const Eigen::MatrixXd d2 = scaled_sq_dist(x, x, inv_l);
  const double s2 = std::exp(h.log_signal_var);
  const double noise = std::exp(h.log_noise_var);
  const Eigen::MatrixXd r = d2.cwiseSqrt();
  const Eigen::MatrixXd e = (-kSqrt5 * r.array()).exp().matrix();
  // Kf = s2 (1 + √5 r + 5r²/3) e^{-√5 r}
  Eigen::MatrixXd kf = (s2 * (1.0 + kSqrt5 * r.array() + (5.0 / 3.0) * d2.array()) * e.array()).matrix();
  Eigen::MatrixXd k = kf;
  k.diagonal().array() += noise;
  Eigen::LLT<Eigen::MatrixXd> llt(k);
  if (llt.info() != Eigen::Success) return -std::numeric_limits<double>::infinity();
  const Eigen::VectorXd alpha = llt.solve(y);
  const Eigen::MatrixXd& lm = llt.matrixLLT();
  const double log_det = 2.0 * lm.diagonal().array().log().sum();
  const double lml = -0.5 * y.dot(alpha) - 0.5 * log_det - 0.5 * static_cast<double>(n) * std::log(2 * M_PI);
  if (gradient) {
    // dLML/dθ = ½ tr((ααᵀ − K⁻¹) ∂K/∂θ)
    const Eigen::MatrixXd kinv = llt.solve(Eigen::MatrixXd::Identity(n, n));
    const Eigen::MatrixXd w = alpha * alpha.transpose() - kinv;
    gradient->resize(d + 2);
    // ∂K/∂log l_d = s2 (5/3)(1 + √5 r) e^{-√5 r} Δ_d² / l_d²
    const Eigen::MatrixXd common = (s2 * (5.0 / 3.0) * (1.0 + kSqrt5 * r.array()) * e.array()).matrix();
    const Eigen::MatrixXd wc = w.cwiseProduct(common);
    for (int j = 0; j < d; ++j) {
      const Eigen::VectorXd col = x.col(j) * inv_l(j);
      // Σ_ab wc_ab (c_a − c_b)² = 2 Σ_a c_a² rowsum_a − 2 cᵀ wc c (wc symmetric)
      const Eigen::VectorXd rows = wc.rowwise().sum();
      const double g = 2.0 * col.array().square().matrix().dot(rows) - 2.0 * col.dot(wc * col);
      (*gradient)(j) = 0.5 * g;
    }
    (*gradient)(d) = 0.5 * w.cwiseProduct(kf).sum();
    (*gradient)(d + 1) = 0.5 * noise * w.trace();
  }
  return lml;
}

Eigen::VectorXd minimize_lbfgs(const std::function<double(const Eigen::VectorXd&, Eigen::VectorXd&)>& f,
                               Eigen::VectorXd x, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                               int max_iterations, double* value) {
  const int memory = 7;
  x = x.cwiseMax(lo).cwiseMin(hi);
  Eigen::VectorXd g(x.size());
  double fx = f(x, g);
  if (!std::isfinite(fx)) {
    if (value) *value = fx;
    return x;
  }
  std::deque<Eigen::VectorXd> s_hist, y_hist;
  for (int it = 0; it < max_iterations; ++it) {
    // Two-loop recursion for the quasi-Newton direction.
    Eigen::VectorXd q = g;
    std::vector<double> alphas(s_hist.size());
    for (int i = static_cast<int>(s_hist.size()) - 1; i >= 0; --i) {
      const double rho = 1.0 / y_hist[i].dot(s_hist[i]);
      alphas[i] = rho * s_hist[i].dot(q);
      q -= alphas[i] * y_hist[i];
    }
    if (!s_hist.empty()) q *= s_hist.back().dot(y_hist.back()) / y_hist.back().squaredNorm();
    for (std::size_t i = 0; i < s_hist.size(); ++i) {
      const double rho = 1.0 / y_hist[i].dot(s_hist[i]);
      const double beta = rho * y_hist[i].dot(q);
      q += s_hist[i] * (alphas[i] - beta);
    }
    Eigen::VectorXd dir = -q;
    if (dir.dot(g) >= 0) dir = -g;  // not a descent direction: fall back to steepest descent
    // Backtracking line search on the projected path.
    double step = 1.0;
    Eigen::VectorXd x_new, g_new(x.size());
    double f_new = fx;
    bool accepted = false;
    for (int ls = 0; ls < 25; ++ls) {
      x_new = (x + step * dir).cwiseMax(lo).cwiseMin(hi);
      f_new = f(x_new, g_new);
      if (std::isfinite(f_new) && f_new <= fx + 1e-4 * g.dot(x_new - x)) {
        accepted = true;
        break;
      }
      step *= 0.5;
    }
    if (!accepted) break;
    const Eigen::VectorXd s = x_new - x;
    const Eigen::VectorXd yv = g_new - g;
    const double improvement = fx - f_new;
    x = x_new;
    g = g_new;
    fx = f_new;
    if (s.dot(yv) > 1e-12) {
      s_hist.push_back(s);
      y_hist.push_back(yv);
      if (static_cast<int>(s_hist.size()) > memory) {
        s_hist.pop_front();
        y_hist.pop_front();
      }
    }
    if (improvement < 1e-9 * (1.0 + std::abs(fx)) || s.norm() < 1e-9) break;
  }
  if (value) *value = fx;
  return x;
}

Hyper fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, const FitOptions& options) {
  const int d = static_cast<int>(x.cols());
  const Bounds& b = options.bounds;
  Eigen::VectorXd lo(d + 2), hi(d + 2);
  lo.head(d).setConstant(b.log_lengthscale_lo);
  hi.head(d).setConstant(b.log_lengthscale_hi);
  lo(d) = b.log_signal_lo;
  hi(d) = b.log_signal_hi;
  lo(d + 1) = b.log_noise_lo;
  hi(d + 1) = b.log_noise_hi;

  auto objective = [&](const Eigen::VectorXd& theta, Eigen::VectorXd& grad) {
    Eigen::VectorXd g;
    const double v = log_marginal_likelihood(x, y, Hyper::unpack(theta), &g);
    if (!std::isfinite(v)) {
      grad = Eigen::VectorXd::Zero(theta.size());
      return std::numeric_limits<double>::infinity();
    }
    grad = -g;
    return -v;
  };

  std::vector<Eigen::VectorXd> starts;
  if (options.start && options.start->dims() == d) starts.push_back(options.start->pack());
  if (options.include_defaults || starts.empty()) starts.push_back(Hyper::defaults(d).pack());
  std::mt19937_64 rng(options.seed);
  for (int i = 0; i < options.restarts; ++i) {
    Eigen::VectorXd t(d + 2);
    for (int j = 0; j < d + 2; ++j) {
      // Random starts avoid the extremes of the box, where the surface is flat.
      std::uniform_real_distribution<double> u(lo(j) + 0.25 * (hi(j) - lo(j)),
                                               hi(j) - 0.25 * (hi(j) - lo(j)));
      t(j) = u(rng);
    }
    starts.push_back(t);
  }
  double best_value = std::numeric_limits<double>::infinity();
  Eigen::VectorXd best = starts.front();
  for (const auto& s : starts) {
    double v = 0;
    Eigen::VectorXd t = minimize_lbfgs(objective, s, lo, hi, options.max_iterations, &v);
    if (v < best_value) {
      best_value = v;
      best = t;
    }
  }
  return Hyper::unpack(best);
}

Posterior::Posterior(Eigen::MatrixXd x, const Eigen::VectorXd& y, Hyper h) : x_(std::move(x)), h_(std::move(h)) {
  Eigen::MatrixXd k = kernel_matrix(x_, x_, h_);
  const double noise = std::exp(h_.log_noise_var);
  double jitter = 0;
  for (int attempt = 0; attempt < 6; ++attempt) {
    Eigen::MatrixXd kn = k;
    kn.diagonal().array() += noise + jitter;
    Eigen::LLT<Eigen::MatrixXd> llt(kn);
    if (llt.info() == Eigen::Success) {
      l_ = llt.matrixL();
      alpha_ = llt.solve(y);
      return;
    }
    jitter = jitter == 0 ? 1e-8 * std::exp(h_.log_signal_var) : jitter * 100;
  }
  throw std::runtime_error("Gaussian process: covariance matrix is not positive definite");
}

Eigen::MatrixXd Posterior::whitened_cross(const Eigen::MatrixXd& xs) const {
  const Eigen::MatrixXd ks = kernel_matrix(x_, xs, h_);
  return l_.triangularView<Eigen::Lower>().solve(ks);
}

void Posterior::predict(const Eigen::MatrixXd& xs, Eigen::VectorXd& mean, Eigen::VectorXd& variance,
                        Eigen::MatrixXd* whitened) const {
  const Eigen::MatrixXd ks = kernel_matrix(x_, xs, h_);
  mean = ks.transpose() * alpha_;
  Eigen::MatrixXd v = l_.triangularView<Eigen::Lower>().solve(ks);
  const double s2 = std::exp(h_.log_signal_var);
  variance = (s2 - v.colwise().squaredNorm().array()).cwiseMax(0.0).matrix().transpose();
  if (whitened) *whitened = std::move(v);
}

Eigen::VectorXd Posterior::covariance_with(const Eigen::MatrixXd& xs, const Eigen::VectorXd& p) const {
  const Eigen::MatrixXd pm = p.transpose();
  const Eigen::VectorXd kxp = kernel_matrix(xs, pm, h_).col(0);
  const Eigen::MatrixXd vx = whitened_cross(xs);
  const Eigen::VectorXd vp = whitened_cross(pm).col(0);
  return kxp - vx.transpose() * vp;
}

double normal_pdf(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI); }
double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double expected_improvement(double mean, double sd, double best, double xi) {
  const double gain = best - mean - xi;
  if (!(sd > 0)) return std::max(gain, 0.0);
  const double z = gain / sd;
  return gain * normal_cdf(z) + sd * normal_pdf(z);
}

double lower_confidence_bound(double mean, double sd, double kappa) { return mean - kappa * sd; }

}  // namespace ktune::gp
