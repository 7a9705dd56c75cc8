// The lookup's answer cache (see lookup_cache.hpp).
#include "db/lookup_cache.hpp"

#include <cstring>
#include <mutex>
#include <string_view>
#include <variant>

#include "db/lookup_index.hpp"

namespace ktune::lookup_detail {
namespace {

constexpr std::size_t kMaxCachedAnswers = 1 << 20;

std::uint64_t text_hash(std::string_view s) { return std::hash<std::string_view>{}(s); }

std::uint64_t request_hash(const LookupRequest& r) {
  std::uint64_t h = text_hash(r.family);
  h = mix(h, text_hash(r.device));
  h = mix(h, text_hash(r.arch));
  h = mix(h, text_hash(r.shape_class));
  h = mix(h, text_hash(r.family_hash));
  for (const auto& k : r.shape_keys) h = mix(h, text_hash(k));
  h = mix(h, r.fits ? 1 : 0);
  h = mix(h, r.deterministic_only ? 1 : 0);
  h = mix(h, r.own_device_only ? 1 : 0);
  h = mix(h, r.device_spec ? text_hash(r.device_spec->name) : 0);
  h = mix(h, index_of(r.objective));
  for (const auto& [name, value] : r.problem) {
    h = mix(h, text_hash(name));
    std::uint64_t v = 0;
    if (auto i = std::get_if<std::int64_t>(&value))
      v = static_cast<std::uint64_t>(*i);
    else if (auto d = std::get_if<double>(&value))
      std::memcpy(&v, d, sizeof v);
    else if (auto b = std::get_if<bool>(&value))
      v = *b ? 1 : 2;
    else
      v = text_hash(std::get<std::string>(value));
    h = mix(h, v + value.index());
  }
  return h;
}

/// The fields of a spec that the predictor's roofline reads, compared
/// without building text on the cached path.
bool same_spec(const std::optional<DeviceSpec>& a, const std::optional<DeviceSpec>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  return a->name == b->name && a->sm_count == b->sm_count && a->sm_clock_mhz == b->sm_clock_mhz &&
         a->smem_per_sm == b->smem_per_sm && a->l2_bytes == b->l2_bytes &&
         a->dram_gbps == b->dram_gbps && a->peak_tflops_bf16 == b->peak_tflops_bf16 &&
         a->peak_tflops_fp16 == b->peak_tflops_fp16 && a->peak_tflops_tf32 == b->peak_tflops_tf32 &&
         a->peak_tflops_simt_fp32 == b->peak_tflops_simt_fp32;
}

bool same_request(const LookupRequest& a, const LookupRequest& b) {
  return a.family == b.family && a.device == b.device && a.arch == b.arch &&
         a.shape_class == b.shape_class && a.family_hash == b.family_hash &&
         a.shape_keys == b.shape_keys && a.problem == b.problem &&
         static_cast<bool>(a.fits) == static_cast<bool>(b.fits) &&
         a.deterministic_only == b.deterministic_only && a.objective == b.objective &&
         a.own_device_only == b.own_device_only && same_spec(a.device_spec, b.device_spec);
}

}  // namespace

std::optional<std::shared_ptr<const LookupAnswer>> AnswerCache::find(
    const LookupRequest& req) const {
  const std::uint64_t h = request_hash(req);
  std::shared_lock lock(mutex_);
  if (auto it = by_hash_.find(h); it != by_hash_.end())
    for (const auto& c : it->second)
      if (same_request(c.request, req)) return c.answer;
  return std::nullopt;
}

void AnswerCache::store(const LookupRequest& req, std::shared_ptr<const LookupAnswer> answer) {
  const std::uint64_t h = request_hash(req);
  LookupRequest kept = req;
  kept.default_config.reset();
  kept.fits = nullptr;
  if (req.fits) kept.fits = [](const Config&) { return true; };  // only its presence is compared
  std::unique_lock lock(mutex_);
  if (size_ >= kMaxCachedAnswers) {
    by_hash_.clear();
    size_ = 0;
  }
  by_hash_[h].push_back({std::move(kept), std::move(answer)});
  ++size_;
}

void AnswerCache::clear() {
  std::unique_lock lock(mutex_);
  by_hash_.clear();
  size_ = 0;
}

}  // namespace ktune::lookup_detail
