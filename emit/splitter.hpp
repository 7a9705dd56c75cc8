// Kernel splitter: from per-shape tuning results, a dispatch that routes each
// shape group to a specialized configuration, with one general configuration
// as the fallback, and the geometric-mean speedup that buys.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "space/result.hpp"
#include "space/value_map.hpp"

namespace ktune {

/// What was measured on one shape: every configuration tried there (failed
/// ones included, they are simply never chosen).
struct ShapeTuning {
  Problem problem;
  std::vector<Result> results;
};

/// How shapes are grouped: a key per problem, and the same function as C++
/// text for the generated header (an inline function
/// `std::string group_key(std::string_view dtype, std::string_view axis, long long rows, long long
/// cols)`).
struct Grouping {
  std::function<std::string(const Problem&)> key;
  std::string cpp_key_function;
};

/// Row-wise grouping (every row-wise family): dtype, reduce-axis position
/// (last | rows), row alignment in bytes, and the class of the reduced length
/// (tiny < 256, short < 4k, medium < 32k, long < 256k, huge), e.g. "bf16.last.a16.short".
Grouping rowwise_grouping();

/// One adopted specialization.
struct DispatchRoute {
  std::string group;
  Config config;
  std::vector<Problem> shapes;  ///< shapes of the set in this group
  double speedup = 1;           ///< geometric mean over those shapes of t(general) / t(config)
  double agreement = 0;         ///< fraction of those shapes whose own best is this config
};

/// A group whose specialization was not adopted, and why.
struct RejectedGroup {
  std::string group;
  std::string reason;
};

struct Dispatch {
  std::string family;
  Config general;                     ///< fastest (geometric mean) over all shapes; the fallback
  std::vector<DispatchRoute> routes;  ///< adopted specializations, by group key
  std::vector<RejectedGroup> rejected;
  double geomean_speedup = 1;  ///< over all shapes: t(general) / t(dispatch)
  std::size_t shapes = 0;
  Grouping grouping;

  /// The configuration the dispatch runs for a problem: its group's route, else general.
  const Config& select(const Problem& p) const;
  /// A self-contained C++17 header routing a problem to a configuration key.
  std::string header_text() const;
  nlohmann::json to_json() const;
};

/// Builds the dispatch. A configuration counts on a shape only with status ok
/// (verified); its time there is its median. The general configuration must
/// be ok on every shape; a group's specialization must be ok on every shape
/// of the group and at least as fast as the general one there (geometric
/// mean). Throws std::invalid_argument when the set is empty or no
/// configuration is ok on every shape (no fallback could be chosen).
Dispatch split_kernels(std::string family, std::span<const ShapeTuning> shapes,
                       const Grouping& grouping);

}  // namespace ktune
