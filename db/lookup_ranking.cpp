// Which of two measured answers the lookup prefers (see lookup_ranking.hpp).
#include "db/lookup_ranking.hpp"

#include <nlohmann/json.hpp>

#include "db/result_order.hpp"

namespace ktune::lookup_detail {
namespace {

/// metrics.timing.noisy, as kNoisySql reads it.
bool marked_noisy(const nlohmann::json& metrics) {
  const auto timing = metrics.find("timing");
  if (timing == metrics.end() || !timing->is_object()) return false;
  const auto noisy = timing->find("noisy");
  if (noisy == timing->end()) return false;
  return noisy->is_boolean() ? noisy->get<bool>() : noisy->is_number() && noisy->get<double>() == 1;
}

ResultRank rank_of(const LookupAnswer& a) {
  return {a.result.time.median_s, a.result.time.min_s, a.result.time.spread, a.config_key,
          marked_noisy(a.result.metrics)};
}

}  // namespace

bool answers_before(const LookupAnswer& a, const LookupAnswer& b, Objective o) {
  if (o != Objective::time) {
    const double va = objective_value(a.result, o).value_or(0);
    const double vb = objective_value(b.result, o).value_or(0);
    if (va != vb) return va < vb;
  }
  return ranks_before(rank_of(a), rank_of(b));
}

bool proven_deterministic(const Result& r) {
  const auto v = r.metrics.find("verification");
  if (v == r.metrics.end() || !v->is_object()) return false;
  const auto d = v->find("deterministic");
  return d != v->end() && d->is_boolean() && d->get<bool>();
}

}  // namespace ktune::lookup_detail
