// Searcher: the interface every search strategy implements (propose a batch,
// observe results), and the factory that builds one by name.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "space/result.hpp"
#include "space/space.hpp"

namespace ktune {

/// What a strategy may see: the space, an optional cost prior and a seed. It
/// never sees the GPU: the same strategy runs against replayed results.
struct SearchContext {
  const Space* space = nullptr;  ///< must outlive the searcher
  /// Predicted time of a configuration in seconds (the family's roofline);
  /// empty when the family has no cost model (e.g. a replayed foreign space).
  std::function<double(const Config&)> predicted_time;
  std::uint64_t seed = 1;
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
};

/// Names: random, exhaustive, evolutionary, bayes, model. Throws
/// std::invalid_argument listing the known names.
std::unique_ptr<Searcher> make_searcher(std::string_view name, const SearchContext& context);
std::vector<std::string> searcher_names();

}  // namespace ktune
