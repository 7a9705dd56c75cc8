// Lookup::Impl: the index of every layer, what the chain needs beside it, and
// the chain's steps; each step lives in its own lookup_*.cpp. Internal to db/.
#pragma once

#include <atomic>
#include <cstdint>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "db/lookup.hpp"
#include "db/lookup_cache.hpp"
#include "db/lookup_index.hpp"
#include "db/lookup_ranking.hpp"
#include "db/miss_log.hpp"

namespace ktune {

namespace lookup_detail {

/// A request, resolved once for every tier of the chain.
struct Ask {
  const LookupRequest& req;
  std::string arch;         ///< the request's, else its GPU's
  std::string hash;         ///< the template version served
  std::string problem_key;  ///< req.problem.key()
  int device = -2;          ///< the asked GPU's index; -2: a GPU the databases do not hold
};

/// Which measured entries of the asked arch a tier reads: the asked GPU's
/// own (all of the arch when only an arch is asked), or its siblings'.
struct EntryFilter {
  LookupReach reach = LookupReach::own;
  int device = -2;  ///< the asked GPU's index; -1: only an arch was asked
  bool accepts(const Entry& e) const {
    if (reach == LookupReach::own) return device == -1 || e.device_index == device;
    return e.device_index != device;
  }
};

/// A copy of a measured answer, saying how it was found.
std::shared_ptr<const LookupAnswer> found_as(const LookupAnswer& measured, LookupSource source,
                                             LookupReach reach, double distance);

}  // namespace lookup_detail

struct Lookup::Impl {
  using Ask = lookup_detail::Ask;
  using Entry = lookup_detail::Entry;
  using EntryFilter = lookup_detail::EntryFilter;
  using FamilyIndex = lookup_detail::FamilyIndex;
  using Layer = lookup_detail::Layer;

  // ---- The index of every layer (lookup_load.cpp) ----------------------------------
  std::vector<Layer> layers;
  std::unordered_map<std::string, std::string> current_hash;  // family -> hash
  // Every stored family -> measured_at of its current version ("" without results).
  std::unordered_map<std::string, std::string> newest_time;
  // For requests without a hash: per family, shape class and arch, the hash
  // of the newest measurement (measured_at, hash), so that each kernel path
  // of a family versioned per path keeps its own current hash; and the
  // family's shape keys, to derive a request's shape class.
  std::unordered_map<std::string, std::pair<std::string, std::string>> newest_by_class;
  std::unordered_map<std::string, std::vector<std::string>> family_shape_keys;
  std::unordered_map<std::string, std::string> problem_class;  // problem_class_key -> stored class
  // Configurations with a failed result (any status but ok), all layers:
  // failed_key(...). Never served for that family version, problem and arch,
  // whichever layer or device form asked.
  std::unordered_set<std::string> failed;
  std::unordered_map<std::string, std::string> device_arch;
  std::unordered_map<std::string, int> device_index;  // GPU name -> small integer, all layers
  std::size_t entry_count = 0;
  /// Rows of a database that cannot be read are left out, each with one
  /// warning: one bad row never takes the others down.
  std::vector<std::string> warnings;

  /// Adds a database as the last layer.
  void load(const std::string& path);
  int index_of_device(const std::string& name) {
    return device_index.try_emplace(name, static_cast<int>(device_index.size())).first->second;
  }
  void skip_row(const std::string& path, std::int64_t row_id, const std::string& why) {
    warnings.push_back("'" + path + "': results row " + std::to_string(row_id) +
                       " cannot be read (" + why + "); skipped");
  }
  static std::string failed_key(const std::string& family, const std::string& hash,
                                const std::string& arch, const std::string& problem_key,
                                const std::string& config_key) {
    return family + lookup_detail::kSep + hash + lookup_detail::kSep + arch + lookup_detail::kSep +
           problem_key + lookup_detail::kSep + config_key;
  }
  /// Key of problem_class.
  static std::string problem_class_key(const std::string& family, const std::string& problem_key) {
    return family + lookup_detail::kSep + problem_key;
  }
  /// Key of newest_by_class.
  static std::string class_key(const std::string& family, const std::string& shape_class,
                               const std::string& arch) {
    return family + lookup_detail::kSep + shape_class + lookup_detail::kSep + arch;
  }

  // ---- How answers are chosen ------------------------------------------------------
  std::shared_ptr<const LookupPredictor> predictor;  // set_predictor; null: no predicted answers
  PredictionRule rule;
  std::vector<LookupTier> chain{std::begin(kDefaultChainOrder), std::end(kDefaultChainOrder)};
  lookup_detail::AnswerCache cache;

  // ---- The miss log (log_misses), written under the lock (lookup_misses.cpp) ----------
  mutable std::mutex log_mutex;
  std::unique_ptr<MissLog> miss_log;
  std::atomic<bool> logging{false};  // read without the lock on every miss
  void log_miss(const LookupRequest& req, const std::string& arch) const;

  // ---- The chain (lookup_chain.cpp) -----------------------------------------------
  /// The first answer of the chain's tiers, null when none answers.
  std::shared_ptr<const LookupAnswer> compute(const LookupRequest& req) const;
  /// The request's arch, template version and asked GPU.
  Ask resolve(const LookupRequest& req) const;
  /// The hash served to a request that names none (see newest_by_class).
  std::string current_hash_without_request(const LookupRequest& req, const std::string& arch) const;
  std::shared_ptr<const LookupAnswer> answer_at(LookupTier tier, const Ask& ask) const;
  /// The arch of a GPU name in the databases, else in the built-in table ("" if unknown).
  std::string arch_of(const std::string& device_name) const;

  // ---- The tiers (lookup_tiers.cpp, lookup_predict.cpp) ----------------------------
  /// The asked problem measured by the entries `filter` accepts (of the
  /// asked arch): the best usable answer of the first layer holding one.
  std::shared_ptr<const LookupAnswer> exact(const Ask& ask, const EntryFilter& filter) const;
  /// The nearest measured shape of the class among the entries `filter`
  /// accepts, or the predictor's pick where the rule says so.
  std::shared_ptr<const LookupAnswer> nearest(const Ask& ask, const EntryFilter& filter) const;
  /// The asked problem measured on the closest other arch (the older at equal gap).
  std::shared_ptr<const LookupAnswer> other_arch(const Ask& ask) const;
  /// The predicted answer for a request whose nearest measured shape is far:
  /// the predictor's pick among the winners of every measured problem of the
  /// class that `filter` accepts (nearest first, each configuration once) and
  /// the default, all usable for the request. Among siblings, one GPU
  /// teaches: the one with the most measured problems of the class. Null
  /// when the predictor declines.
  std::shared_ptr<const LookupAnswer> predict(const Ask& ask, const EntryFilter& filter,
                                              const std::string& shape_class,
                                              const std::vector<std::string>& keys,
                                              const std::vector<double>& q) const;

  /// The first layer's answer: `answer_in(index)` answers from one layer's
  /// index of the asked family version, or null to try the next layer.
  template <class AnswerIn>
  std::shared_ptr<const LookupAnswer> first_layer_answer(const Ask& ask,
                                                         AnswerIn&& answer_in) const {
    for (const Layer& layer : layers)
      if (const FamilyIndex* fi = family_of(layer, ask))
        if (auto a = answer_in(*fi)) return a;
    return nullptr;
  }
  const FamilyIndex* family_of(const Layer& layer, const Ask& ask) const {
    auto it = layer.families.find({ask.req.family, ask.hash});
    return it == layer.families.end() ? nullptr : &it->second;
  }
  /// The entry's best candidate under the request's objective that it may take.
  const LookupAnswer* first_usable(const Entry& e, const Ask& ask) const {
    for (const auto& c : e.candidates[lookup_detail::index_of(ask.req.objective)])
      if (usable(*c, e, ask)) return c.get();
    return nullptr;
  }
  /// Whether `cand`, measured as part of `e`, may answer the request: it
  /// failed neither on the asked problem and arch nor, in any layer, where it
  /// was measured, and the caller's validator (if any) accepts it.
  bool usable(const LookupAnswer& cand, const Entry& e, const Ask& ask) const {
    if (!failed.empty()) {
      if (!ask.arch.empty() && failed_on(ask, ask.arch, ask.problem_key, cand)) return false;
      if (failed_on(ask, e.arch, e.problem_key, cand)) return false;
    }
    if (ask.req.deterministic_only && !lookup_detail::proven_deterministic(cand.result))
      return false;
    return !ask.req.fits || ask.req.fits(cand.config);
  }
  bool failed_on(const Ask& ask, const std::string& arch, const std::string& problem_key,
                 const LookupAnswer& cand) const {
    return failed.count(failed_key(ask.req.family, ask.hash, arch, problem_key, cand.config_key)) >
           0;
  }
};

}  // namespace ktune
