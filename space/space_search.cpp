// Space queries a searcher makes: uniform sampling, neighbours, repair,
// defaults, and the emptiness check that names contradictory constraints.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <unordered_set>

#include "space/name_list.hpp"
#include "space/space_impl.hpp"

namespace ktune {
namespace {

using detail::EvalState;
using detail::Group;
using detail::GroupTable;
using detail::Plan;

/// Seeded generator with an unbiased bounded draw (Lemire's multiply-shift),
/// so a seed gives the same samples with every standard library.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  std::uint64_t below(std::uint64_t n) {
    std::uint64_t x = engine_();
    unsigned __int128 m = static_cast<unsigned __int128>(x) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        x = engine_();
        m = static_cast<unsigned __int128>(x) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

 private:
  std::mt19937_64 engine_;
};

struct IndexHash {
  std::size_t operator()(const std::vector<ValueIndex>& v) const noexcept {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (ValueIndex x : v) h = (h ^ x) * 0x100000001b3ULL;
    return static_cast<std::size_t>(h);
  }
};

// A group whose Cartesian product is this small is enumerated once and drawn
// from exactly; larger ones are rejection-sampled.
constexpr double kTableCartesian = 65536;
// Rejection sampling gives up on a group accepting fewer than 1 in 1000 draws
// (after this many) and enumerates it instead, when it is no larger than
// kFallbackCartesian.
constexpr std::uint64_t kAcceptanceProbe = 20000;
constexpr double kFallbackCartesian = 1e8;
constexpr std::uint64_t kRejectionBudget = 50'000'000;

std::string quoted_list(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + ("'" + s + "'");
  return out;
}

}  // namespace

std::vector<Config> Space::sample(std::size_t n, std::uint64_t seed) const {
  auto plan_ptr = impl_->plan_ptr();
  const Plan& plan = *plan_ptr;
  const Impl& impl = *impl_;
  if (n == 0 || !plan.constants_ok()) return {};
  if (impl.params.empty()) return {Config{}};

  const std::size_t n_groups = plan.groups.size();
  std::vector<std::shared_ptr<const GroupTable>> tables(n_groups);
  bool all_tabled = true;
  double total = 1;
  for (std::size_t g = 0; g < n_groups; ++g) {
    if (plan.groups[g].cartesian <= kTableCartesian) {
      tables[g] = impl.table(plan, g);
      if (tables[g]->count == 0) return {};
      total *= static_cast<double>(tables[g]->count);
    } else {
      all_tabled = false;
    }
  }
  EvalState st = impl.make_state(plan);
  auto place_row = [&](std::size_t g, std::size_t k) {
    const GroupTable& t = *tables[g];
    const auto& order = plan.groups[g].order;
    for (std::size_t l = 0; l < order.size(); ++l) impl.bind(plan, st, order[l], t.rows[k * t.width + l]);
  };
  Rng rng(seed);

  // Small valid set: a seeded shuffle of all of it, cut at n.
  if (all_tabled && total <= 4.0 * static_cast<double>(n) && total <= 1e7) {
    const auto count = static_cast<std::size_t>(total);
    std::vector<std::size_t> pick(count);
    for (std::size_t k = 0; k < count; ++k) pick[k] = k;
    const std::size_t take = std::min(n, count);
    for (std::size_t k = 0; k < take; ++k) std::swap(pick[k], pick[k + rng.below(count - k)]);
    std::vector<Config> out;
    out.reserve(take);
    for (std::size_t k = 0; k < take; ++k) {
      std::size_t rest = pick[k];
      for (std::size_t g = n_groups; g-- > 0;) {
        place_row(g, rest % tables[g]->count);
        rest /= tables[g]->count;
      }
      out.push_back(config_at(st.idx));
    }
    return out;
  }

  // Independent uniform draws per group give a uniform valid configuration;
  // dropping repeats gives a uniform sample without replacement.
  std::vector<std::uint64_t> attempts(n_groups, 0), accepted(n_groups, 0);
  std::uint64_t rejection_total = 0;
  auto draw_group = [&](std::size_t g) -> bool {
    const Group& group = plan.groups[g];
    while (true) {
      if (tables[g]) {
        place_row(g, rng.below(tables[g]->count));
        return true;
      }
      for (int p : group.order)
        impl.bind(plan, st, p,
                  static_cast<ValueIndex>(rng.below(impl.params[static_cast<std::size_t>(p)].size())));
      ++attempts[g];
      ++rejection_total;
      bool ok = true;
      for (int c : group.constraints)
        if (!impl.check(c, st)) {
          ok = false;
          break;
        }
      if (ok) {
        ++accepted[g];
        return true;
      }
      if (attempts[g] >= kAcceptanceProbe && accepted[g] * 1000 < attempts[g] &&
          group.cartesian <= kFallbackCartesian) {
        tables[g] = impl.table(plan, g);
        if (tables[g]->count == 0) return false;
        continue;
      }
      if (rejection_total > kRejectionBudget) return false;
    }
  };

  std::vector<Config> out;
  out.reserve(n);
  std::unordered_set<std::vector<ValueIndex>, IndexHash> seen;
  // Repeats mean the valid set is nearly exhausted; stop after this many draws.
  const std::size_t max_draws = 50 * n + 10000;
  for (std::size_t draw = 0; draw < max_draws && out.size() < n; ++draw) {
    bool ok = true;
    for (std::size_t g = 0; g < n_groups && ok; ++g) ok = draw_group(g);
    if (!ok) break;
    if (seen.insert(st.idx).second) out.push_back(config_at(st.idx));
  }
  return out;
}

std::vector<Config> Space::neighbours(const Config& c) const {
  const std::vector<ValueIndex> idx = indices_of(c);
  auto plan_ptr = impl_->plan_ptr();
  const Plan& plan = *plan_ptr;
  EvalState st = impl_->make_state(plan);
  for (std::size_t p = 0; p < idx.size(); ++p) impl_->bind(plan, st, static_cast<int>(p), idx[p]);
  const bool base_valid = plan.constants_ok() && impl_->check_all(st);
  std::vector<Config> out;
  for (std::size_t p = 0; p < idx.size(); ++p) {
    const Parameter& param = impl_->params[p];
    std::vector<ValueIndex> moves;
    if (param.ordinal()) {
      if (idx[p] > 0) moves.push_back(idx[p] - 1);
      if (idx[p] + 1 < param.size()) moves.push_back(idx[p] + 1);
    } else {
      for (ValueIndex v = 0; v < param.size(); ++v)
        if (v != idx[p]) moves.push_back(v);
    }
    for (ValueIndex v : moves) {
      impl_->bind(plan, st, static_cast<int>(p), v);
      // From a valid point only the constraints reading p can change.
      const bool valid = base_valid ? impl_->check_touching(static_cast<int>(p), st)
                                    : plan.constants_ok() && impl_->check_all(st);
      if (valid) out.push_back(config_at(st.idx));
    }
    impl_->bind(plan, st, static_cast<int>(p), idx[p]);
  }
  return out;
}

std::optional<Config> Space::repair(const Config& c) const {
  auto plan_ptr = impl_->plan_ptr();
  const Plan& plan = *plan_ptr;
  const Impl& impl = *impl_;
  if (!plan.constants_ok()) return std::nullopt;
  const Config snapped = snap(c);
  const std::vector<ValueIndex> start = indices_of(snapped);
  const std::size_t n = start.size();
  EvalState st = impl.make_state(plan);
  for (std::size_t p = 0; p < n; ++p) impl.bind(plan, st, static_cast<int>(p), start[p]);
  if (impl.check_all(st)) return snapped;

  // A fix must change at least one parameter of every failing constraint.
  std::vector<int> failing;
  for (std::size_t k = 0; k < impl.compiled.size(); ++k)
    if (!impl.check(static_cast<int>(k), st)) failing.push_back(static_cast<int>(k));

  auto move_cost = [&](std::size_t p, ValueIndex v) -> std::uint64_t {
    if (!impl.params[p].ordinal()) return 1;
    return v > start[p] ? v - start[p] : start[p] - v;
  };

  // Try k = 1, 2, 3 changed parameters; among valid candidates with the
  // fewest changes keep the smallest total move (first found on ties).
  constexpr std::uint64_t kBudget = 400'000;
  std::uint64_t evaluations = 0;
  bool over_budget = false;
  for (std::size_t k = 1; k <= std::min<std::size_t>(3, n) && !over_budget; ++k) {
    std::vector<std::size_t> set(k);
    for (std::size_t i = 0; i < k; ++i) set[i] = i;
    std::uint64_t best_cost = std::numeric_limits<std::uint64_t>::max();
    std::vector<ValueIndex> best;
    while (true) {
      bool hits_all = true;
      for (int f : failing) {
        const auto& ps = impl.compiled[static_cast<std::size_t>(f)].params;
        bool hit = false;
        for (std::size_t p : set)
          if (std::binary_search(ps.begin(), ps.end(), static_cast<int>(p))) hit = true;
        if (!hit) {
          hits_all = false;
          break;
        }
      }
      if (hits_all) {
        // Odometer over the other values of each parameter in the set.
        std::vector<ValueIndex> choice(k, 0);
        auto value_of = [&](std::size_t i) {  // skip the current value
          return choice[i] >= start[set[i]] ? choice[i] + 1 : choice[i];
        };
        bool feasible = true;
        for (std::size_t i = 0; i < k; ++i)
          if (impl.params[set[i]].size() < 2) feasible = false;
        while (feasible) {
          std::uint64_t cost = 0;
          for (std::size_t i = 0; i < k; ++i) cost += move_cost(set[i], value_of(i));
          if (cost < best_cost) {
            for (std::size_t i = 0; i < k; ++i) impl.bind(plan, st, static_cast<int>(set[i]), value_of(i));
            ++evaluations;
            if (impl.check_all(st)) {
              best_cost = cost;
              best = st.idx;
            }
            for (std::size_t i = 0; i < k; ++i) impl.bind(plan, st, static_cast<int>(set[i]), start[set[i]]);
          }
          std::size_t i = k;
          while (i > 0) {
            --i;
            if (++choice[i] < impl.params[set[i]].size() - 1) break;
            choice[i] = 0;
            if (i == 0) feasible = false;
          }
          if (evaluations > kBudget) {
            over_budget = true;
            break;
          }
        }
      }
      if (over_budget) break;
      // Next k-subset of parameters, in declaration order.
      std::size_t i = k;
      while (i > 0 && set[i - 1] == n - k + i - 1) --i;
      if (i == 0) break;
      ++set[i - 1];
      for (std::size_t j = i; j < k; ++j) set[j] = set[j - 1] + 1;
    }
    if (!best.empty()) return config_at(best);
  }

  // Far from every valid point (or too costly to search near it): take the
  // closest of a seeded sample.
  const std::vector<Config> pool = sample(2048, snapped.hash());
  if (pool.empty()) return std::nullopt;
  std::size_t best = 0;
  std::pair<std::size_t, std::uint64_t> best_score{std::numeric_limits<std::size_t>::max(), 0};
  for (std::size_t k = 0; k < pool.size(); ++k) {
    const std::vector<ValueIndex> idx = indices_of(pool[k]);
    std::pair<std::size_t, std::uint64_t> score{0, 0};
    for (std::size_t p = 0; p < n; ++p)
      if (idx[p] != start[p]) {
        ++score.first;
        score.second += move_cost(p, idx[p]);
      }
    if (score < best_score) {
      best_score = score;
      best = k;
    }
  }
  return pool[best];
}

Config Space::default_config() const {
  Config defaults;
  for (const auto& p : impl_->params) defaults.set(p.name(), p.default_value());
  if (is_valid(defaults)) return defaults;
  if (auto repaired = repair(defaults)) return *repaired;
  require_nonempty();  // throws with the reason
  throw SpaceError("no valid configuration near the defaults");
}

void Space::require_nonempty() const {
  const Impl& impl = *impl_;
  if (impl.params.empty()) throw SpaceError("the space has no parameter");
  auto plan_ptr = impl.plan_ptr();
  const Plan& plan = *plan_ptr;
  if (!plan.constants_ok()) {
    std::vector<std::string> descriptions;
    std::string values;
    for (int c : plan.failed_constant_constraints) {
      descriptions.push_back(impl.constraints[static_cast<std::size_t>(c)].description);
      for (const auto& [name, p] : impl.compiled[static_cast<std::size_t>(c)].bindings)
        if (p < 0 && values.find(name + "=") == std::string::npos)
          values += (values.empty() ? "" : ", ") + name + "=" + to_text(impl.constants.at(name));
    }
    throw SpaceError("contradictory constraints: " + quoted_list(descriptions, ", ") +
                     " cannot hold for the constants" + (values.empty() ? "" : " (" + values + ")"));
  }
  for (const Group& g : plan.groups) {
    if (impl.group_has_valid(plan, g)) continue;
    // Deletion filter: drop every constraint the contradiction does not need,
    // so the message names a minimal set.
    std::vector<int> needed = g.constraints;
    for (std::size_t k = 0; k < needed.size();) {
      std::vector<int> trial = needed;
      trial.erase(trial.begin() + static_cast<long>(k));
      std::vector<int> trial_params;
      for (int c : trial)
        for (int p : impl.compiled[static_cast<std::size_t>(c)].params)
          if (std::find(trial_params.begin(), trial_params.end(), p) == trial_params.end())
            trial_params.push_back(p);
      if (!trial_params.empty() && !impl.group_has_valid(plan, impl.make_group(trial_params, trial)))
        needed = std::move(trial);
      else
        ++k;
    }
    std::vector<std::string> descriptions, names;
    for (int c : needed) {
      descriptions.push_back(impl.constraints[static_cast<std::size_t>(c)].description);
      for (int p : impl.compiled[static_cast<std::size_t>(c)].params) {
        const std::string& name = impl.params[static_cast<std::size_t>(p)].name();
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      }
    }
    throw SpaceError("contradictory constraints: no values of " + name_list(names) + " satisfy " +
                     quoted_list(descriptions, " and ") + " together");
  }
}

}  // namespace ktune
