// `evolutionary`: a steady-state genetic algorithm over valid configurations.
// Parents come by tournament from the elite (the fastest measured so far, so
// elitism is built in and nothing is measured twice); a child takes each
// knob from one parent (uniform crossover), mutates k knobs with k drawn
// from a power law (mostly one or two, now and then many), and is placed
// into the space: kept when valid and unseen, else replaced by the nearest unseen
// valid configuration in the space's feature encoding (Space::repair first
// when the space is too large to list). With a cost model worth ranking by
// (a term model calibrated on this run's measurements, or given calibrated),
// each proposal is the most promising of several children
// (surrogate-screened offspring). After `patience` children without a better
// best, the run restarts: a fresh population elsewhere in the space.
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include <Eigen/Core>

#include "search/online_cost_model.hpp"
#include "search/strategies.hpp"

namespace ktune::detail {
namespace {

/// Listed spaces up to this size are searched exhaustively for the nearest
/// unseen configuration; larger ones through repair and a sampled pool.
constexpr std::size_t kNearestScanLimit = 100000;

/// A child mutates k of the knobs that can change, P(k) proportional to
/// k^-tail (heavy-tailed mutation, as in Doerr et al.'s "fast" genetic
/// algorithms): with 2 and 14 knobs, 64% of children change one knob, 16% two
/// and 7% three, yet one in seven changes four or more. A fast region is often
/// a two-knob step from a good one (on gemm_RTX_2080_Ti the optimum's basin
/// lies MDIMC and VWN away from a 0.94 one). A per-knob rate adapted by the
/// 1/5 rule, used before, rose to one knob in two once children failed, so a
/// stalled search took 5-9 knob steps and almost never those two (at 200
/// evaluations, 200 seeds: 0.987 there, 0.991 with tail 2; tails 1, 1.5, 2.5
/// and 3 gave 0.989, 0.990, 0.991, 0.990).
constexpr double kMutationTail = 2.0;

class EvolutionarySearcher final : public SearcherBase {
 public:
  explicit EvolutionarySearcher(const SearchContext& context)
      : SearcherBase(context),
        population_(static_cast<std::size_t>(
            std::max<std::int64_t>(4, option_int(context, "population", 12)))),
        tournament_(static_cast<std::size_t>(
            std::max<std::int64_t>(2, option_int(context, "tournament", 4)))),
        screen_(
            static_cast<std::size_t>(std::max<std::int64_t>(1, option_int(context, "screen", 16)))),
        patience_(static_cast<std::size_t>(std::max<std::int64_t>(
            1, option_int(context, "patience", 2 * static_cast<std::int64_t>(population_))))),
        changeable_(changeable_knobs(space().parameters())),
        mutation_count_(mutation_count(changeable_.size(),
                                       option_number(context, "mutation_tail", kMutationTail))),
        online_(this->context()) {}
  std::string_view name() const override { return "evolutionary"; }

  std::vector<Config> propose(std::size_t count) override {
    std::vector<Config> out;
    const auto elite = elite_indices();
    // Initial population: prior hints first, then a space-filling design,
    // until a population has been measured (or while there are fewer than 2
    // parents).
    const std::size_t measured_or_pending = history().size() - epoch_start_ + pending_.size();
    std::size_t initial = measured_or_pending < population_ ? population_ - measured_or_pending : 0;
    if (elite.size() < 2) initial = count;
    initial = std::min(initial, count);
    for (auto& c : take_prior_hints(initial))
      if (take(c)) out.push_back(std::move(c));
    // A model already calibrated for this family and device seeds half of
    // the initial population with its best predictions.
    if (measured_or_pending == 0 && out.size() < initial && online_.trusted())
      for (auto& c : best_predicted(online_, sample_unseen(400), (initial - out.size() + 1) / 2))
        if (take(c)) out.push_back(std::move(c));
    if (out.size() < initial)
      for (auto& c : space_filling_unseen(initial - out.size()))
        if (take(c)) out.push_back(std::move(c));
    for (const auto& c : out) mark_seen(c);
    while (elite.size() >= 2 && out.size() < count) {
      std::optional<Config> child = screened_child(elite);
      if (!child) {
        // Nothing unseen near the elite: inject fresh blood.
        auto fresh = sample_unseen(1);
        if (fresh.empty()) break;
        child = std::move(fresh.front());
      }
      if (!take(*child)) continue;
      mark_seen(*child);
      children_.insert(child->key());
      out.push_back(std::move(*child));
    }
    for (const auto& c : out) pending_.emplace(c.key(), c);
    return out;
  }

 private:
  void on_observed(const Result& r) override {
    online_.observe(r);
    mark_seen(r.config);
    const std::string key = r.config.key();
    pending_.erase(key);
    if (r.ok() && r.time.median_s < epoch_best_) {
      epoch_best_ = r.time.median_s;
      stale_ = 0;
    }
    if (children_.erase(key) && ++stale_ > patience_) restart();
  }

  /// A new epoch: the elite forgets everything measured so far and a fresh
  /// space-filling population is drawn. Without it a run whose elite sits
  /// in one basin keeps placing children there and stops improving
  /// (measured on the Kernel Tuner spaces: pnpoly flat from 50 to 200
  /// evaluations); the overall best is the caller's to keep.
  void restart() {
    epoch_start_ = history().size();
    epoch_best_ = std::numeric_limits<double>::infinity();
    stale_ = 0;
  }

  /// The fastest `population_` ok results of this epoch (indices into history()).
  std::vector<std::size_t> elite_indices() const {
    std::vector<std::size_t> idx;
    for (std::size_t i : ok_by_time())
      if (i >= epoch_start_ && idx.size() < population_) idx.push_back(i);
    return idx;
  }

  const Config& tournament(const std::vector<std::size_t>& elite) {
    std::uniform_int_distribution<std::size_t> pick(0, elite.size() - 1);
    std::size_t best = elite[pick(rng_)];
    for (std::size_t i = 1; i < tournament_; ++i) {
      const std::size_t other = elite[pick(rng_)];
      if (history()[other].time.median_s < history()[best].time.median_s) best = other;
    }
    return history()[best].config;
  }

  /// One child, or with a trusted cost model the best predicted of up to
  /// `screen_` distinct unseen children.
  std::optional<Config> screened_child(const std::vector<std::size_t>& elite) {
    const bool model = online_.trusted();
    const std::size_t wanted = model || knn_screen_ ? screen_ : 1;
    std::vector<Config> children;
    std::unordered_set<std::string> keys;
    for (std::size_t attempt = 0; attempt < 4 * wanted && children.size() < wanted; ++attempt) {
      auto c = make_child(elite, attempt >= wanted);
      if (c && keys.insert(c->key()).second) children.push_back(std::move(*c));
    }
    if (children.empty()) return std::nullopt;
    std::size_t best = 0;
    if (children.size() > 1) {
      auto score = [&](const Config& c) {
        return model ? online_.log_time(c) : neighbourhood_log_time(c);
      };
      double best_lt = score(children[0]);
      for (std::size_t i = 1; i < children.size(); ++i) {
        const double lt = score(children[i]);
        if (lt < best_lt) {
          best_lt = lt;
          best = i;
        }
      }
    }
    return std::move(children[best]);
  }

  /// Inverse-distance-weighted mean log time of the 3 nearest measured
  /// configurations (failures count as twice the slowest ok time): the
  /// surrogate when there is no cost model.
  double neighbourhood_log_time(const Config& c) {
    const Eigen::VectorXd x = space().encode(c);
    const auto& hist = history();
    double worst = -std::numeric_limits<double>::infinity();
    for (const auto& r : hist)
      if (r.ok()) worst = std::max(worst, std::log(r.time.median_s));
    std::vector<std::pair<double, double>> near;  // (distance, log time)
    for (std::size_t i = 0; i < hist.size(); ++i) {
      while (encoded_.size() <= i) encoded_.push_back(space().encode(hist[encoded_.size()].config));
      near.emplace_back((encoded_[i] - x).norm(),
                        hist[i].ok() ? std::log(hist[i].time.median_s) : worst + std::log(2.0));
    }
    const std::size_t k = std::min<std::size_t>(3, near.size());
    if (k == 0) return 0;
    std::partial_sort(near.begin(), near.begin() + static_cast<std::ptrdiff_t>(k), near.end());
    double sum = 0, weights = 0;
    for (std::size_t i = 0; i < k; ++i) {
      const double w = 1.0 / (near[i].first + 0.05);
      sum += w * near[i].second;
      weights += w;
    }
    return sum / weights;
  }

  /// The indices of the knobs that can change (more than one value).
  static std::vector<std::size_t> changeable_knobs(const std::vector<Parameter>& parameters) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < parameters.size(); ++i)
      if (parameters[i].size() > 1) out.push_back(i);
    return out;
  }

  /// k - 1 for k = 1..knobs, P(k) proportional to k^-tail. Throws
  /// std::invalid_argument for a tail that is negative or not finite.
  static std::discrete_distribution<std::size_t> mutation_count(std::size_t knobs, double tail) {
    if (!std::isfinite(tail) || tail < 0)
      throw std::invalid_argument("search option 'mutation_tail' must be a number >= 0");
    std::vector<double> w;
    for (std::size_t k = 1; k <= knobs; ++k) w.push_back(std::pow(static_cast<double>(k), -tail));
    return std::discrete_distribution<std::size_t>(w.begin(), w.end());
  }

  /// Which knobs a child mutates: k of those that can change, k drawn from
  /// mutation_count_ (one more when `retry`: the first children were
  /// duplicates).
  std::vector<bool> knobs_to_mutate(bool retry) {
    std::vector<bool> chosen(space().parameters().size(), false);
    if (changeable_.empty()) return chosen;
    std::vector<std::size_t> order = changeable_;
    const std::size_t k = std::min(order.size(), mutation_count_(rng_) + 1 + (retry ? 1 : 0));
    std::shuffle(order.begin(), order.end(), rng_);
    for (std::size_t i = 0; i < k; ++i) chosen[order[i]] = true;
    return chosen;
  }

  /// Crossover of two tournament winners, mutation, placement.
  std::optional<Config> make_child(const std::vector<std::size_t>& elite, bool retry) {
    const Config& a = tournament(elite);
    const Config& b = tournament(elite);
    Config child;
    std::bernoulli_distribution coin(0.5);
    std::bernoulli_distribution far(0.25);
    const auto& parameters = space().parameters();
    const std::vector<bool> mutate = knobs_to_mutate(retry);
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const Parameter& p = parameters[i];
      const Config& from = coin(rng_) ? a : b;
      Value v = from.at(p.name());
      if (mutate[i]) {
        // Ordinal knobs move one step (sometimes two), categoricals switch.
        const std::size_t at = p.index_of(v).value_or(p.default_index());
        std::size_t to = at;
        if (p.ordinal()) {
          const int step = far(rng_) ? 2 : 1;
          const bool up = at == 0 || (at + 1 < p.size() && coin(rng_));
          to =
              up ? std::min(p.size() - 1, at + static_cast<std::size_t>(step))
                 : (at >= static_cast<std::size_t>(step) ? at - static_cast<std::size_t>(step) : 0);
        } else {
          to = std::uniform_int_distribution<std::size_t>(0, p.size() - 2)(rng_);
          if (to >= at) ++to;
        }
        v = p.values()[to];
      }
      child.set(p.name(), std::move(v));
    }
    return place(child);
  }

  /// c when valid and unseen; else the nearest unseen valid configuration.
  std::optional<Config> place(const Config& c) {
    if (!seen(c) && space().is_valid(c)) return c;
    if (listed()) return nearest_listed(space().encode(c));
    if (auto fixed = space().repair(c); fixed && !seen(*fixed)) return fixed;
    // A large space: the nearest among a sampled pool and c's neighbours.
    std::vector<Config> pool = sample_unseen(256);
    const Config& anchor = c;
    if (space().is_valid(anchor))
      for (auto& nb : unseen_neighbours(anchor)) pool.push_back(std::move(nb));
    if (pool.empty()) return std::nullopt;
    const Eigen::VectorXd x = space().encode(c);
    std::size_t best = 0;
    double best_d = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < pool.size(); ++i) {
      const double d = (space().encode(pool[i]) - x).squaredNorm();
      if (d < best_d) {
        best_d = d;
        best = i;
      }
    }
    return pool[best];
  }

  /// Whether the valid configurations are listed (and few enough to scan).
  bool listed() {
    if (!listed_tried_) {
      listed_tried_ = true;
      if (const auto* all = listing(); all && all->size() <= kNearestScanLimit) {
        features_.resize(static_cast<Eigen::Index>(all->size()), space().encoded_size());
        for (std::size_t i = 0; i < all->size(); ++i) {
          features_.row(static_cast<Eigen::Index>(i)) =
              space().encode_indices(all->row(i)).transpose();
          row_of_.emplace(position_code(all->row(i)), i);
        }
        row_seen_.assign(all->size(), false);
        for (const auto& r : history()) mark_seen(r.config);
        for (const auto& [key, c] : pending_) mark_seen(c);
      }
    }
    return !row_seen_.empty();
  }

  void mark_seen(const Config& c) {
    if (row_seen_.empty()) return;
    // A value outside its parameter's list: not a listed configuration.
    std::vector<ValueIndex> idx;
    for (const auto& p : space().parameters()) {
      const auto at = c.contains(p.name()) ? p.index_of(c.at(p.name())) : std::nullopt;
      if (!at) return;
      idx.push_back(static_cast<ValueIndex>(*at));
    }
    if (auto it = row_of_.find(position_code(idx)); it != row_of_.end())
      row_seen_[it->second] = true;
  }

  /// Value positions as one mixed-radix number (unique: a listed space has
  /// at most kEnumerateLimit combinations).
  std::uint64_t position_code(std::span<const ValueIndex> idx) const {
    std::uint64_t code = 0;
    const auto& params = space().parameters();
    for (std::size_t p = 0; p < idx.size(); ++p) code = code * params[p].size() + idx[p];
    return code;
  }

  /// The unseen listed configuration nearest to x (ties: a random one of them).
  std::optional<Config> nearest_listed(const Eigen::VectorXd& x) {
    const Eigen::VectorXd d = (features_.rowwise() - x.transpose()).rowwise().squaredNorm();
    double best_d = std::numeric_limits<double>::infinity();
    std::vector<std::size_t> ties;
    for (std::size_t i = 0; i < row_seen_.size(); ++i) {
      if (row_seen_[i]) continue;
      const double v = d(static_cast<Eigen::Index>(i));
      if (v < best_d - 1e-12) {
        best_d = v;
        ties.assign(1, i);
      } else if (v <= best_d + 1e-12) {
        ties.push_back(i);
      }
    }
    if (ties.empty()) return std::nullopt;
    const std::size_t pick =
        ties[std::uniform_int_distribution<std::size_t>(0, ties.size() - 1)(rng_)];
    return space().config_at(listing()->row(pick));
  }

  std::size_t population_;
  std::size_t tournament_;
  std::size_t screen_;
  std::size_t patience_;                 ///< children without a better epoch best before a restart
  std::vector<std::size_t> changeable_;  ///< knobs with more than one value
  std::discrete_distribution<std::size_t> mutation_count_;  ///< knobs a child mutates, less one
  OnlineCostModel online_;
  bool knn_screen_ = option_int(context(), "knn", 0) != 0;
  std::vector<Eigen::VectorXd> encoded_;  ///< per history() entry, filled lazily
  std::size_t epoch_start_ = 0;           ///< history() index where the current epoch began
  double epoch_best_ = std::numeric_limits<double>::infinity();
  std::size_t stale_ = 0;  ///< children observed since the epoch best improved
  std::unordered_map<std::string, Config> pending_;  ///< proposed, not observed yet, by key
  std::unordered_set<std::string> children_;
  bool listed_tried_ = false;
  Eigen::MatrixXd features_;                               ///< encoded enumeration, when listed
  std::unordered_map<std::uint64_t, std::size_t> row_of_;  ///< position_code -> row
  std::vector<bool> row_seen_;
};

}  // namespace

std::unique_ptr<Searcher> make_evolutionary_searcher(const SearchContext& context) {
  return std::make_unique<EvolutionarySearcher>(context);
}

}  // namespace ktune::detail
