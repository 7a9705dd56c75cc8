// The lookup's answers, kept per request so that a repeated request costs a
// hash and a compare. Internal to db/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "db/lookup.hpp"

namespace ktune::lookup_detail {

/// Keyed by a hash of the request's fields and confirmed by comparing them:
/// no string is built on the repeated path. Thread-safe.
class AnswerCache {
 public:
  /// The answer stored for an equal request (null where nothing fit), or
  /// nullopt when none is stored.
  std::optional<std::shared_ptr<const LookupAnswer>> find(const LookupRequest& req) const;
  /// Keeps `answer` for requests equal to `req`. The request's default is not
  /// kept (the caller applies it per call), nor its validator, only whether
  /// it has one. Past a million answers the cache starts again empty.
  void store(const LookupRequest& req, std::shared_ptr<const LookupAnswer> answer);
  void clear();

 private:
  struct Cached {
    LookupRequest request;
    std::shared_ptr<const LookupAnswer> answer;
  };
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::uint64_t, std::vector<Cached>> by_hash_;
  std::size_t size_ = 0;
};

}  // namespace ktune::lookup_detail
