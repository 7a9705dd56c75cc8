// The lookup's log of misses (Lookup::log_misses): each request answered
// without the asked GPU's exact measurement, once per distinct line.
#include <nlohmann/json.hpp>

#include "db/lookup_impl.hpp"

namespace ktune {

void Lookup::log_misses(const std::string& path) {
  auto log = std::make_unique<MissLog>(path);
  std::lock_guard lock(impl_->log_mutex);
  impl_->miss_log = std::move(log);
  impl_->logging = true;
}

void Lookup::Impl::log_miss(const LookupRequest& req, const std::string& arch) const {
  nlohmann::json j{{"family", req.family},
                   {"problem", req.problem.key()},
                   {"device", req.device},
                   {"arch", arch}};
  // A device name from the command line may not be UTF-8: replaced, not fatal.
  std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::lock_guard lock(log_mutex);
  if (miss_log) miss_log->append_once(line);
}

}  // namespace ktune
