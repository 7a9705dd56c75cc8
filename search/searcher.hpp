// Searcher: the interface every search strategy implements (propose a batch,
// observe results), and the factory that builds one by name.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "search/cost_model.hpp"
#include "space/result.hpp"
#include "space/space.hpp"
#include "space/work.hpp"

namespace ktune {

/// The valid configurations of a space, listed at most once (see
/// SearchContext::listing).
struct SpaceListing {
  bool tried = false;                        ///< listing was attempted
  std::optional<PositionListing> positions;  ///< empty when too large to list
};

/// What a strategy may see: the space, an optional cost prior and a seed. It
/// never sees the GPU: the same strategy runs against replayed results.
struct SearchContext {
  const Space* space = nullptr;  ///< must outlive the searcher
  /// Predicted time of a configuration in seconds (the family's roofline);
  /// empty when the family has no cost model (e.g. a replayed foreign space).
  std::function<double(const Config&)> predicted_time;
  std::uint64_t seed = 1;
  /// Optional, for the `model` strategy: the family's work of a configuration
  /// and the roofline to calibrate on measurements. With both set, `model`
  /// recalibrates the roofline itself and steers by the measured bound class.
  std::function<WorkEstimate(const Config&)> work_estimate;
  std::optional<RooflineModel> roofline;
  /// Strategy knobs by name (documented in search/README.md), e.g.
  /// population=20 (evolutionary), acquisition=ei|lcb, batch=believer|liar,
  /// initial=8 (bayes). Unknown names are ignored.
  ValueMap options;
  /// Strategies built from copies of one context share this listing of the
  /// space, so it is made once (auto's two strategies); null: each lists
  /// the space itself. Not synchronised: share it within one thread only.
  std::shared_ptr<SpaceListing> listing;
};

class Searcher {
 public:
  virtual ~Searcher() = default;
  virtual std::string_view name() const = 0;
  /// Up to `count` valid configurations never proposed or observed before.
  /// Empty when the strategy has nothing left to try.
  virtual std::vector<Config> propose(std::size_t count) = 0;
  /// Results of measured configurations, proposed or not (warm start and
  /// resume feed stored results through here). Failed results count as
  /// infeasible points.
  virtual void observe(std::span<const Result> results) = 0;
  /// Results measured elsewhere (another shape or architecture, mapped to
  /// this space by the caller): hints that shape the initial design (the
  /// best of them are tried first). Unlike observe(), they do not mark a
  /// configuration as measured here, so it may still be proposed. Default:
  /// ignored (random and exhaustive ignore them on purpose).
  virtual void observe_prior(std::span<const Result> results) { (void)results; }
};

/// Names: auto (the default: bayes, then evolutionary once the GP stalls),
/// random, exhaustive, evolutionary, bayes (EI), bayes-lcb, model. Throws
/// std::invalid_argument listing the known names.
std::unique_ptr<Searcher> make_searcher(std::string_view name, const SearchContext& context);
std::vector<std::string> searcher_names();

/// The SearchContext::options a strategy may read (search/README.md lists
/// them); a strategy ignores the others. Throws as make_searcher for an
/// unknown strategy.
std::vector<std::string> search_option_names(std::string_view strategy);
/// Throws std::invalid_argument, one line, for an option that none of
/// `strategies` reads: a typo would otherwise be ignored in silence.
void check_search_options(const std::vector<std::string>& strategies, const ValueMap& options);

/// Seeds a searcher with prior results from other shapes or architectures
/// (already mapped to this space's parameters by the caller) through
/// observe_prior(). Keeps ok results whose configuration is valid in
/// `space`, once per configuration (the fastest); returns how many were
/// used. Stored results of this very problem (resume) go to observe().
std::size_t warm_start(Searcher& searcher, const Space& space, std::span<const Result> prior);

}  // namespace ktune
