// The lookup's chain: a request resolved once (arch, template version, asked
// GPU), then its tiers in the chain's order until one answers.
#include "db/lookup_impl.hpp"

namespace ktune {

std::shared_ptr<const LookupAnswer> Lookup::Impl::compute(const LookupRequest& req) const {
  const Ask ask = resolve(req);
  if (ask.hash.empty()) return nullptr;
  for (LookupTier tier : chain)
    if (auto a = answer_at(tier, ask)) return a;
  return nullptr;
}

Lookup::Impl::Ask Lookup::Impl::resolve(const LookupRequest& req) const {
  std::string arch = req.arch;
  if (arch.empty() && !req.device.empty()) arch = arch_of(req.device);
  Ask ask{req, arch, "", req.problem.key()};
  ask.hash = req.family_hash.empty() ? current_hash_without_request(req, arch) : req.family_hash;
  if (auto it = device_index.find(req.device); it != device_index.end()) ask.device = it->second;
  return ask;
}

std::shared_ptr<const LookupAnswer> Lookup::Impl::answer_at(LookupTier tier, const Ask& ask) const {
  const LookupRequest& req = ask.req;
  const bool arch_only = req.device.empty();
  const EntryFilter own{LookupReach::own, arch_only ? -1 : ask.device};
  const EntryFilter sibling{LookupReach::sibling, ask.device};
  // Siblings are GPUs other than the asked one: an arch alone has none.
  const bool siblings = !arch_only && !req.own_device_only;
  switch (tier) {
    case LookupTier::own_exact:
      return exact(ask, own);
    case LookupTier::own_nearest:
      return nearest(ask, own);
    case LookupTier::sibling_exact:
      return siblings ? exact(ask, sibling) : nullptr;
    case LookupTier::sibling_nearest:
      return siblings ? nearest(ask, sibling) : nullptr;
    case LookupTier::other_arch_exact:
      return req.own_device_only ? nullptr : other_arch(ask);
  }
  return nullptr;
}

std::string Lookup::Impl::current_hash_without_request(const LookupRequest& req,
                                                       const std::string& arch) const {
  // The newest hash among results of the request's shape class (one kernel
  // path), else the family's newest hash. The class: the request's, else the
  // one stored with the same problem, else the problem minus its shape keys.
  std::string shape_class = req.shape_class;
  if (shape_class.empty()) {
    if (auto it = problem_class.find(problem_class_key(req.family, req.problem.key()));
        it != problem_class.end()) {
      shape_class = it->second;
    } else {
      auto keys_it = family_shape_keys.find(req.family);
      const std::vector<std::string> none;
      shape_class =
          derived_shape_class(req.problem, !req.shape_keys.empty()              ? req.shape_keys
                                           : keys_it != family_shape_keys.end() ? keys_it->second
                                                                                : none);
    }
  }
  if (auto it = newest_by_class.find(class_key(req.family, shape_class, arch));
      it != newest_by_class.end())
    return it->second.second;
  auto it = current_hash.find(req.family);
  return it != current_hash.end() ? it->second : std::string();
}

std::string Lookup::Impl::arch_of(const std::string& device_name) const {
  if (auto it = device_arch.find(device_name); it != device_arch.end()) return it->second;
  if (auto b = find_builtin_device(device_name)) return b->arch();
  return "";
}

}  // namespace ktune
