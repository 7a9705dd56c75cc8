// Space enumeration: depth-first search over each independent group in its
// pruning order, parallel over search prefixes with oneTBB, and the product of
// the groups' valid rows.
#include <algorithm>
#include <cstring>
#include <limits>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include "space/space_impl.hpp"

namespace ktune {
namespace {

using detail::EvalState;
using detail::Group;
using detail::GroupTable;
using detail::Plan;

/// Binds the group's levels from `level` on, checking each constraint as soon
/// as its last parameter is bound. `visit(state)` runs for every complete valid
/// assignment of the group; returning false stops the search (returns false).
template <class Visit>
bool search(const Space::Impl& impl, const Plan& plan, const Group& g, std::size_t level,
            EvalState& st, Visit& visit) {
  const int p = g.order[level];
  const auto n = static_cast<ValueIndex>(impl.params[static_cast<std::size_t>(p)].size());
  const std::vector<int>& checks = g.checks[level];
  const bool last = level + 1 == g.order.size();
  for (ValueIndex v = 0; v < n; ++v) {
    impl.bind(plan, st, p, v);
    bool ok = true;
    for (int c : checks)
      if (!impl.check(c, st)) {
        ok = false;
        break;
      }
    if (!ok) continue;
    if (last) {
      if (!visit(st)) return false;
    } else if (!search(impl, plan, g, level + 1, st, visit)) {
      return false;
    }
  }
  return true;
}

/// Valid partial assignments of the first `depth` levels, enough of them to
/// keep every core busy; the rest of the search runs per prefix.
struct Prefixes {
  std::size_t depth = 0;
  std::vector<std::vector<ValueIndex>> values;  // per prefix, the positions of levels [0, depth)
};

constexpr std::size_t kPrefixTarget = 256;

Prefixes make_prefixes(const Space::Impl& impl, const Plan& plan, const Group& g) {
  Prefixes out;
  out.values.emplace_back();
  EvalState st = impl.make_state(plan);
  while (out.values.size() < kPrefixTarget && out.depth + 1 < g.order.size()) {
    std::vector<std::vector<ValueIndex>> next;
    const int p = g.order[out.depth];
    const auto n = static_cast<ValueIndex>(impl.params[static_cast<std::size_t>(p)].size());
    for (const auto& prefix : out.values) {
      for (std::size_t l = 0; l < prefix.size(); ++l) impl.bind(plan, st, g.order[l], prefix[l]);
      for (ValueIndex v = 0; v < n; ++v) {
        impl.bind(plan, st, p, v);
        bool ok = true;
        for (int c : g.checks[out.depth])
          if (!impl.check(c, st)) {
            ok = false;
            break;
          }
        if (!ok) continue;
        next.push_back(prefix);
        next.back().push_back(v);
      }
    }
    out.values = std::move(next);
    ++out.depth;
    if (out.values.empty()) break;
  }
  return out;
}

/// Runs `make_visitor()`-made visitors over every prefix in parallel; each
/// prefix's results land in slot k of the returned vector, so the combined
/// output keeps the serial order.
template <class Result, class MakeVisit>
std::vector<Result> search_parallel(const Space::Impl& impl, const Plan& plan, const Group& g,
                                    MakeVisit make_visit) {
  const Prefixes prefixes = make_prefixes(impl, plan, g);
  std::vector<Result> results(prefixes.values.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, prefixes.values.size(), 1),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      EvalState st = impl.make_state(plan);
                      for (std::size_t k = range.begin(); k != range.end(); ++k) {
                        const auto& prefix = prefixes.values[k];
                        for (std::size_t l = 0; l < prefix.size(); ++l)
                          impl.bind(plan, st, g.order[l], prefix[l]);
                        auto visit = make_visit(results[k]);
                        if (prefixes.depth < g.order.size())
                          search(impl, plan, g, prefixes.depth, st, visit);
                        else
                          visit(st);
                      }
                    });
  return results;
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a)
    return std::numeric_limits<std::uint64_t>::max();
  return a * b;
}

}  // namespace

GroupTable Space::Impl::build_table(const Plan& plan, const Group& g, bool parallel) const {
  GroupTable t;
  t.width = g.order.size();
  auto make_visit = [&g](std::vector<ValueIndex>& rows) {
    return [&rows, &g](const EvalState& st) {
      for (int p : g.order) rows.push_back(st.idx[static_cast<std::size_t>(p)]);
      return true;
    };
  };
  if (parallel) {
    auto parts = search_parallel<std::vector<ValueIndex>>(*this, plan, g, make_visit);
    std::size_t total = 0;
    for (const auto& part : parts) total += part.size();
    t.rows.reserve(total);
    for (const auto& part : parts) t.rows.insert(t.rows.end(), part.begin(), part.end());
  } else {
    EvalState st = make_state(plan);
    auto visit = make_visit(t.rows);
    search(*this, plan, g, 0, st, visit);
  }
  t.count = t.width ? t.rows.size() / t.width : 1;
  return t;
}

std::uint64_t Space::Impl::count_group(const Plan& plan, const Group& g, bool parallel) const {
  auto make_visit = [](std::uint64_t& count) {
    return [&count](const EvalState&) {
      ++count;
      return true;
    };
  };
  if (parallel) {
    std::uint64_t total = 0;
    for (std::uint64_t part : search_parallel<std::uint64_t>(*this, plan, g, make_visit)) total += part;
    return total;
  }
  std::uint64_t count = 0;
  EvalState st = make_state(plan);
  auto visit = make_visit(count);
  search(*this, plan, g, 0, st, visit);
  return count;
}

bool Space::Impl::group_has_valid(const Plan& plan, const Group& g) const {
  EvalState st = make_state(plan);
  bool found = false;
  auto visit = [&found](const EvalState&) {
    found = true;
    return false;
  };
  search(*this, plan, g, 0, st, visit);
  return found;
}

std::shared_ptr<const GroupTable> Space::Impl::table(const Plan& plan, std::size_t g) const {
  {
    std::lock_guard lock(plan.table_mutex);
    if (plan.tables[g]) return plan.tables[g];
  }
  // Built without the lock: TBB may run other work on this thread meanwhile.
  auto built = std::make_shared<const GroupTable>(build_table(plan, plan.groups[g], true));
  std::lock_guard lock(plan.table_mutex);
  if (!plan.tables[g]) plan.tables[g] = std::move(built);
  return plan.tables[g];
}

std::uint64_t Space::count_valid() const {
  auto plan = impl_->plan_ptr();
  if (!plan->constants_ok()) return 0;
  std::uint64_t total = 1;
  for (std::size_t g = 0; g < plan->groups.size() && total != 0; ++g) {
    std::shared_ptr<const GroupTable> cached;
    {
      std::lock_guard lock(plan->table_mutex);
      cached = plan->tables[g];
    }
    const std::uint64_t n = cached ? cached->count : impl_->count_group(*plan, plan->groups[g], true);
    total = saturating_mul(total, n);
  }
  return total;
}

void Space::for_each_valid(const std::function<void(std::span<const ValueIndex>)>& visit) const {
  auto plan = impl_->plan_ptr();
  if (!plan->constants_ok()) return;
  const std::size_t n_groups = plan->groups.size();
  if (n_groups == 0) {
    visit({});
    return;
  }
  if (n_groups == 1) {  // stream straight from the search: nothing stored
    detail::EvalState st = impl_->make_state(*plan);
    auto v = [&visit](const detail::EvalState& s) {
      visit(std::span<const ValueIndex>(s.idx));
      return true;
    };
    search(*impl_, *plan, plan->groups[0], 0, st, v);
    return;
  }
  std::vector<std::shared_ptr<const GroupTable>> tables;
  for (std::size_t g = 0; g < n_groups; ++g) {
    tables.push_back(impl_->table(*plan, g));
    if (tables.back()->count == 0) return;
  }
  std::vector<ValueIndex> idx(impl_->params.size(), 0);
  std::vector<std::size_t> row(n_groups, 0);
  auto place = [&](std::size_t g) {
    const auto& t = *tables[g];
    const auto& order = plan->groups[g].order;
    const ValueIndex* r = t.rows.data() + row[g] * t.width;
    for (std::size_t l = 0; l < order.size(); ++l) idx[static_cast<std::size_t>(order[l])] = r[l];
  };
  for (std::size_t g = 0; g < n_groups; ++g) place(g);
  while (true) {
    visit(std::span<const ValueIndex>(idx));
    std::size_t g = n_groups;
    while (g > 0) {  // the last group runs fastest
      --g;
      if (++row[g] < tables[g]->count) {
        place(g);
        break;
      }
      row[g] = 0;
      place(g);
      if (g == 0) return;
    }
  }
}

PositionListing Space::list_positions() const {
  auto plan = impl_->plan_ptr();
  const std::size_t width = impl_->params.size();
  if (!plan->constants_ok()) return PositionListing(width, 0, {});
  if (width == 0) return PositionListing(0, 1, {});
  const std::size_t n_groups = plan->groups.size();
  std::vector<std::shared_ptr<const GroupTable>> tables;
  double total_d = 1;
  for (std::size_t g = 0; g < n_groups; ++g) {
    tables.push_back(impl_->table(*plan, g));
    total_d *= static_cast<double>(tables.back()->count);
  }
  constexpr double kLimit = 2e8;
  if (total_d > kLimit)
    throw SpaceError("the space has " + std::to_string(static_cast<unsigned long long>(total_d)) +
                     " valid configurations, too many to materialise (use for_each_valid, "
                     "count_valid or sample)");
  const auto total = static_cast<std::size_t>(total_d);
  if (total == 0) return PositionListing(width, 0, {});

  // Rows in declaration order: row r is the mixed-radix number r over the
  // groups' tables (last group fastest).
  std::vector<ValueIndex> rows(total * width);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, total, 4096),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      for (std::size_t r = range.begin(); r != range.end(); ++r) {
                        std::size_t rest = r;
                        ValueIndex* out = rows.data() + r * width;
                        for (std::size_t g = n_groups; g-- > 0;) {
                          const auto& t = *tables[g];
                          const std::size_t k = rest % t.count;
                          rest /= t.count;
                          const auto& order = plan->groups[g].order;
                          for (std::size_t l = 0; l < order.size(); ++l)
                            out[order[l]] = t.rows[k * t.width + l];
                        }
                      }
                    });
  // Lexicographic order over the positions of the parameters in declaration order.
  std::vector<std::uint32_t> order(total);
  for (std::size_t r = 0; r < total; ++r) order[r] = static_cast<std::uint32_t>(r);
  auto less = [&](std::uint32_t a, std::uint32_t b) {
    const ValueIndex* x = rows.data() + std::size_t{a} * width;
    const ValueIndex* y = rows.data() + std::size_t{b} * width;
    return std::lexicographical_compare(x, x + width, y, y + width);
  };
  bool sorted = true;
  for (std::size_t r = 1; r < total && sorted; ++r) sorted = !less(order[r], order[r - 1]);
  if (sorted) return PositionListing(width, total, std::move(rows));
  tbb::parallel_sort(order.begin(), order.end(), less);
  std::vector<ValueIndex> sorted_rows(total * width);
  for (std::size_t k = 0; k < total; ++k)
    std::copy_n(rows.data() + std::size_t{order[k]} * width, width, sorted_rows.data() + k * width);
  return PositionListing(width, total, std::move(sorted_rows));
}

std::vector<Config> Space::enumerate() const {
  const PositionListing listing = list_positions();
  std::vector<Config> out(listing.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, listing.size(), 1024),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      for (std::size_t k = range.begin(); k != range.end(); ++k)
                        out[k] = config_at(listing.row(k));
                    });
  return out;
}

}  // namespace ktune
