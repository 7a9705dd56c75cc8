// Space: building (parameters, constraints), the enumeration plan, validity
// checks, conversions between Configs and value positions, and encoding.
#include "space/space.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "space/name_list.hpp"
#include "space/space_impl.hpp"

namespace ktune {

// ---------------------------------------------------------------- Assignment

namespace {

std::string value_type_name(const Value& v) {
  static const char* names[] = {"integer", "real", "boolean", "text"};
  return names[v.index()];
}

}  // namespace

std::int64_t Assignment::i(std::string_view name) const {
  const Value& v = get(name);
  if (const auto* x = std::get_if<std::int64_t>(&v)) return *x;
  if (const auto* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
  throw SpaceError("'" + std::string(name) + "' should be an integer, is " + value_type_name(v) +
                   " '" + to_text(v) + "'");
}

double Assignment::f(std::string_view name) const {
  const Value& v = get(name);
  if (std::holds_alternative<std::string>(v))
    throw SpaceError("'" + std::string(name) + "' should be a number, is text '" + to_text(v) + "'");
  return as_number(v);
}

bool Assignment::b(std::string_view name) const {
  const Value& v = get(name);
  if (const auto* x = std::get_if<bool>(&v)) return *x;
  if (const auto* x = std::get_if<std::int64_t>(&v); x && (*x == 0 || *x == 1)) return *x == 1;
  throw SpaceError("'" + std::string(name) + "' should be a boolean, is " + value_type_name(v) +
                   " '" + to_text(v) + "'");
}

const std::string& Assignment::s(std::string_view name) const {
  const Value& v = get(name);
  if (const auto* x = std::get_if<std::string>(&v)) return *x;
  throw SpaceError("'" + std::string(name) + "' should be text, is " + value_type_name(v) + " '" +
                   to_text(v) + "'");
}

namespace {

/// The Assignment a C++ constraint sees: the names it declared, looked up in
/// its own short binding list, read from value positions.
class IndexAssignment final : public Assignment {
 public:
  IndexAssignment(const Space::Impl& impl, const detail::CompiledConstraint& cc,
                  const Constraint& c, const ValueIndex* idx)
      : impl_(impl), cc_(cc), c_(c), idx_(idx) {}

  const Value& get(std::string_view name) const override {
    for (const auto& [n, p] : cc_.bindings)
      if (n == name)
        return p >= 0 ? impl_.params[static_cast<std::size_t>(p)].values()[idx_[p]]
                      : impl_.constants.at(n);
    throw SpaceError("constraint '" + c_.description + "' reads '" + std::string(name) +
                     "', which is not among the names it declares");
  }

  std::optional<ValueIndex> declared_position(std::size_t k) const override {
    if (k >= cc_.bindings.size() || cc_.bindings[k].second < 0) return std::nullopt;
    return idx_[cc_.bindings[k].second];
  }

 private:
  const Space::Impl& impl_;
  const detail::CompiledConstraint& cc_;
  const Constraint& c_;
  const ValueIndex* idx_;
};

}  // namespace

// ---------------------------------------------------------------- Impl

int Space::Impl::find_param(std::string_view name) const {
  for (std::size_t i = 0; i < params.size(); ++i)
    if (params[i].name() == name) return static_cast<int>(i);
  return -1;
}

detail::EvalState Space::Impl::make_state(const detail::Plan& plan) const {
  detail::EvalState st;
  st.idx.assign(params.size(), 0);
  st.slots.resize(params.size());
  for (std::size_t p = 0; p < params.size(); ++p) st.slots[p] = plan.scalars[p][0];
  return st;
}

bool Space::Impl::check(int c, const detail::EvalState& st) const {
  const auto& cc = compiled[static_cast<std::size_t>(c)];
  if (cc.expression) return cc.expression->test(st.slots.data());
  IndexAssignment a(*this, cc, constraints[static_cast<std::size_t>(c)], st.idx.data());
  return cc.callable(a);
}

bool Space::Impl::check_all(const detail::EvalState& st, int* failed) const {
  for (std::size_t c = 0; c < compiled.size(); ++c)
    if (!check(static_cast<int>(c), st)) {
      if (failed) *failed = static_cast<int>(c);
      return false;
    }
  return true;
}

bool Space::Impl::check_touching(int param, const detail::EvalState& st) const {
  for (std::size_t c = 0; c < compiled.size(); ++c) {
    const auto& ps = compiled[c].params;
    if (std::binary_search(ps.begin(), ps.end(), param) && !check(static_cast<int>(c), st))
      return false;
  }
  return true;
}

detail::Group Space::Impl::make_group(const std::vector<int>& group_params,
                                      const std::vector<int>& group_constraints) const {
  // Greedy binding order: next bind the parameter that completes the most
  // constraints (prunes soonest), then the one in the most unfinished
  // constraints (brings the next completion closer), then the smallest
  // (narrowest branching), then declaration order.
  detail::Group g;
  g.constraints = group_constraints;
  std::vector<char> bound(params.size(), 0);
  std::vector<char> done(compiled.size(), 0);
  std::vector<int> left = group_params;
  for (int p : group_params) g.cartesian *= static_cast<double>(params[static_cast<std::size_t>(p)].size());
  while (!left.empty()) {
    std::size_t best = 0;
    long best_score[3] = {-1, -1, 0};
    for (std::size_t k = 0; k < left.size(); ++k) {
      const int p = left[k];
      long completes = 0, touches = 0;
      for (int c : group_constraints) {
        if (done[static_cast<std::size_t>(c)]) continue;
        const auto& ps = compiled[static_cast<std::size_t>(c)].params;
        if (!std::binary_search(ps.begin(), ps.end(), p)) continue;
        ++touches;
        bool all = true;
        for (int q : ps)
          if (q != p && !bound[static_cast<std::size_t>(q)]) all = false;
        if (all) ++completes;
      }
      const long size = -static_cast<long>(params[static_cast<std::size_t>(p)].size());
      const long score[3] = {completes, touches, size};
      if (std::lexicographical_compare(best_score, best_score + 3, score, score + 3)) {
        std::copy(score, score + 3, best_score);
        best = k;
      }
    }
    const int p = left[best];
    left.erase(left.begin() + static_cast<long>(best));
    bound[static_cast<std::size_t>(p)] = 1;
    g.order.push_back(p);
    std::vector<int> level;
    for (int c : group_constraints) {
      if (done[static_cast<std::size_t>(c)]) continue;
      const auto& ps = compiled[static_cast<std::size_t>(c)].params;
      if (std::all_of(ps.begin(), ps.end(), [&](int q) { return bound[static_cast<std::size_t>(q)]; })) {
        done[static_cast<std::size_t>(c)] = 1;
        level.push_back(c);
      }
    }
    g.checks.push_back(std::move(level));
  }
  return g;
}

std::shared_ptr<const detail::Plan> Space::Impl::plan_ptr() const {
  {
    std::lock_guard lock(plan_mutex);
    if (plan_cache) return plan_cache;
  }
  auto plan = std::make_shared<detail::Plan>();
  const std::size_t n = params.size();
  plan->texts.resize(n);
  plan->scalars.resize(n);
  for (std::size_t p = 0; p < n; ++p) {
    const auto& values = params[p].values();
    if (params[p].kind() == ParamKind::categorical) {
      plan->texts[p].reserve(values.size());
      for (const Value& v : values) plan->texts[p].push_back(std::get<std::string>(v));
      for (const std::string& s : plan->texts[p]) {
        Scalar sc{};
        sc.s = &s;
        plan->scalars[p].push_back(sc);
      }
    } else {
      for (const Value& v : values) plan->scalars[p].push_back(to_scalar(v));
    }
  }

  // Constraints over constants only are settled once.
  detail::EvalState empty;
  empty.idx.assign(n, 0);
  empty.slots.resize(n);
  for (std::size_t p = 0; p < n; ++p) empty.slots[p] = plan->scalars[p][0];
  for (std::size_t c = 0; c < compiled.size(); ++c)
    if (compiled[c].params.empty() && !check(static_cast<int>(c), empty))
      plan->failed_constant_constraints.push_back(static_cast<int>(c));

  // Groups: connected components over "appear in one constraint together".
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto root = [&](int x) {
    while (parent[static_cast<std::size_t>(x)] != x)
      x = parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    return x;
  };
  for (const auto& cc : compiled)
    for (std::size_t k = 1; k < cc.params.size(); ++k) {
      const int a = root(cc.params[0]), b = root(cc.params[k]);
      if (a != b) parent[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
    }
  plan->group_of.assign(n, -1);
  std::vector<std::vector<int>> members;
  for (std::size_t p = 0; p < n; ++p) {
    const int r = root(static_cast<int>(p));
    if (plan->group_of[static_cast<std::size_t>(r)] < 0) {
      plan->group_of[static_cast<std::size_t>(r)] = static_cast<int>(members.size());
      members.emplace_back();
    }
    plan->group_of[p] = plan->group_of[static_cast<std::size_t>(r)];
    members[static_cast<std::size_t>(plan->group_of[p])].push_back(static_cast<int>(p));
  }
  std::vector<std::vector<int>> group_constraints(members.size());
  for (std::size_t c = 0; c < compiled.size(); ++c)
    if (!compiled[c].params.empty())
      group_constraints[static_cast<std::size_t>(plan->group_of[static_cast<std::size_t>(compiled[c].params[0])])]
          .push_back(static_cast<int>(c));
  for (std::size_t g = 0; g < members.size(); ++g)
    plan->groups.push_back(make_group(members[g], group_constraints[g]));
  plan->tables.resize(plan->groups.size());

  std::lock_guard lock(plan_mutex);
  if (!plan_cache) plan_cache = std::move(plan);
  return plan_cache;
}

const detail::Plan& Space::Impl::plan() const { return *plan_ptr(); }

// ---------------------------------------------------------------- Space: building

Space::Space(ValueMap constants) : impl_(std::make_unique<Impl>()) {
  impl_->constants = std::move(constants);
}
Space::Space(Space&&) noexcept = default;
Space& Space::operator=(Space&&) noexcept = default;
Space::Space(const Space& o) : impl_(std::make_unique<Impl>(*o.impl_)) {}
Space& Space::operator=(const Space& o) {
  if (this != &o) impl_ = std::make_unique<Impl>(*o.impl_);
  return *this;
}
Space::~Space() = default;

Space& Space::add(Parameter p) {
  if (impl_->find_param(p.name()) >= 0)
    throw SpaceError("parameter '" + p.name() + "' is defined twice");
  if (impl_->constants.contains(p.name()))
    throw SpaceError("parameter '" + p.name() + "' has the name of a constant (problem or device key)");
  impl_->params.push_back(std::move(p));
  impl_->invalidate();
  return *this;
}

Space& Space::require(std::string description, std::vector<std::string> names, ConstraintFn test) {
  if (!test) throw SpaceError("constraint '" + description + "' has no test");
  detail::CompiledConstraint cc;
  cc.callable = test;
  for (const auto& name : names) {
    const int p = impl_->find_param(name);
    if (p < 0 && !impl_->constants.contains(name))
      throw SpaceError("constraint '" + description + "' names unknown parameter or constant '" +
                       name + "'");
    cc.bindings.emplace_back(name, p);
    if (p >= 0 && std::find(cc.params.begin(), cc.params.end(), p) == cc.params.end())
      cc.params.push_back(p);
  }
  std::sort(cc.params.begin(), cc.params.end());
  impl_->compiled.push_back(std::move(cc));
  impl_->constraints.push_back(Constraint{std::move(description), std::move(names), std::move(test), {}});
  impl_->invalidate();
  return *this;
}

Space& Space::require(std::string expression) {
  std::string description = expression;
  return require(std::move(expression), std::move(description));
}

Space& Space::require(std::string expression, std::string description) {
  const Impl& impl = *impl_;
  auto resolve = [&impl](std::string_view name) -> std::optional<ExprSymbol> {
    ExprSymbol s;
    const int p = impl.find_param(name);
    if (p >= 0) {
      const Parameter& param = impl.params[static_cast<std::size_t>(p)];
      s.slot = p;
      s.type = type_of(param.values().front());
      if (param.kind() == ParamKind::categorical) s.allowed = &param.values();
      return s;
    }
    if (impl.constants.contains(name)) {
      s.constant = impl.constants.at(name);
      s.type = type_of(s.constant);
      return s;
    }
    return std::nullopt;
  };
  std::shared_ptr<const Expression> compiled;
  try {
    compiled = std::make_shared<const Expression>(Expression::compile(expression, resolve));
  } catch (const ExpressionError& e) {
    std::string message = "constraint '" + expression + "': " + e.what();
    if (e.detail().starts_with("unknown name")) {
      std::vector<std::string> known;
      for (const auto& p : impl.params) known.push_back(p.name());
      for (const auto& [k, v] : impl.constants) known.push_back(k);
      message += known.empty() ? " (the space has no parameter or constant yet)"
                               : " (known: " + name_list(known) + ")";
    }
    throw ExpressionError(message, 0);
  }
  if (compiled->type() != ExprType::boolean)
    throw ExpressionError("constraint '" + expression + "' is " +
                              std::string(to_string(compiled->type())) +
                              ", not a condition (write a comparison such as 'X <= 8')",
                          0);

  detail::CompiledConstraint cc;
  cc.expression = compiled;
  cc.params = compiled->slots();
  for (const auto& name : compiled->names()) cc.bindings.emplace_back(name, impl.find_param(name));

  // The callable form, for code that runs constraints() through an Assignment.
  std::vector<std::pair<int, std::string>> slot_names;
  for (const auto& [name, p] : cc.bindings)
    if (p >= 0) slot_names.emplace_back(p, name);
  const int slot_count = slot_names.empty() ? 0 : compiled->slots().back() + 1;
  ConstraintFn callable = [compiled, slot_names, slot_count](const Assignment& a) {
    std::vector<Scalar> slots(static_cast<std::size_t>(slot_count));
    for (const auto& [slot, name] : slot_names) slots[static_cast<std::size_t>(slot)] = to_scalar(a.get(name));
    return compiled->test(slots.data());
  };
  impl_->compiled.push_back(std::move(cc));
  impl_->constraints.push_back(
      Constraint{std::move(description), compiled->names(), std::move(callable), std::move(expression)});
  impl_->invalidate();
  return *this;
}

const std::vector<Parameter>& Space::parameters() const { return impl_->params; }
const std::vector<Constraint>& Space::constraints() const { return impl_->constraints; }
const ValueMap& Space::constants() const { return impl_->constants; }

const Parameter& Space::parameter(std::string_view name) const {
  return impl_->params[parameter_index(name)];
}

std::size_t Space::parameter_index(std::string_view name) const {
  const int p = impl_->find_param(name);
  if (p < 0) throw SpaceError("unknown parameter '" + std::string(name) + "'");
  return static_cast<std::size_t>(p);
}

double Space::cartesian_size() const {
  double size = 1;
  for (const auto& p : impl_->params) size *= static_cast<double>(p.size());
  return size;
}

// ---------------------------------------------------------------- configurations

std::vector<ValueIndex> Space::indices_of(const Config& c) const {
  std::vector<ValueIndex> idx(impl_->params.size());
  for (std::size_t p = 0; p < impl_->params.size(); ++p) {
    const Parameter& param = impl_->params[p];
    if (!c.contains(param.name())) throw SpaceError("missing parameter '" + param.name() + "'");
    const Value& v = c.at(param.name());
    auto pos = param.index_of(v);
    if (!pos)
      throw SpaceError("parameter '" + param.name() + "': value '" + to_text(v) +
                       "' is not one of its values");
    idx[p] = static_cast<ValueIndex>(*pos);
  }
  for (const auto& [name, v] : c)
    if (impl_->find_param(name) < 0) throw SpaceError("unknown parameter '" + name + "'");
  return idx;
}

Config Space::config_at(std::span<const ValueIndex> indices) const {
  if (indices.size() != impl_->params.size())
    throw SpaceError("expected " + std::to_string(impl_->params.size()) + " value positions, got " +
                     std::to_string(indices.size()));
  Config c;
  for (std::size_t p = 0; p < indices.size(); ++p) {
    const Parameter& param = impl_->params[p];
    if (indices[p] >= param.size())
      throw SpaceError("parameter '" + param.name() + "': position " + std::to_string(indices[p]) +
                       " is out of range (" + std::to_string(param.size()) + " values)");
    c.set(param.name(), param.values()[indices[p]]);
  }
  return c;
}

bool Space::is_valid_indices(std::span<const ValueIndex> indices) const {
  const detail::Plan& plan = impl_->plan();
  detail::EvalState st = impl_->make_state(plan);
  for (std::size_t p = 0; p < indices.size() && p < impl_->params.size(); ++p) {
    if (indices[p] >= impl_->params[p].size()) return false;
    impl_->bind(plan, st, static_cast<int>(p), indices[p]);
  }
  if (indices.size() != impl_->params.size()) return false;
  return impl_->check_all(st);
}

bool Space::is_valid(const Config& c, std::string* why) const {
  std::vector<ValueIndex> idx;
  try {
    idx = indices_of(c);
  } catch (const SpaceError& e) {
    if (why) *why = e.what();
    return false;
  }
  const detail::Plan& plan = impl_->plan();
  detail::EvalState st = impl_->make_state(plan);
  for (std::size_t p = 0; p < idx.size(); ++p) impl_->bind(plan, st, static_cast<int>(p), idx[p]);
  int failed = -1;
  if (impl_->check_all(st, &failed)) return true;
  if (why) *why = "constraint failed: " + impl_->constraints[static_cast<std::size_t>(failed)].description;
  return false;
}

void Space::check(const Config& c) const {
  std::string why;
  if (!is_valid(c, &why)) throw SpaceError(why);
}

Config Space::snap(const Config& c) const {
  Config out;
  for (const Parameter& param : impl_->params) {
    std::size_t pos = param.default_index();
    if (c.contains(param.name())) {
      const Value& v = c.at(param.name());
      if (auto exact = param.index_of(v)) {
        pos = *exact;
      } else if (param.kind() != ParamKind::categorical && !std::holds_alternative<std::string>(v)) {
        const double x = as_number(v);
        const bool log_scale = param.kind() == ParamKind::pow2_range && x > 0;
        double best = INFINITY;
        for (std::size_t k = 0; k < param.size(); ++k) {
          const double y = as_number(param.values()[k]);
          const double d = log_scale ? std::fabs(std::log2(y) - std::log2(x)) : std::fabs(y - x);
          if (d < best) {
            best = d;
            pos = k;
          }
        }
      }
    }
    out.set(param.name(), param.values()[pos]);
  }
  return out;
}

// ---------------------------------------------------------------- encoding

int Space::encoded_size() const {
  int n = 0;
  for (const auto& p : impl_->params)
    n += p.kind() == ParamKind::categorical ? static_cast<int>(p.size()) : 1;
  return n;
}

Eigen::VectorXd Space::encode(const Config& c) const { return encode_indices(indices_of(c)); }

Eigen::VectorXd Space::encode_indices(std::span<const ValueIndex> idx) const {
  Eigen::VectorXd x = Eigen::VectorXd::Zero(encoded_size());
  Eigen::Index at = 0;
  for (std::size_t p = 0; p < impl_->params.size(); ++p) {
    const Parameter& param = impl_->params[p];
    if (param.kind() == ParamKind::categorical) {
      x[at + static_cast<Eigen::Index>(idx[p])] = 1.0;
      at += static_cast<Eigen::Index>(param.size());
    } else {
      // Position scaling: for a power-of-two range the position is log2(v/lo),
      // so this is the log2 scaling; for booleans it is 0/1.
      x[at++] = param.size() > 1 ? static_cast<double>(idx[p]) / static_cast<double>(param.size() - 1) : 0.0;
    }
  }
  return x;
}

}  // namespace ktune
