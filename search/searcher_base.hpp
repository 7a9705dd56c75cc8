// SearcherBase: bookkeeping every strategy shares (what was proposed or
// observed, the history of results, a seeded generator) and a source of
// unseen valid candidates. Internal to search/.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "search/searcher.hpp"

namespace ktune::detail {

class SearcherBase : public Searcher {
 public:
  explicit SearcherBase(const SearchContext& context);
  void observe(std::span<const Result> results) override;
  void observe_prior(std::span<const Result> results) override;

 protected:
  const Space& space() const { return *context_.space; }
  const SearchContext& context() const { return context_; }
  bool seen(const Config& c) const { return seen_.count(c.key()) > 0; }
  /// Marks c as proposed; false if it was already proposed or observed.
  bool take(const Config& c) { return seen_.insert(c.key()).second; }

  /// Every valid configuration as value positions, in enumeration order,
  /// when the space is small enough to list (cartesian size up to
  /// kEnumerateLimit), else nullptr. space().config_at(row) builds a Config.
  const PositionListing* listing();
  /// Up to n distinct valid configurations not seen yet, drawn uniformly
  /// (from the enumeration when there is one, else from Space::sample).
  std::vector<Config> sample_unseen(std::size_t n);
  /// Up to n unseen valid configurations spread over the space: Mitchell's
  /// best candidate (each pick the farthest, in encoded features, from the
  /// picks and from everything observed, among 4 random candidates of a
  /// uniform pool of `pool`); the first pick is random when nothing was
  /// observed. Uniform instead when the measured plus the n would be a tenth
  /// of the pool or more, or with the search option design=uniform.
  std::vector<Config> space_filling_unseen(std::size_t n, std::size_t pool = 256);
  /// Unseen valid neighbours of c.
  std::vector<Config> unseen_neighbours(const Config& c) const;

  /// Up to n configurations from the prior results (fastest first) not seen
  /// here yet; each is handed out once.
  std::vector<Config> take_prior_hints(std::size_t n);

  /// Called for each new observation (after bookkeeping); strategies hook here.
  virtual void on_observed(const Result&) {}

  /// Observed results, one per configuration, in arrival order.
  const std::vector<Result>& history() const { return history_; }
  /// Indices into history() of ok results, fastest first.
  std::vector<std::size_t> ok_by_time() const;

  std::mt19937_64 rng_;
  static constexpr double kEnumerateLimit = 2e6;

 private:
  SearchContext context_;
  std::unordered_set<std::string> seen_;
  std::unordered_map<std::string, std::size_t> observed_;  ///< key -> index in history_
  std::vector<Result> history_;
  std::vector<Result> prior_;
  std::size_t prior_cursor_ = 0;
  std::shared_ptr<SpaceListing> listing_;  ///< the context's, or this searcher's own
  std::uint64_t sample_round_ = 0;
  bool spread_designs_ = true;  ///< search option design=spread|uniform
};

/// Time of a result for minimisation: its median if ok, +infinity otherwise.
double objective(const Result& r);

}  // namespace ktune::detail
