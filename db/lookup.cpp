// Lookup's public face: opening the layers, answering through the cache, the
// settings that change answers, and the names and descriptions of answers.
// The index is built in lookup_load.cpp, the chain walked in lookup_chain.cpp.
#include "db/lookup.hpp"

#include <cstdio>
#include <filesystem>

#include <SQLiteCpp/SQLiteCpp.h>

#include "db/lookup_impl.hpp"

namespace ktune {
namespace {

std::string distance_text(double d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", d);
  return text;
}

}  // namespace

std::string_view to_string(LookupSource s) {
  switch (s) {
    case LookupSource::exact:
      return "exact";
    case LookupSource::nearest:
      return "nearest";
    case LookupSource::predicted:
      return "predicted";
    case LookupSource::arch_fallback:
      return "arch_fallback";
    case LookupSource::default_config:
      return "default";
  }
  return "unknown";
}

std::string_view to_string(LookupReach r) {
  switch (r) {
    case LookupReach::own:
      return "own";
    case LookupReach::sibling:
      return "sibling";
    case LookupReach::other_arch:
      return "other_arch";
  }
  return "unknown";
}

std::string_view to_string(LookupTier t) {
  switch (t) {
    case LookupTier::own_exact:
      return "own_exact";
    case LookupTier::own_nearest:
      return "own_nearest";
    case LookupTier::sibling_exact:
      return "sibling_exact";
    case LookupTier::sibling_nearest:
      return "sibling_nearest";
    case LookupTier::other_arch_exact:
      return "other_arch_exact";
  }
  return "unknown";
}

std::string describe(const LookupAnswer& a) {
  const std::string on = "measured on " + a.measured_device;
  switch (a.source) {
    case LookupSource::exact:
      return "exact (" + on + ")";
    case LookupSource::nearest:
      return "nearest (" + on + ", distance " + distance_text(a.distance) + ")";
    case LookupSource::predicted:
      return "predicted from " + std::to_string(a.learned_from.size()) + " problems measured on " +
             a.learned_on + " (nearest at distance " + distance_text(a.distance) + ")";
    case LookupSource::arch_fallback:
      return "arch_fallback (this problem " + on + ", " + a.measured_arch + ")";
    case LookupSource::default_config:
      return "default (nothing measured fits)";
  }
  return "unknown";
}

Lookup::Lookup(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Lookup::Lookup(Lookup&&) noexcept = default;
Lookup& Lookup::operator=(Lookup&&) noexcept = default;
Lookup::~Lookup() = default;

Lookup Lookup::open(const std::string& path) { return open_layers({path}); }

Lookup Lookup::open_layers(const std::vector<std::string>& paths) {
  if (paths.empty()) throw DatabaseError("a lookup needs at least one database");
  auto impl = std::make_unique<Impl>();
  try {
    for (const auto& p : paths) impl->load(p);
  } catch (const SQLite::Exception& e) {
    throw DatabaseError(std::string("cannot index tuning database: ") + e.what());
  }
  return Lookup(std::move(impl));
}

Lookup Lookup::open_overlay(const std::string& user_path, const std::string& system_path) {
  std::vector<std::string> paths;
  std::error_code ec;  // a path that cannot be examined is opened, and refused with why
  if (!user_path.empty() && (std::filesystem::exists(user_path, ec) || ec))
    paths.push_back(user_path);
  paths.push_back(system_path);
  return open_layers(paths);
}

std::shared_ptr<const LookupAnswer> Lookup::best(const LookupRequest& req) const {
  std::shared_ptr<const LookupAnswer> found;
  if (auto cached = impl_->cache.find(req)) {
    found = std::move(*cached);
  } else {
    found = impl_->compute(req);
    if (impl_->logging.load(std::memory_order_relaxed) &&
        (!found || found->source != LookupSource::exact || found->reach != LookupReach::own))
      impl_->log_miss(req, req.arch.empty() ? arch_of(req.device) : req.arch);
    impl_->cache.store(req, found);
  }
  if (found || !req.default_config) return found;
  auto a = std::make_shared<LookupAnswer>();
  a->source = LookupSource::default_config;
  a->config = *req.default_config;
  a->config_key = a->config.key();
  return a;
}

void Lookup::set_predictor(std::shared_ptr<const LookupPredictor> predictor, PredictionRule rule) {
  impl_->predictor = std::move(predictor);
  impl_->rule = rule;
  impl_->cache.clear();
}

void Lookup::set_chain_order(std::vector<LookupTier> order) {
  impl_->chain = std::move(order);
  impl_->cache.clear();
}

std::size_t Lookup::indexed_entries() const { return impl_->entry_count; }

const std::vector<std::string>& Lookup::warnings() const { return impl_->warnings; }

std::string Lookup::arch_of(const std::string& device_name) const {
  return impl_->arch_of(device_name);
}

bool Lookup::holds_family(const std::string& family) const {
  return impl_->newest_time.count(family) > 0;
}

}  // namespace ktune
