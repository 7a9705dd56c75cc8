// The lookup's predicted answers: where the nearest measured shape is far,
// the caller's predictor picks among the winners of the measured problems
// nearest the asked one (and the family's default).
#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_set>

#include "db/lookup_impl.hpp"

namespace ktune {
namespace {

using lookup_detail::Entry;
using lookup_detail::EntryFilter;

struct Near {
  double d2;
  const Entry* entry;
};

/// The GPU whose measurements teach: the asked one; among siblings, the one
/// with the most measured problems of the class (by name at a tie), whose
/// entries alone are then kept.
std::string teaching_gpu(const LookupRequest& req, const EntryFilter& filter,
                         std::vector<const Entry*>& entries) {
  if (filter.reach != LookupReach::sibling) return req.device;
  std::string measured_on = req.device;
  std::map<std::string, std::size_t> problems_on;
  for (const Entry* e : entries) ++problems_on[e->device];
  std::size_t most = 0;
  for (const auto& [device, count] : problems_on)
    if (count > most) measured_on = device, most = count;
  std::erase_if(entries, [&](const Entry* e) { return e->device != measured_on; });
  return measured_on;
}

/// At most `most` entries, nearest the query first (in the given order at
/// equal distance): a configuration measured at several problems is then
/// reported with its nearest measurement.
std::vector<Near> nearest_first(const std::vector<const Entry*>& entries,
                                const std::vector<double>& q, std::size_t most) {
  std::vector<Near> near;
  for (const Entry* e : entries)
    near.push_back({lookup_detail::squared_distance(q, e->log_shape), e});
  std::stable_sort(near.begin(), near.end(),
                   [](const Near& a, const Near& b) { return a.d2 < b.d2; });
  if (near.size() > most) near.resize(most);
  return near;
}

}  // namespace

std::shared_ptr<const LookupAnswer> Lookup::Impl::predict(const Ask& ask, const EntryFilter& filter,
                                                          const std::string& shape_class,
                                                          const std::vector<std::string>& keys,
                                                          const std::vector<double>& q) const {
  const LookupRequest& req = ask.req;
  const std::string group_key = lookup_detail::class_arch_key(shape_class, ask.arch);
  std::vector<const Entry*> entries;  // of the class that the filter accepts, all layers
  for (const Layer& layer : layers) {
    const FamilyIndex* fi = family_of(layer, ask);
    if (!fi) continue;
    auto git = fi->by_class_arch.find(group_key);
    if (git == fi->by_class_arch.end()) continue;
    for (const Entry* e : git->second.list)
      if (filter.accepts(*e) && e->shape_keys == keys && e->log_shape.size() == q.size())
        entries.push_back(e);
  }
  PredictionQuery query;
  query.request = &req;
  query.arch = ask.arch;
  query.family_hash = ask.hash;
  query.shape_class = shape_class;
  query.measured_on = teaching_gpu(req, filter, entries);
  if (req.device_spec)
    query.device = req.device_spec;
  else if (auto b = find_builtin_device(req.device); b && b->name == req.device)
    query.device = b;
  const std::vector<Near> near = nearest_first(entries, q, rule.problems);
  // The candidates: up to winners_per_problem usable ones of each problem,
  // each configuration once; measured[i] is candidates[i]'s measurement.
  std::vector<const LookupAnswer*> measured;
  std::unordered_set<std::string> seen;
  for (const Near& n : near) {
    std::size_t taken = 0;
    for (const auto& c : n.entry->candidates[lookup_detail::index_of(Objective::time)]) {
      if (taken == rule.winners_per_problem) break;
      if (!usable(*c, *n.entry, ask)) continue;
      ++taken;
      if (!seen.insert(c->config_key).second) continue;
      query.candidates.push_back(c->config);
      measured.push_back(c.get());
    }
  }
  if (query.candidates.empty()) return nullptr;
  // The family's general configuration competes too (it fits every problem).
  if (req.default_config && !seen.count(req.default_config->key()) &&
      (!req.fits || req.fits(*req.default_config))) {
    query.candidates.push_back(*req.default_config);
    measured.push_back(nullptr);
  }
  const std::optional<PredictedChoice> choice = predictor->choose(query);
  if (!choice || choice->index >= query.candidates.size()) return nullptr;
  std::shared_ptr<LookupAnswer> a;
  if (const LookupAnswer* m = measured[choice->index]) {
    a = std::make_shared<LookupAnswer>(*m);
  } else {
    a = std::make_shared<LookupAnswer>();
    a->config = query.candidates[choice->index];
    a->config_key = a->config.key();
    a->family_hash = ask.hash;
  }
  a->source = LookupSource::predicted;
  a->reach = filter.reach;
  a->distance = std::sqrt(near.front().d2);
  a->predicted_s = choice->predicted_s;
  a->learned_from = choice->learned_from;
  a->learned_on = choice->learned_on;
  return a;
}

}  // namespace ktune
