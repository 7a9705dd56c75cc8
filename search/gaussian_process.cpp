// Gaussian process regression: Matérn 5/2 kernel, marginal likelihood,
// projected L-BFGS fitting, posterior and acquisition functions.
#include "search/gaussian_process.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <random>
#include <stdexcept>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include <Eigen/Cholesky>
#include <Eigen/Dense>

namespace ktune::gp {
namespace {

constexpr double kSqrt5 = 2.23606797749978969641;

/// Flushes subnormal doubles to zero while alive (x86: the SSE control
/// register's FTZ and DAZ bits), then restores the caller's mode. Matérn
/// correlations at short length scales reach exp(-√5 r) near e^-720, below
/// the normal range, and arithmetic on subnormals is some 100 times slower:
/// a likelihood evaluation on 96 gemm points took 4 ms at log length scale
/// -4 against 0.4 ms at -0.7, and a 16-evaluation slice of auto's fit 51 ms.
/// The posterior and its cross-covariances likewise: with failures in the
/// data, a proposal on convolution_milo_A4000 at 195 evaluations took 50 ms
/// (0.5 ms to factorise 200 points took 6). Values under 2.2e-308 are zero
/// to the model.
class FlushSubnormals {
 public:
#if defined(__SSE2__)
  FlushSubnormals() : saved_(_mm_getcsr()) {
    _mm_setcsr(saved_ | kFlushToZero | kDenormalsAreZero);
  }
  ~FlushSubnormals() { _mm_setcsr(saved_); }
  FlushSubnormals(const FlushSubnormals&) = delete;
  FlushSubnormals& operator=(const FlushSubnormals&) = delete;

 private:
  static constexpr unsigned kFlushToZero = 0x8000, kDenormalsAreZero = 0x0040;
  unsigned saved_;
#endif
};

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
  const FlushSubnormals flush;
  const Eigen::VectorXd inv_l = (-h.log_lengthscale.array()).exp().matrix();
  const Eigen::MatrixXd d2 = scaled_sq_dist(a, b, inv_l);
  const double s2 = std::exp(h.log_signal_var);
  return d2.unaryExpr([s2](double v) { return s2 * matern52(std::sqrt(v)); });
}

double log_marginal_likelihood(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, const Hyper& h,
                               Eigen::VectorXd* gradient) {
  const FlushSubnormals flush;
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
    const Eigen::VectorXd rows = wc.rowwise().sum();
    for (int j = 0; j < d; ++j) {
      const Eigen::VectorXd col = x.col(j) * inv_l(j);
      // Σ_ab wc_ab (c_a − c_b)² = 2 Σ_a c_a² rowsum_a − 2 cᵀ wc c (wc symmetric)
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
  Lbfgs run(f, std::move(x), lo, hi, max_iterations);
  run.run(std::numeric_limits<std::size_t>::max());
  if (value) *value = run.value();
  return run.x();
}

Lbfgs::Lbfgs(Objective f, Eigen::VectorXd x0, Eigen::VectorXd lo, Eigen::VectorXd hi,
             int max_iterations)
    : f_(std::move(f)),
      x_(std::move(x0)),
      lo_(std::move(lo)),
      hi_(std::move(hi)),
      max_iterations_(max_iterations) {}

double Lbfgs::evaluate(const Eigen::VectorXd& x, Eigen::VectorXd& g) {
  ++evaluations_;
  return f_(x, g);
}

bool Lbfgs::run(std::size_t evaluations) {
  const std::size_t limit = evaluations_ + std::max<std::size_t>(1, evaluations);
  if (!started_) {
    started_ = true;
    x_ = x_.cwiseMax(lo_).cwiseMin(hi_);
    g_.resize(x_.size());
    fx_ = evaluate(x_, g_);
    if (!std::isfinite(fx_)) done_ = true;
  }
  while (!done_ && evaluations_ < limit) {
    if (!searching_) {
      if (iteration_ >= max_iterations_) {
        done_ = true;
        break;
      }
      ++iteration_;
      begin_line_search();
    }
    line_search_step();
  }
  return done_;
}

void Lbfgs::begin_line_search() {
  // Two-loop recursion for the quasi-Newton direction.
  Eigen::VectorXd q = g_;
  std::vector<double> alphas(s_hist_.size());
  for (int i = static_cast<int>(s_hist_.size()) - 1; i >= 0; --i) {
    const double rho = 1.0 / y_hist_[i].dot(s_hist_[i]);
    alphas[i] = rho * s_hist_[i].dot(q);
    q -= alphas[i] * y_hist_[i];
  }
  if (!s_hist_.empty()) q *= s_hist_.back().dot(y_hist_.back()) / y_hist_.back().squaredNorm();
  for (std::size_t i = 0; i < s_hist_.size(); ++i) {
    const double rho = 1.0 / y_hist_[i].dot(s_hist_[i]);
    const double beta = rho * y_hist_[i].dot(q);
    q += s_hist_[i] * (alphas[i] - beta);
  }
  direction_ = -q;
  if (direction_.dot(g_) >= 0) direction_ = -g_;  // not a descent direction: steepest descent
  step_ = 1.0;
  tries_ = 0;
  searching_ = true;
}

void Lbfgs::line_search_step() {
  // Backtracking (Armijo) on the projected path, one evaluation per call.
  constexpr int kMaxTries = 25;
  const Eigen::VectorXd x_new = (x_ + step_ * direction_).cwiseMax(lo_).cwiseMin(hi_);
  Eigen::VectorXd g_new(x_.size());
  const double f_new = evaluate(x_new, g_new);
  if (!(std::isfinite(f_new) && f_new <= fx_ + 1e-4 * g_.dot(x_new - x_))) {
    step_ *= 0.5;
    if (++tries_ == kMaxTries) done_ = true;
    return;
  }
  searching_ = false;
  const int memory = 7;
  const Eigen::VectorXd s = x_new - x_;
  const Eigen::VectorXd yv = g_new - g_;
  const double improvement = fx_ - f_new;
  x_ = x_new;
  g_ = g_new;
  fx_ = f_new;
  if (s.dot(yv) > 1e-12) {
    s_hist_.push_back(s);
    y_hist_.push_back(yv);
    if (static_cast<int>(s_hist_.size()) > memory) {
      s_hist_.pop_front();
      y_hist_.pop_front();
    }
  }
  if (improvement < 1e-9 * (1.0 + std::abs(fx_)) || s.norm() < 1e-9) done_ = true;
}

Hyper fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, const FitOptions& options) {
  Fit f(x, y, options);
  f.advance(std::numeric_limits<std::size_t>::max());
  return f.best();
}

Fit::Fit(Eigen::MatrixXd x, Eigen::VectorXd y, const FitOptions& options)
    : x_(std::move(x)),
      y_(std::move(y)),
      max_iterations_(options.max_iterations),
      best_value_(std::numeric_limits<double>::infinity()) {
  const int d = static_cast<int>(x_.cols());
  const Bounds& b = options.bounds;
  lo_.resize(d + 2);
  hi_.resize(d + 2);
  lo_.head(d).setConstant(b.log_lengthscale_lo);
  hi_.head(d).setConstant(b.log_lengthscale_hi);
  lo_(d) = b.log_signal_lo;
  hi_(d) = b.log_signal_hi;
  lo_(d + 1) = b.log_noise_lo;
  hi_(d + 1) = b.log_noise_hi;
  if (options.start && options.start->dims() == d) starts_.push_back(options.start->pack());
  if (options.include_defaults || starts_.empty()) starts_.push_back(Hyper::defaults(d).pack());
  std::mt19937_64 rng(options.seed);
  for (int i = 0; i < options.restarts; ++i) {
    Eigen::VectorXd t(d + 2);
    for (int j = 0; j < d + 2; ++j) {
      // Random starts avoid the extremes of the box, where the surface is flat.
      std::uniform_real_distribution<double> u(lo_(j) + 0.25 * (hi_(j) - lo_(j)),
                                               hi_(j) - 0.25 * (hi_(j) - lo_(j)));
      t(j) = u(rng);
    }
    starts_.push_back(t);
  }
  best_ = starts_.front();
}

bool Fit::advance(std::size_t evaluations) {
  // Minus the log marginal likelihood; infinite where the covariance is singular.
  auto objective = [this](const Eigen::VectorXd& theta, Eigen::VectorXd& grad) {
    Eigen::VectorXd g;
    const double v = log_marginal_likelihood(x_, y_, Hyper::unpack(theta), &g);
    if (!std::isfinite(v)) {
      grad = Eigen::VectorXd::Zero(theta.size());
      return std::numeric_limits<double>::infinity();
    }
    grad = -g;
    return -v;
  };
  std::size_t spent = 0;
  while (spent < evaluations) {
    if (!run_) {
      if (next_start_ == starts_.size()) break;
      run_.emplace(objective, starts_[next_start_++], lo_, hi_, max_iterations_);
    }
    const std::size_t before = run_->evaluations();
    const bool ended = run_->run(evaluations - spent);
    spent += run_->evaluations() - before;
    if (!ended) break;
    if (run_->value() < best_value_) {
      best_value_ = run_->value();
      best_ = run_->x();
    }
    run_.reset();
  }
  return !run_ && next_start_ == starts_.size();
}

std::size_t evaluations_of_equal_cost(std::size_t evaluations, std::size_t full_points,
                                      std::size_t points, int dims) {
  const auto cost = [dims](double n) { return n * n * (n + 4.0 * dims); };
  const double ratio = cost(static_cast<double>(full_points)) /
                       cost(static_cast<double>(std::max<std::size_t>(1, points)));
  // Capped below 2^63 so that a huge fit_slice still converts exactly.
  const double wanted = std::min(1e18, static_cast<double>(evaluations) * std::min(1e6, ratio));
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(wanted)));
}

Posterior::Posterior(Eigen::MatrixXd x, const Eigen::VectorXd& y, Hyper h) : x_(std::move(x)), h_(std::move(h)) {
  const FlushSubnormals flush;
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
  const FlushSubnormals flush;
  const Eigen::MatrixXd ks = kernel_matrix(x_, xs, h_);
  return l_.triangularView<Eigen::Lower>().solve(ks);
}

void Posterior::predict(const Eigen::MatrixXd& xs, Eigen::VectorXd& mean, Eigen::VectorXd& variance,
                        Eigen::MatrixXd* whitened) const {
  const FlushSubnormals flush;
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
