// `bayes` / `bayes-lcb`: Bayesian optimisation with a Gaussian process on
// log times. Matérn 5/2 with per-dimension length scales fitted by maximum
// marginal likelihood; the cost model, when given, is the prior mean (a
// fitted line in log time, so a poor model costs little); failures are
// learned by a kernel-weighted feasibility estimate that discounts the
// acquisition; batches come from the kriging believer (or constant liar)
// on a pool of sampled valid configurations plus neighbours of the best.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <unordered_set>

#include <Eigen/Dense>

#include "search/gaussian_process.hpp"
#include "search/online_cost_model.hpp"
#include "search/strategies.hpp"

namespace ktune::detail {
namespace {

class BayesSearcher final : public SearcherBase {
 public:
  BayesSearcher(const SearchContext& context, std::string_view acquisition)
      : SearcherBase(context), lcb_(acquisition == "lcb"), online_(this->context()) {
    if (acquisition != "ei" && acquisition != "lcb")
      throw std::invalid_argument("bayes: acquisition must be 'ei' or 'lcb', not '" + std::string(acquisition) + "'");
    const auto dims = static_cast<std::int64_t>(space().parameters().size());
    initial_ = static_cast<std::size_t>(std::max<std::int64_t>(3, option_int(context, "initial", std::clamp<std::int64_t>(dims + 1, 5, 10))));
    pool_size_ = static_cast<std::size_t>(std::max<std::int64_t>(16, option_int(context, "pool", 400)));
    max_train_ = static_cast<std::size_t>(std::max<std::int64_t>(20, option_int(context, "max_train", 300)));
    fit_points_ = static_cast<std::size_t>(std::max<std::int64_t>(10, option_int(context, "fit_points", 96)));
    fit_slice_ =
        static_cast<std::size_t>(std::max<std::int64_t>(0, option_int(context, "fit_slice", 0)));
    const std::string batch = option_text(context, "batch", "believer");
    if (batch != "believer" && batch != "liar")
      throw std::invalid_argument("bayes: batch must be 'believer' or 'liar', not '" + batch + "'");
    liar_ = batch == "liar";
    feasibility_ = option_int(context, "feasibility", 1) != 0;
    if (option_int(context, "divisibility", 1) != 0) find_divisibility_knobs();
  }
  std::string_view name() const override { return lcb_ ? "bayes-lcb" : "bayes"; }

  std::vector<Config> propose(std::size_t count) override {
    std::vector<Config> out;
    const std::size_t ok_count = ok_by_time().size();
    // Initial design: prior hints, then uniform samples.
    const std::size_t started = history().size() + pending_.size();
    // A model already calibrated for this family and device (term weights
    // given with the context) deserves trust from the start: its best
    // prediction opens the design, and the GP takes over after 3 points.
    const bool trusted_start = started == 0 && online_.trusted();
    if (trusted_start) initial_ = std::min<std::size_t>(initial_, 3);
    std::size_t design = started < initial_ ? initial_ - started : 0;
    if (ok_count < 3) design = count;
    design = std::min(design, count);
    for (auto& c : take_prior_hints(design))
      if (take(c)) out.push_back(std::move(c));
    if (trusted_start && out.size() < design)
      for (auto& c : best_predicted(online_, sample_unseen(pool_size_), 1))
        if (take(c)) out.push_back(std::move(c));
    if (out.size() < design)
      for (auto& c : space_filling_unseen(design - out.size()))
        if (take(c)) out.push_back(std::move(c));
    if (out.size() < count && ok_count >= 3) {
      try {
        model_based(count - out.size(), out);
      } catch (const std::exception&) {
        // A numerical failure of the model must not stop the search.
      }
      if (out.size() < count)
        for (auto& c : sample_unseen(count - out.size()))
          if (take(c)) out.push_back(std::move(c));
    }
    for (const auto& c : out) pending_.insert(c.key());
    return out;
  }

 private:
  void on_observed(const Result& r) override {
    pending_.erase(r.config.key());
    encoded_.push_back(features(r.config));
    online_.observe(r);
  }

  /// Integer knobs whose values are not powers of two in order (16, 32,
  /// 48, ... or 1, 2, 3, 4): on a GPU, time often depends on the power of
  /// two that divides such a value (warp and wavefront multiples, vector
  /// widths, bank conflicts) more than on its position in the list, which
  /// a smooth kernel over positions cannot express.
  void find_divisibility_knobs() {
    const auto& params = space().parameters();
    for (std::size_t i = 0; i < params.size(); ++i) {
      const auto& p = params[i];
      if (!p.ordinal() || p.size() < 3) continue;
      std::vector<double> v;
      for (const auto& value : p.values())
        if (const auto* n = std::get_if<std::int64_t>(&value)) v.push_back(two_adic(*n));
      if (v.size() != p.size()) continue;
      // Positions already are log2 when the valuations rise with them.
      if (std::is_sorted(v.begin(), v.end()) && std::adjacent_find(v.begin(), v.end()) == v.end())
        continue;
      const double top = *std::max_element(v.begin(), v.end());
      if (top <= 0) continue;
      divisibility_knobs_.push_back({i, top});
    }
  }

  /// The exponent of the largest power of two dividing n (0 counts as 16).
  static double two_adic(std::int64_t n) {
    if (n == 0) return 16;
    double k = 0;
    for (n = n < 0 ? -n : n; n % 2 == 0 && k < 16; n /= 2) ++k;
    return k;
  }

  /// The space's encoding plus, per divisibility knob, its value's
  /// power-of-two exponent scaled to [0, 1].
  Eigen::VectorXd features(const Config& c) const {
    const Eigen::VectorXd base = space().encode(c);
    if (divisibility_knobs_.empty()) return base;
    Eigen::VectorXd x(base.size() + static_cast<Eigen::Index>(divisibility_knobs_.size()));
    x.head(base.size()) = base;
    const auto& params = space().parameters();
    for (std::size_t j = 0; j < divisibility_knobs_.size(); ++j) {
      const auto& [index, top] = divisibility_knobs_[j];
      const Value& value = c.at(params[index].name());
      const auto* n = std::get_if<std::int64_t>(&value);
      x(base.size() + static_cast<Eigen::Index>(j)) = n ? std::min(two_adic(*n), top) / top : 0.0;
    }
    return x;
  }

  /// Log predicted time (the cost model, recalibrated on what was measured
  /// here), NaN without a model or when it cannot price c.
  double prior_log_time(const Config& c) {
    if (!online_.usable()) return std::numeric_limits<double>::quiet_NaN();
    const double lp = online_.log_time(c);
    return std::isfinite(lp) ? lp : std::numeric_limits<double>::quiet_NaN();
  }

  void model_based(std::size_t k, std::vector<Config>& out) {
    const auto& hist = history();
    const auto ok = ok_by_time();  // fastest first
    const int dims = space().encoded_size() + static_cast<int>(divisibility_knobs_.size());
    // Training points: ok results (fastest first), then failures. A failure
    // enters with the worst ok log time (a penalty), so the surrogate stops
    // predicting wonders where nothing runs; the feasibility estimate below
    // discounts such regions further.
    std::vector<std::size_t> points(ok.begin(), ok.end());
    for (std::size_t i = 0; i < hist.size(); ++i)
      if (!hist[i].ok()) points.push_back(i);
    const auto n_pts = static_cast<Eigen::Index>(points.size());
    double y_worst = -std::numeric_limits<double>::infinity();
    for (std::size_t i : ok) y_worst = std::max(y_worst, std::log(hist[i].time.median_s));

    // Targets: log time, minus the fitted prior line, standardised.
    Eigen::VectorXd y(n_pts), p(n_pts);
    bool prior_usable = online_.usable();
    for (Eigen::Index i = 0; i < n_pts; ++i) {
      const Result& r = hist[points[static_cast<std::size_t>(i)]];
      y(i) = r.ok() ? std::log(r.time.median_s) : y_worst;
      p(i) = prior_usable ? prior_log_time(r.config) : std::numeric_limits<double>::quiet_NaN();
      if (!std::isfinite(p(i)) && r.ok()) prior_usable = false;
    }
    const auto n_ok = static_cast<Eigen::Index>(ok.size());
    double a = 0, b = 0;
    if (prior_usable && n_ok >= 3) {
      // The line is fitted on ok points only (penalties are not the model's fault).
      const Eigen::VectorXd po = p.head(n_ok), yo = y.head(n_ok);
      const double pm = po.mean(), ym = yo.mean();
      const double vp = (po.array() - pm).square().sum();
      b = vp > 0 ? ((po.array() - pm) * (yo.array() - ym)).sum() / vp : 0;
      b = std::clamp(b, 0.0, 1.5);
      a = ym - b * pm;
      for (Eigen::Index i = n_ok; i < n_pts; ++i)
        if (!std::isfinite(p(i))) p(i) = po.maxCoeff();
    }
    const Eigen::VectorXd resid = prior_usable ? (y.array() - (a + b * p.array())).matrix() : y;
    const double m_r = resid.head(n_ok).mean();
    double s_r = std::sqrt((resid.head(n_ok).array() - m_r).square().sum() / std::max<double>(1, n_ok - 1));
    if (!(s_r > 1e-12)) s_r = 1.0;
    const Eigen::VectorXd z = ((resid.array() - m_r) / s_r).matrix();

    // Training subset: everything up to max_train_, else the best half plus
    // a random draw from the rest (keeps the posterior cheap at 1000s of points).
    std::vector<Eigen::Index> train(static_cast<std::size_t>(n_pts));
    std::iota(train.begin(), train.end(), 0);
    if (train.size() > max_train_) {
      const std::size_t best = std::min<std::size_t>(max_train_ / 2, ok.size());
      std::shuffle(train.begin() + static_cast<std::ptrdiff_t>(best), train.end(), rng_);
      train.resize(max_train_);
    }
    Eigen::MatrixXd xt(static_cast<Eigen::Index>(train.size()), dims);
    Eigen::VectorXd zt(static_cast<Eigen::Index>(train.size()));
    for (std::size_t i = 0; i < train.size(); ++i) {
      xt.row(static_cast<Eigen::Index>(i)) = encoded_[points[static_cast<std::size_t>(train[i])]].transpose();
      zt(static_cast<Eigen::Index>(i)) = z(train[i]);
    }

    // Hyperparameters: refit when the data grew by a fifth (on at most
    // fit_points points), else reuse: the fit is the costly part.
    const auto n_now = static_cast<std::size_t>(n_pts);
    if (!fit_ && (!hyper_ || n_now >= fitted_n_ + std::max<std::size_t>(3, fitted_n_ / 5))) {
      // The fit sees the best 50 and 50 of the rest (the random half when
      // the training set was subsampled), so length scales reflect both the
      // basin of the optimum and the space at large.
      std::vector<Eigen::Index> rows;
      const Eigen::Index nt = xt.rows();
      const auto half = static_cast<Eigen::Index>(fit_points_ / 2);
      if (nt <= 2 * half) {
        for (Eigen::Index i = 0; i < nt; ++i) rows.push_back(i);
      } else {
        // The best `half`, and `half` spread evenly over the rest (slower ok
        // points and failures alike).
        for (Eigen::Index i = 0; i < half; ++i) rows.push_back(i);
        const double stride = static_cast<double>(nt - half) / static_cast<double>(half);
        for (Eigen::Index i = 0; i < half; ++i)
          rows.push_back(std::min<Eigen::Index>(nt - 1, half + static_cast<Eigen::Index>(static_cast<double>(i) * stride)));
      }
      Eigen::MatrixXd xf(static_cast<Eigen::Index>(rows.size()), dims);
      Eigen::VectorXd zf(static_cast<Eigen::Index>(rows.size()));
      for (std::size_t i = 0; i < rows.size(); ++i) {
        xf.row(static_cast<Eigen::Index>(i)) = xt.row(rows[i]);
        zf(static_cast<Eigen::Index>(i)) = zt(rows[i]);
      }
      gp::FitOptions opt;
      opt.seed = rng_();
      // Starts: the previous optimum (if any), the defaults, and below 60
      // points one random point (cheap then, and early fits on a few points
      // are the ones that go astray); past 150 points a refit starts from
      // the previous optimum only (the first fit from the defaults), to keep
      // it within the proposal budget.
      opt.restarts = n_now < 60 ? 1 : 0;
      opt.include_defaults = !hyper_ || n_now < 150;
      opt.max_iterations = 50;
      opt.start = hyper_;
      fit_ = std::make_unique<gp::Fit>(std::move(xf), std::move(zf), opt);
      fitted_n_ = n_now;
    }
    advance_fit();
    gp::Posterior post(xt, zt, *hyper_);

    // Candidate pool: uniform samples plus unseen neighbours of the best five.
    std::vector<Config> cand = sample_unseen(pool_size_);
    std::unordered_set<std::string> keys;
    for (const auto& c : cand) keys.insert(c.key());
    for (std::size_t i = 0; i < std::min<std::size_t>(5, ok.size()); ++i)
      for (auto& nb : unseen_neighbours(hist[ok[i]].config))
        if (keys.insert(nb.key()).second) cand.push_back(std::move(nb));
    if (cand.empty()) return;
    const auto m = static_cast<Eigen::Index>(cand.size());
    Eigen::MatrixXd xc(m, dims);
    Eigen::VectorXd pc = Eigen::VectorXd::Constant(m, 0.0);
    for (Eigen::Index i = 0; i < m; ++i) {
      xc.row(i) = features(cand[static_cast<std::size_t>(i)]).transpose();
      if (prior_usable) {
        const double lp = prior_log_time(cand[static_cast<std::size_t>(i)]);
        pc(i) = std::isfinite(lp) ? a + b * lp : a + b * p.head(n_ok).maxCoeff();
      }
    }
    Eigen::VectorXd mu_z, var_z;
    Eigen::MatrixXd v;
    post.predict(xc, mu_z, var_z, &v);

    // Feasibility: kernel-weighted share of successes around each candidate,
    // shrunk towards the overall success rate.
    Eigen::VectorXd p_ok = Eigen::VectorXd::Ones(m);
    const auto n_all = static_cast<Eigen::Index>(hist.size());
    if (feasibility_ && static_cast<Eigen::Index>(ok.size()) < n_all) {
      Eigen::MatrixXd xa(n_all, dims);
      Eigen::VectorXd okv(n_all);
      for (Eigen::Index i = 0; i < n_all; ++i) {
        xa.row(i) = encoded_[static_cast<std::size_t>(i)].transpose();
        okv(i) = hist[static_cast<std::size_t>(i)].ok() ? 1.0 : 0.0;
      }
      // Failure regions have sharp edges (a resource limit, an unsupported
      // combination): cap the length scales so the estimate stays local.
      gp::Hyper unit = *hyper_;
      unit.log_signal_var = 0;
      unit.log_lengthscale = unit.log_lengthscale.cwiseMin(std::log(0.2));
      const Eigen::MatrixXd w = gp::kernel_matrix(xc, xa, unit);
      // Shrunk towards the overall rate with the weight of a quarter of one
      // coincident observation: sparse data should still speak.
      const double base = (okv.sum() + 1.0) / (static_cast<double>(n_all) + 2.0);
      p_ok = ((w * okv).array() + 0.25 * base) / (w.rowwise().sum().array() + 0.25);
      // Squared: a failed compile or launch costs a full evaluation and
      // teaches little, so doubtful regions are discounted more than linearly.
      p_ok = p_ok.array().square().matrix();
    }

    // y-space (log time) view of the posterior.
    const double noise_z = std::exp(hyper_->log_noise_var);
    double f_best = y.head(n_ok).minCoeff();
    std::vector<bool> picked(static_cast<std::size_t>(m), false);
    std::vector<Eigen::VectorXd> cols;
    std::vector<double> denoms;
    for (std::size_t step = 0; step < k; ++step) {
      Eigen::Index best = -1;
      double best_score = -std::numeric_limits<double>::infinity();
      for (Eigen::Index i = 0; i < m; ++i) {
        if (picked[static_cast<std::size_t>(i)]) continue;
        const double mu = pc(i) + m_r + s_r * mu_z(i);
        const double sd = s_r * std::sqrt(std::max(var_z(i), 0.0));
        double score;
        // Likely failures (p_ok < 1/4 after squaring) only when nothing else is left.
        const double feasible_bonus = p_ok(i) >= 0.25 ? 1e6 : 0.0;
        if (lcb_) {
          const double u = f_best - gp::lower_confidence_bound(mu, sd, kappa_);
          score = u > 0 ? u * p_ok(i) : u / std::max(p_ok(i), 1e-3);
        } else {
          score = gp::expected_improvement(mu, sd, f_best, xi_) * p_ok(i);
          score += 1e-12 * sd;  // break ties of zero EI towards uncertainty
        }
        score += feasible_bonus;
        if (score > best_score) {
          best_score = score;
          best = i;
        }
      }
      if (best < 0) break;
      picked[static_cast<std::size_t>(best)] = true;
      if (!take(cand[static_cast<std::size_t>(best)])) continue;
      out.push_back(cand[static_cast<std::size_t>(best)]);
      if (step + 1 == k) break;
      // Fantasise the pick and condition on it (rank-one update over the pool).
      const Eigen::MatrixXd xb = xc.row(best);
      Eigen::VectorXd c = gp::kernel_matrix(xc, xb, *hyper_).col(0) - v.transpose() * v.col(best);
      for (std::size_t j = 0; j < cols.size(); ++j) c -= cols[j] * (cols[j](best) / denoms[j]);
      const double d = std::max(var_z(best), 0.0) + noise_z;
      const double mu_b_y = pc(best) + m_r + s_r * mu_z(best);
      if (liar_) {
        const double z_fake = (y_worst - pc(best) - m_r) / s_r;
        mu_z += c * ((z_fake - mu_z(best)) / d);
      } else {
        f_best = std::min(f_best, mu_b_y);
      }
      var_z = (var_z.array() - c.array().square() / d).cwiseMax(0.0).matrix();
      cols.push_back(std::move(c));
      denoms.push_back(d);
    }
  }

  /// Runs the pending hyperparameter fit: to its end when there are no
  /// hyperparameters yet or no slice is set, else for as many likelihood
  /// evaluations as `fit_slice` cost at `fit_points` points
  /// (gp::evaluations_of_equal_cost), the previous hyperparameters serving
  /// until it ends.
  void advance_fit() {
    if (!fit_) return;
    std::size_t budget = std::numeric_limits<std::size_t>::max();
    if (hyper_ && fit_slice_ > 0)
      budget = gp::evaluations_of_equal_cost(
          fit_slice_, fit_points_, static_cast<std::size_t>(fit_->size()), hyper_->dims());
    if (fit_->advance(budget)) {
      hyper_ = fit_->best();
      fit_.reset();
    }
  }

  bool lcb_;
  bool liar_ = false;
  bool feasibility_ = true;  ///< learn failures (option feasibility=0 turns it off, for comparison)
  double kappa_ = 2.0;
  double xi_ = 0.01;  // in log time: ask for at least ~1% improvement
  std::size_t initial_ = 8;
  std::size_t pool_size_ = 400;
  std::size_t max_train_ = 300;
  std::size_t fit_points_ = 96;  ///< points the hyperparameter fit sees (the best half and others)
  std::unordered_set<std::string> pending_;  ///< proposed, not observed yet
  std::optional<gp::Hyper> hyper_;
  std::unique_ptr<gp::Fit> fit_;  ///< a fit in progress (over several proposals with fit_slice)
  std::size_t fit_slice_ =
      0;  ///< likelihood evaluations per proposal at fit_points points (0: no limit)
  std::size_t fitted_n_ = 0;
  OnlineCostModel online_;
  std::vector<Eigen::VectorXd> encoded_;  ///< features() per history() entry
  /// (parameter index, largest power-of-two exponent among its values)
  std::vector<std::pair<std::size_t, double>> divisibility_knobs_;
};

}  // namespace

std::unique_ptr<Searcher> make_bayes_searcher(const SearchContext& context, std::string_view acquisition) {
  return std::make_unique<BayesSearcher>(context, acquisition);
}

}  // namespace ktune::detail
