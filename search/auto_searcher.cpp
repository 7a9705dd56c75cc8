// `auto`: the default strategy, a portfolio that needs no choice from the
// user. The Gaussian process (`bayes`) leads while it still finds better
// configurations; once it has gone `stall` evaluations without a better best
// (and at least `gp_min` were made), it and the evolutionary search propose
// in turn (every `gp_share`-th proposal is the GP's). Both observe
// everything: the evolutionary elite starts as the GP's best region, its
// restarts explore elsewhere when that region is spent, and the GP learns
// from them. Both see the context's cost model when the family has one.
#include <limits>
#include <unordered_set>

#include "search/strategies.hpp"

namespace ktune::detail {
namespace {

/// Likelihood evaluations of a hyperparameter fit per proposal (at the
/// fit's full 96 points; as many as cost the same at fewer points), unless
/// the options set fit_slice. A fit at 96 points takes about 100
/// evaluations (two starts) and cost up to 137 ms of CPU at once on
/// gemm_RTX_3090. A slice stops inside a line search when it is spent.
/// Slices of 16 took 13 to 14 ms on a slow 2-core machine (0.85 ms an
/// evaluation), the larger part of the slowest proposals (22 to 27 ms
/// there); slices of 8 halve that, and a fit lands a few proposals later
/// with no measurable change in what auto finds (200 paired seeds, all
/// seven recorded spaces, every budget within 1.1 standard errors).
constexpr std::int64_t kFitSlice = 8;

/// The caller's context with one listing of the space for both strategies.
SearchContext shared_listing(const SearchContext& context) {
  SearchContext shared = context;
  if (!shared.listing) shared.listing = std::make_shared<SpaceListing>();
  return shared;
}

/// The GP's context: fit_slice defaulted to kFitSlice.
SearchContext gp_context(const SearchContext& context) {
  SearchContext gp = context;
  if (!gp.options.contains("fit_slice")) gp.options.set("fit_slice", kFitSlice);
  return gp;
}

class AutoSearcher final : public Searcher {
 public:
  /// `context` carries the listing both strategies share (shared_listing).
  explicit AutoSearcher(const SearchContext& context)
      : gp_(make_bayes_searcher(gp_context(context), option_text(context, "acquisition", "ei"))),
        evolutionary_(make_evolutionary_searcher(context)),
        stall_(
            static_cast<std::size_t>(std::max<std::int64_t>(1, option_int(context, "stall", 45)))),
        gp_min_(
            static_cast<std::size_t>(std::max<std::int64_t>(0, option_int(context, "gp_min", 50)))),
        share_(static_cast<std::size_t>(
            std::max<std::int64_t>(0, option_int(context, "gp_share", 2)))),
        regain_(option_int(context, "gp_regain", 1) != 0) {}
  std::string_view name() const override { return "auto"; }

  std::vector<Config> propose(std::size_t count) override {
    const bool gp_turn = gp_leads();
    Searcher& lead = gp_turn ? *gp_ : *evolutionary_;
    ++turns_;
    std::vector<Config> out;
    // The one that does not lead never saw the other's pending proposals:
    // drop any it repeats (a few rounds; an empty round means it is done).
    for (int round = 0; round < 4 && out.size() < count; ++round) {
      auto batch = lead.propose(count - out.size());
      if (batch.empty()) break;
      for (auto& c : batch)
        if (proposed_.insert(c.key()).second) {
          if (gp_turn && handed_over_) gp_shared_turns_.insert(c.key());
          out.push_back(std::move(c));
        }
    }
    return out;
  }

  void observe(std::span<const Result> results) override {
    for (const auto& r : results) {
      proposed_.insert(r.config.key());
      ++observed_;
      if (r.ok() && r.time.median_s < best_) {
        best_ = r.time.median_s;
        last_improvement_ = observed_;
        // A better best from the GP after the hand-over: it was not spent.
        if (regain_ && gp_shared_turns_.count(r.config.key()) > 0) handed_over_ = false;
      }
    }
    gp_->observe(results);
    evolutionary_->observe(results);
  }

  void observe_prior(std::span<const Result> results) override {
    gp_->observe_prior(results);
    evolutionary_->observe_prior(results);
  }

 private:
  /// The GP leads until it stalls; from then on it has every share_-th turn.
  bool gp_leads() {
    if (!handed_over_ && observed_ >= gp_min_ && observed_ - last_improvement_ >= stall_)
      handed_over_ = true;
    if (!handed_over_) return true;
    return share_ > 0 && turns_ % share_ == 0;
  }

  std::unique_ptr<Searcher> gp_, evolutionary_;
  std::size_t stall_, gp_min_;
  std::unordered_set<std::string> proposed_;
  std::size_t observed_ = 0, last_improvement_ = 0;
  double best_ = std::numeric_limits<double>::infinity();
  bool handed_over_ = false;
  std::size_t turns_ = 0;
  std::size_t
      share_;  ///< after the hand-over, every share_-th proposal is still the GP's (0: none)
  bool
      regain_;  ///< a GP proposal that improves the best after the hand-over gives it the lead back
  std::unordered_set<std::string> gp_shared_turns_;  ///< the GP's proposals after the hand-over
};

}  // namespace

std::unique_ptr<Searcher> make_auto_searcher(const SearchContext& context) {
  return std::make_unique<AutoSearcher>(shared_listing(context));
}

}  // namespace ktune::detail
