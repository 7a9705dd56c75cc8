// `evolutionary`: a steady-state genetic algorithm over valid configurations.
// Parents come by tournament from the elite (the fastest measured so far, so
// elitism is built in and nothing is measured twice); children are made by
// uniform crossover, repaired into the space, and mutated by walks through
// Space::neighbours at a rate adapted by the 1/5 success rule.
#include "search/strategies.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <unordered_map>

namespace ktune::detail {
namespace {

class EvolutionarySearcher final : public SearcherBase {
 public:
  explicit EvolutionarySearcher(const SearchContext& context)
      : SearcherBase(context),
        population_(static_cast<std::size_t>(std::max<std::int64_t>(4, option_int(context, "population", 20)))),
        tournament_(static_cast<std::size_t>(std::max<std::int64_t>(2, option_int(context, "tournament", 3)))) {}
  std::string_view name() const override { return "evolutionary"; }

  std::vector<Config> propose(std::size_t count) override {
    std::vector<Config> out;
    const auto elite = elite_indices();
    // Initial population: prior hints first, then uniform samples, until a
    // population has been measured (or while there are fewer than 2 parents).
    const std::size_t measured_or_pending = history().size() + pending_.size();
    std::size_t initial = measured_or_pending < population_ ? population_ - measured_or_pending : 0;
    if (elite.size() < 2) initial = count;
    initial = std::min(initial, count);
    for (auto& c : take_prior_hints(initial))
      if (take(c)) out.push_back(std::move(c));
    if (out.size() < initial)
      for (auto& c : sample_unseen(initial - out.size()))
        if (take(c)) out.push_back(std::move(c));
    while (elite.size() >= 2 && out.size() < count) {
      std::optional<Config> child;
      for (int attempt = 0; attempt < 12 && !child; ++attempt) child = make_child(elite, attempt);
      if (!child) {
        // The neighbourhood of the elite is exhausted: inject fresh blood.
        auto fresh = sample_unseen(1);
        if (fresh.empty()) break;
        child = std::move(fresh.front());
      }
      if (!take(*child)) continue;
      children_.insert(child->key());
      out.push_back(std::move(*child));
    }
    for (const auto& c : out) pending_.insert(c.key());
    return out;
  }

 private:
  void on_observed(const Result& r) override {
    const std::string key = r.config.key();
    pending_.erase(key);
    if (!children_.erase(key)) return;
    // Success = the child would enter the elite.
    const auto elite = elite_indices();
    bool success = false;
    if (r.ok()) {
      success = elite.size() < population_ ||
                r.time.median_s <= history()[elite.back()].time.median_s;
    }
    outcomes_.push_back(success);
    if (outcomes_.size() > 10) outcomes_.pop_front();
    if (outcomes_.size() >= 5) {
      const double ratio = static_cast<double>(std::count(outcomes_.begin(), outcomes_.end(), true)) /
                           static_cast<double>(outcomes_.size());
      // 1/5 rule: frequent successes -> exploit (smaller steps), rare -> explore.
      mutation_rate_ *= ratio > 0.2 ? 0.85 : (ratio < 0.2 ? 1.15 : 1.0);
      mutation_rate_ = std::clamp(mutation_rate_, 0.05, 0.9);
    }
  }

  /// The fastest `population_` ok results (indices into history()).
  std::vector<std::size_t> elite_indices() const {
    auto idx = ok_by_time();
    if (idx.size() > population_) idx.resize(population_);
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

  std::optional<Config> make_child(const std::vector<std::size_t>& elite, int attempt) {
    const Config& a = tournament(elite);
    const Config& b = tournament(elite);
    Config child;
    std::bernoulli_distribution coin(0.5);
    for (const auto& p : space().parameters()) {
      const Config& from = coin(rng_) ? a : b;
      child.set(p.name(), from.at(p.name()));
    }
    auto repaired = space().repair(child);
    if (!repaired) return std::nullopt;
    child = std::move(*repaired);
    // Mutation: a random walk through valid neighbours, one step per
    // parameter with probability mutation_rate_; at least one step when the
    // child is already known, and longer walks on later attempts.
    const std::size_t dims = space().parameters().size();
    std::binomial_distribution<std::size_t> steps_dist(dims, mutation_rate_);
    std::size_t steps = steps_dist(rng_) + static_cast<std::size_t>(attempt / 3);
    if (steps == 0 && seen(child)) steps = 1;
    for (std::size_t s = 0; s < steps; ++s) {
      auto nbs = space().neighbours(child);
      if (nbs.empty()) break;
      std::uniform_int_distribution<std::size_t> pick(0, nbs.size() - 1);
      child = std::move(nbs[pick(rng_)]);
    }
    if (seen(child)) {
      // Last resort before giving up this attempt: an unseen neighbour.
      auto nbs = unseen_neighbours(child);
      if (nbs.empty()) return std::nullopt;
      std::uniform_int_distribution<std::size_t> pick(0, nbs.size() - 1);
      child = std::move(nbs[pick(rng_)]);
    }
    return child;
  }

  std::size_t population_;
  std::size_t tournament_;
  double mutation_rate_ = 0.3;
  std::unordered_set<std::string> pending_;  ///< proposed, not observed yet
  std::unordered_set<std::string> children_;
  std::deque<bool> outcomes_;
};

}  // namespace

std::unique_ptr<Searcher> make_evolutionary_searcher(const SearchContext& context) {
  return std::make_unique<EvolutionarySearcher>(context);
}

}  // namespace ktune::detail
