// Gaussian process regression on Eigen: Matérn 5/2 kernel with one length
// scale per input dimension, log marginal likelihood with its gradient,
// hyperparameter fitting, posterior, and the acquisition functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include <Eigen/Core>

namespace ktune::gp {

/// Matérn 5/2 correlation at scaled distance r: (1 + √5 r + 5r²/3) exp(-√5 r).
double matern52(double r);

/// Hyperparameters, all in log space so that any real vector is valid.
struct Hyper {
  Eigen::VectorXd log_lengthscale;  ///< one per input dimension
  double log_signal_var = 0.0;      ///< σ_f²
  double log_noise_var = -6.9;      ///< σ_n² (≈1e-3)

  int dims() const { return static_cast<int>(log_lengthscale.size()); }
  /// Packs to (log l_1..d, log σ_f², log σ_n²) and back.
  Eigen::VectorXd pack() const;
  static Hyper unpack(const Eigen::VectorXd& theta);
  static Hyper defaults(int dims);
};

/// k(a_i, b_j) for points stored as rows; no noise term.
Eigen::MatrixXd kernel_matrix(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, const Hyper& h);

/// log p(y | X, θ) of a zero-mean GP; fills `gradient` (w.r.t. pack()'s
/// vector) when given. Returns -infinity if the covariance is not positive
/// definite.
double log_marginal_likelihood(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, const Hyper& h,
                               Eigen::VectorXd* gradient = nullptr);

/// Box bounds of the log hyperparameters the fit respects (inputs are
/// expected scaled to about [0,1] and targets standardised).
struct Bounds {
  double log_lengthscale_lo = -4.6, log_lengthscale_hi = 3.0;   // 0.01 .. 20
  double log_signal_lo = -4.6, log_signal_hi = 2.3;              // 0.01 .. 10
  double log_noise_lo = -13.8, log_noise_hi = 0.0;               // 1e-6 .. 1
};

struct FitOptions {
  int restarts = 3;          ///< random starts besides `start` and the defaults
  int max_iterations = 60;   ///< L-BFGS iterations per start
  std::uint64_t seed = 1;
  std::optional<Hyper> start;  ///< e.g. the previous fit (warm start)
  bool include_defaults = true;  ///< also start from Hyper::defaults
  Bounds bounds;
};

/// Maximises the log marginal likelihood by projected L-BFGS from several
/// starts; returns the best hyperparameters found.
Hyper fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, const FitOptions& options);

/// Minimises f (which fills its gradient) inside [lo, hi] by L-BFGS with
/// projection onto the box and a backtracking (Armijo) line search. Returns
/// the best point; `value` receives f there.
Eigen::VectorXd minimize_lbfgs(const std::function<double(const Eigen::VectorXd&, Eigen::VectorXd&)>& f,
                               Eigen::VectorXd x0, const Eigen::VectorXd& lo,
                               const Eigen::VectorXd& hi, int max_iterations, double* value = nullptr);

/// minimize_lbfgs in slices: run() goes on where the last call stopped, in
/// the middle of a line search if need be, so that a caller can spread one
/// minimisation over several calls of bounded cost. Run to its end, it takes
/// the same steps as minimize_lbfgs.
class Lbfgs {
 public:
  using Objective = std::function<double(const Eigen::VectorXd&, Eigen::VectorXd&)>;
  Lbfgs(Objective f, Eigen::VectorXd x0, Eigen::VectorXd lo, Eigen::VectorXd hi,
        int max_iterations);
  /// Goes on until the minimisation ends or `evaluations` evaluations of f
  /// were spent in this call (one at least, never more: a line search of up
  /// to 25 halvings would otherwise overrun a slice); true once it has ended.
  bool run(std::size_t evaluations);
  bool done() const { return done_; }
  const Eigen::VectorXd& x() const { return x_; }
  double value() const { return fx_; }
  std::size_t evaluations() const { return evaluations_; }

 private:
  double evaluate(const Eigen::VectorXd& x, Eigen::VectorXd& g);
  void begin_line_search();  ///< the quasi-Newton direction of the next iteration
  void line_search_step();   ///< one trial step; sets done_ when the minimisation ends

  Objective f_;
  Eigen::VectorXd x_, lo_, hi_, g_;
  double fx_ = 0;
  int max_iterations_, iteration_ = 0;
  bool started_ = false, done_ = false;
  bool searching_ = false;  ///< a line search is under way (direction_, step_, tries_)
  Eigen::VectorXd direction_;
  double step_ = 1.0;
  int tries_ = 0;
  std::size_t evaluations_ = 0;
  std::deque<Eigen::VectorXd> s_hist_, y_hist_;
};

/// Likelihood evaluations at `points` points that cost as much as
/// `evaluations` at `full_points` (in `dims` dimensions), at least one: one
/// evaluation with its gradient costs about n²(n + 4·dims), the
/// factorisation and inverse (n³) and, per dimension, the distances and the
/// gradient's products (n² each). Scaling by n³ alone gave slices on 37 to
/// 53 points that took 18 to 20 ms on gemm_RTX_3090 where one at 96 took 13.
std::size_t evaluations_of_equal_cost(std::size_t evaluations, std::size_t full_points,
                                      std::size_t points, int dims);

/// fit() in slices: advance() spends a bounded number of likelihood
/// evaluations, so that a search can spread one fit over several proposals
/// and keep each proposal cheap. Run to its end, it returns what fit() does.
class Fit {
 public:
  Fit(Eigen::MatrixXd x, Eigen::VectorXd y, const FitOptions& options);
  Fit(const Fit&) = delete;  // the objective refers to this object's data
  Fit& operator=(const Fit&) = delete;
  /// Goes on for `evaluations` likelihood evaluations (one at least, never
  /// more) or until every start has ended; true once they have.
  bool advance(std::size_t evaluations);
  /// The best hyperparameters found so far (all starts, once advance() is true).
  Hyper best() const { return Hyper::unpack(best_); }
  Eigen::Index size() const { return x_.rows(); }

 private:
  Eigen::MatrixXd x_;
  Eigen::VectorXd y_, lo_, hi_;
  int max_iterations_;
  std::vector<Eigen::VectorXd> starts_;
  std::size_t next_start_ = 0;
  std::optional<Lbfgs> run_;
  double best_value_;
  Eigen::VectorXd best_;
};

/// The posterior of a zero-mean GP given training points (rows of x) and y.
class Posterior {
 public:
  Posterior() = default;
  /// Throws std::runtime_error if the covariance cannot be factorised even
  /// with added jitter.
  Posterior(Eigen::MatrixXd x, const Eigen::VectorXd& y, Hyper h);

  /// Mean and variance (of the latent function, without noise) at rows of xs.
  /// `whitened`, when given, receives L⁻¹ k(X, xs) (for batch updates).
  void predict(const Eigen::MatrixXd& xs, Eigen::VectorXd& mean, Eigen::VectorXd& variance,
               Eigen::MatrixXd* whitened = nullptr) const;
  /// Posterior covariance between every row of xs and the single point p.
  Eigen::VectorXd covariance_with(const Eigen::MatrixXd& xs, const Eigen::VectorXd& p) const;
  /// L⁻¹ k(X, xs): lets a caller get covariances between candidates cheaply.
  Eigen::MatrixXd whitened_cross(const Eigen::MatrixXd& xs) const;

  const Hyper& hyper() const { return h_; }
  Eigen::Index size() const { return x_.rows(); }

 private:
  Eigen::MatrixXd x_;
  Hyper h_;
  Eigen::MatrixXd l_;      ///< lower Cholesky factor of K + σ_n² I
  Eigen::VectorXd alpha_;  ///< (K + σ_n² I)⁻¹ y
};

/// Expected improvement below `best` (minimisation):
/// (best − μ − ξ) Φ(z) + σ φ(z), z = (best − μ − ξ)/σ; max(best − μ − ξ, 0) when σ = 0.
double expected_improvement(double mean, double sd, double best, double xi = 0.0);
/// Lower confidence bound μ − κσ (smaller is more promising).
double lower_confidence_bound(double mean, double sd, double kappa);

double normal_pdf(double z);
double normal_cdf(double z);

}  // namespace ktune::gp
