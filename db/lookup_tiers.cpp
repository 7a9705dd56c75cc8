// The lookup's measured tiers: the asked problem as measured (exact), the
// nearest measured shape of its class (nearest, or predicted from there), and
// the asked problem on the closest other arch (arch_fallback).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "db/lookup_impl.hpp"

namespace ktune {
namespace lookup_detail {

std::shared_ptr<const LookupAnswer> found_as(const LookupAnswer& measured, LookupSource source,
                                             LookupReach reach, double distance) {
  auto a = std::make_shared<LookupAnswer>(measured);
  a->source = source;
  a->reach = reach;
  a->distance = distance;
  return a;
}

namespace {

/// Calls consider(entry) for the entries of a class group (sorted by their
/// first coordinate, those without a shape at the end) from the query's
/// first coordinate `q0` outwards, stopping on each side once that
/// coordinate alone is farther than `best_d2` (which consider may lower).
template <class Consider>
void walk_outwards(const std::vector<const Entry*>& list, double q0, const double& best_d2,
                   Consider&& consider) {
  auto with_shape_end = std::partition_point(list.begin(), list.end(),
                                             [](const Entry* e) { return !e->log_shape.empty(); });
  auto mid = std::lower_bound(list.begin(), with_shape_end, q0,
                              [](const Entry* e, double x) { return e->log_shape[0] < x; });
  auto up = mid;
  auto down = mid;
  while (up != with_shape_end || down != list.begin()) {
    bool went = false;
    if (up != with_shape_end) {
      double dx = (*up)->log_shape[0] - q0;
      if (dx * dx <= best_d2) {
        consider(*up);
        ++up;
        went = true;
      } else {
        up = with_shape_end;
      }
    }
    if (down != list.begin()) {
      double dx = q0 - (*(down - 1))->log_shape[0];
      if (dx * dx <= best_d2) {
        --down;
        consider(*down);
        went = true;
      } else {
        down = list.begin();
      }
    }
    if (!went) break;
  }
}

}  // namespace
}  // namespace lookup_detail

using lookup_detail::found_as;

std::shared_ptr<const LookupAnswer> Lookup::Impl::exact(const Ask& ask,
                                                        const EntryFilter& filter) const {
  // The asked GPU's own entries are its by name; others' must share its arch.
  const bool by_name = filter.reach == LookupReach::own && filter.device != -1;
  if (!by_name && ask.arch.empty()) return nullptr;
  return first_layer_answer(ask, [&](const FamilyIndex& fi) -> std::shared_ptr<const LookupAnswer> {
    const LookupAnswer* best = nullptr;
    for (const Entry* e : fi.measured(ask.problem_key)) {
      if ((!by_name && e->arch != ask.arch) || !filter.accepts(*e)) continue;
      const LookupAnswer* c = first_usable(*e, ask);
      if (c && (!best || lookup_detail::answers_before(*c, *best, ask.req.objective))) best = c;
    }
    return best ? found_as(*best, LookupSource::exact, filter.reach, 0) : nullptr;
  });
}

std::shared_ptr<const LookupAnswer> Lookup::Impl::nearest(const Ask& ask,
                                                          const EntryFilter& filter) const {
  if (ask.arch.empty()) return nullptr;
  const LookupRequest& req = ask.req;
  return first_layer_answer(ask, [&](const FamilyIndex& fi) -> std::shared_ptr<const LookupAnswer> {
    const auto& keys = !req.shape_keys.empty() ? req.shape_keys : fi.shape_keys;
    if (keys.empty()) return nullptr;
    std::string shape_class =
        !req.shape_class.empty() ? req.shape_class : derived_shape_class(req.problem, keys);
    auto it = fi.by_class_arch.find(lookup_detail::class_arch_key(shape_class, ask.arch));
    if (it == fi.by_class_arch.end()) return nullptr;
    std::vector<double> q = lookup_detail::log_shape_of(req.problem, keys);
    if (q.empty()) return nullptr;
    const bool check_keys = !(it->second.uniform && it->second.shape_keys == keys);
    double best_d2 = std::numeric_limits<double>::infinity();
    const LookupAnswer* best = nullptr;
    lookup_detail::walk_outwards(it->second.list, q[0], best_d2, [&](const Entry* e) {
      if (!filter.accepts(*e)) return;
      if (check_keys && (e->shape_keys != keys || e->log_shape.size() != q.size())) return;
      const double d2 = lookup_detail::squared_distance(q, e->log_shape);
      if (d2 > best_d2) return;
      const LookupAnswer* c = first_usable(*e, ask);
      if (!c) return;
      if (d2 < best_d2 || lookup_detail::answers_before(*c, *best, req.objective)) {
        best_d2 = d2;
        best = c;
      }
    });
    if (!best) return nullptr;
    const double distance = std::sqrt(best_d2);
    // The predictor models time: energy and edp keep the nearest rule.
    if (predictor && req.objective == Objective::time && distance >= rule.min_distance)
      if (auto p = predict(ask, filter, shape_class, keys, q)) return p;
    return found_as(*best, LookupSource::nearest, filter.reach, distance);
  });
}

std::shared_ptr<const LookupAnswer> Lookup::Impl::other_arch(const Ask& ask) const {
  if (ask.arch.empty()) return nullptr;
  const int want = lookup_detail::arch_number(ask.arch);
  return first_layer_answer(ask, [&](const FamilyIndex& fi) -> std::shared_ptr<const LookupAnswer> {
    const LookupAnswer* best = nullptr;
    int best_gap = std::numeric_limits<int>::max();
    for (const Entry* e : fi.measured(ask.problem_key)) {
      if (e->arch == ask.arch) continue;
      const int gap = std::abs(e->arch_num - want);
      const LookupAnswer* c = first_usable(*e, ask);
      if (!c) continue;
      // closest arch first; at equal gap the older one (its code runs on newer GPUs)
      const int best_arch = best ? lookup_detail::arch_number(best->measured_arch) : 0;
      const bool better = !best || gap < best_gap || (gap == best_gap && e->arch_num < best_arch) ||
                          (gap == best_gap && e->arch_num == best_arch &&
                           lookup_detail::answers_before(*c, *best, ask.req.objective));
      if (better) {
        best = c;
        best_gap = gap;
      }
    }
    return best ? found_as(*best, LookupSource::arch_fallback, LookupReach::other_arch, 0)
                : nullptr;
  });
}

}  // namespace ktune
