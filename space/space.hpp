// Space: parameters plus constraints; enumeration, sampling, neighbours,
// repair and feature encoding of the valid configurations.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json_fwd.hpp>

#include "space/parameter.hpp"
#include "space/position_listing.hpp"
#include "space/value_map.hpp"

namespace ktune {

/// The parameters bound so far while a constraint is checked (during
/// enumeration only a prefix is bound; a constraint runs once all the
/// parameters it names are). Lookups by name are cheap (small linear scan
/// over bound positions), and constants of the space (problem and device
/// keys) are visible too.
class Assignment {
 public:
  virtual ~Assignment() = default;
  virtual const Value& get(std::string_view name) const = 0;
  std::int64_t i(std::string_view name) const;
  double f(std::string_view name) const;
  bool b(std::string_view name) const;
  const std::string& s(std::string_view name) const;
  /// The value position of the k-th name in the constraint's `names` when
  /// that name is a parameter and this assignment holds positions (as
  /// enumeration, sampling and validity checks do); nullopt otherwise (a
  /// constant, or an assignment of values). Spares a constraint over many
  /// knobs a lookup by name and by value per knob.
  virtual std::optional<ValueIndex> declared_position(std::size_t k) const {
    (void)k;
    return std::nullopt;
  }
};

using ConstraintFn = std::function<bool(const Assignment&)>;

/// One constraint: a description a user reads ("warp tile divides block
/// tile"), the names it reads (parameters and constants), and the test.
struct Constraint {
  std::string description;
  std::vector<std::string> names;
  ConstraintFn test;
  std::string expression;  ///< source text when written in the expression language
};

/// A search space for one (family, problem, device). Built once, then
/// read-only and safe to share between threads.
class Space {
 public:
  /// `constants` are the problem and device values that constraints may read
  /// by name (m, n, k, dtype, smem_max, max_threads, sm_count, ...).
  explicit Space(ValueMap constants = {});
  Space(Space&&) noexcept;
  Space& operator=(Space&&) noexcept;
  Space(const Space&);
  Space& operator=(const Space&);
  ~Space();

  /// Adds a parameter. Throws SpaceError if the name is taken (also by a constant).
  Space& add(Parameter p);
  /// Adds a C++ constraint over the named parameters/constants. Throws
  /// SpaceError naming an unknown name.
  Space& require(std::string description, std::vector<std::string> names, ConstraintFn test);
  /// Adds a constraint in the expression language, e.g.
  /// `BLOCK_M % WARP_M == 0 && STAGES * (BLOCK_M + BLOCK_N) * BLOCK_K * 2 <= smem_max`.
  /// Throws SpaceError with the column of a parse error or the unknown name.
  Space& require(std::string expression);
  /// The same, with a description a user reads in place of the expression text.
  Space& require(std::string expression, std::string description);

  const std::vector<Parameter>& parameters() const;
  const std::vector<Constraint>& constraints() const;
  const ValueMap& constants() const;
  const Parameter& parameter(std::string_view name) const;  ///< throws SpaceError

  /// Product of the parameters' sizes (a double: it may exceed 2^64).
  double cartesian_size() const;
  /// Every valid configuration, in a deterministic order (lexicographic over
  /// parameter value positions). Prunes each constraint as soon as its names
  /// are bound and runs independent groups in parallel.
  std::vector<Config> enumerate() const;
  /// The same configurations in the same order as value positions, without
  /// building a Config each (config_at(listing.row(r)) is enumerate()[r]).
  /// Throws SpaceError past the same limit as enumerate.
  PositionListing list_positions() const;
  /// Number of valid configurations, without materialising them.
  std::uint64_t count_valid() const;

  /// Calls `visit` once per valid configuration with the value positions of
  /// every parameter (declaration order), without building Configs. Runs on
  /// the calling thread in a deterministic order (independent parameter
  /// groups combined as a product; not lexicographic). The span is only valid
  /// during the call.
  void for_each_valid(const std::function<void(std::span<const ValueIndex>)>& visit) const;

  /// Position of the parameter named `name` in parameters(); throws SpaceError.
  std::size_t parameter_index(std::string_view name) const;
  /// Value positions of c, declaration order. Throws SpaceError naming a
  /// missing or unknown parameter or a value outside its list.
  std::vector<ValueIndex> indices_of(const Config& c) const;
  /// The configuration at the given value positions (one per parameter).
  /// Throws SpaceError when a position is out of range or the size is wrong.
  Config config_at(std::span<const ValueIndex> indices) const;
  /// Whether the positions meet every constraint (positions must be in range).
  bool is_valid_indices(std::span<const ValueIndex> indices) const;
  /// c with every parameter given a listed value: missing or text values not
  /// in the list take the default, numbers snap to the nearest listed value
  /// (nearest in log2 for power-of-two ranges). Keys that are not parameters
  /// are dropped. Constraints are not considered (see repair).
  Config snap(const Config& c) const;

  /// Whether c assigns every parameter a value of its list and meets every
  /// constraint; on false, `why` (if given) names the offending parameter or
  /// the description of the failed constraint.
  bool is_valid(const Config& c, std::string* why = nullptr) const;
  /// Throws SpaceError with the same message is_valid would give.
  void check(const Config& c) const;

  /// n distinct valid configurations drawn uniformly (fewer if the space has
  /// fewer); deterministic for a seed. Does not enumerate large spaces.
  std::vector<Config> sample(std::size_t n, std::uint64_t seed) const;
  /// Valid configurations that differ from c in one parameter: one value
  /// position up or down for ordinals, any other value for categoricals.
  std::vector<Config> neighbours(const Config& c) const;
  /// The nearest valid configuration to c (fewest changed parameters, then
  /// smallest moves), c itself if valid; nullopt if the space is empty.
  /// Unknown or out-of-list values are first snapped to the nearest listed value.
  std::optional<Config> repair(const Config& c) const;
  /// Defaults of every parameter, repaired if that combination is invalid.
  Config default_config() const;

  /// Features for the Bayesian searcher: ordinal parameters scaled to [0,1]
  /// (log2 for power-of-two ranges), one-hot for categoricals.
  Eigen::VectorXd encode(const Config& c) const;
  /// encode() of the configuration at these value positions (in range, one
  /// per parameter): no name lookups, for encoding a whole listing.
  Eigen::VectorXd encode_indices(std::span<const ValueIndex> indices) const;
  int encoded_size() const;

  /// Throws SpaceError if the space has no parameter or no valid
  /// configuration ("contradictory constraints: ...").
  void require_nonempty() const;

  /// Documented JSON form (see docs/space.md); from_json reads it
  /// back, C++ constraints included only when they carry an expression.
  nlohmann::json to_json() const;
  static Space from_json(const nlohmann::json& j, ValueMap constants = {});

  /// Internals (space/space_impl.hpp); public only so the space's own
  /// source files can name it.
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ktune
