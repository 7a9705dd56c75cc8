// Space internals shared by the space_*.cpp files: compiled constraints, the
// enumeration plan (independent groups, binding order, pruning points) and the
// evaluation state. Not a public header.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "space/expression.hpp"
#include "space/space.hpp"

namespace ktune::detail {

/// A constraint ready to run: an expression program over parameter slots, or
/// a C++ callable reading names through an Assignment.
struct CompiledConstraint {
  std::shared_ptr<const Expression> expression;  ///< null for C++ callables
  ConstraintFn callable;
  std::vector<int> params;  ///< parameter positions it reads, sorted, each once
  /// Each declared name with its parameter position, or -1 for a constant.
  std::vector<std::pair<std::string, int>> bindings;
};

/// Positions and typed views of the values being checked. `slots` mirrors
/// `idx` as Scalars so expression programs read parameters without lookups.
struct EvalState {
  std::vector<ValueIndex> idx;
  std::vector<Scalar> slots;
};

/// One group of parameters linked by constraints (a connected component of
/// the parameter/constraint graph). Groups are independent: the valid set is
/// the product of the groups' valid sets.
struct Group {
  std::vector<int> order;                ///< parameter positions in binding order
  std::vector<std::vector<int>> checks;  ///< per level: constraints completed there
  std::vector<int> constraints;          ///< every constraint of the group
  double cartesian = 1;                  ///< product of the sizes of its parameters
};

/// The valid rows of one group, flattened: row r holds the positions of
/// group.order[0..width) at rows[r * width ...].
struct GroupTable {
  std::size_t width = 0;
  std::size_t count = 0;
  std::vector<ValueIndex> rows;
};

/// Everything enumeration needs, derived once from the parameters and
/// constraints. Immutable after construction except the lazily built tables.
struct Plan {
  std::vector<std::vector<std::string>> texts;  ///< owns the text values slots point at
  std::vector<std::vector<Scalar>> scalars;     ///< per parameter, per value position
  std::vector<Group> groups;
  std::vector<int> group_of;                    ///< parameter position -> group
  std::vector<int> failed_constant_constraints; ///< constraints over constants only that fail
  bool constants_ok() const { return failed_constant_constraints.empty(); }

  mutable std::mutex table_mutex;
  mutable std::vector<std::shared_ptr<const GroupTable>> tables;
};

}  // namespace ktune::detail

namespace ktune {

struct Space::Impl {
  ValueMap constants;
  std::vector<Parameter> params;
  std::vector<Constraint> constraints;
  std::vector<detail::CompiledConstraint> compiled;

  mutable std::mutex plan_mutex;
  mutable std::shared_ptr<const detail::Plan> plan_cache;

  Impl() = default;
  Impl(const Impl& o)
      : constants(o.constants), params(o.params), constraints(o.constraints), compiled(o.compiled) {}

  /// Position of a parameter, -1 if none.
  int find_param(std::string_view name) const;
  const detail::Plan& plan() const;
  std::shared_ptr<const detail::Plan> plan_ptr() const;
  void invalidate() {
    std::lock_guard lock(plan_mutex);
    plan_cache.reset();
  }

  detail::EvalState make_state(const detail::Plan& plan) const;
  void bind(const detail::Plan& plan, detail::EvalState& st, int param, ValueIndex v) const {
    st.idx[static_cast<std::size_t>(param)] = v;
    st.slots[static_cast<std::size_t>(param)] = plan.scalars[static_cast<std::size_t>(param)][v];
  }
  /// Runs constraint `c` on a state where all its parameters are bound.
  bool check(int c, const detail::EvalState& st) const;
  /// All constraints (constant-only ones included) on a fully bound state;
  /// the first failing constraint's position in *failed when given.
  bool check_all(const detail::EvalState& st, int* failed = nullptr) const;
  /// Only the constraints that read parameter `param`.
  bool check_touching(int param, const detail::EvalState& st) const;

  /// Builds the binding order and the pruning points for a set of parameters
  /// and the constraints among them.
  detail::Group make_group(const std::vector<int>& params, const std::vector<int>& constraints) const;
  std::shared_ptr<const detail::GroupTable> table(const detail::Plan& plan, std::size_t g) const;
  /// Valid rows of a group (parallel over prefixes when `parallel`).
  detail::GroupTable build_table(const detail::Plan& plan, const detail::Group& g, bool parallel) const;
  std::uint64_t count_group(const detail::Plan& plan, const detail::Group& g, bool parallel) const;
  /// Whether at least one assignment of the group's parameters passes.
  bool group_has_valid(const detail::Plan& plan, const detail::Group& g) const;
};

}  // namespace ktune
