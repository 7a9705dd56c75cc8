// Lookup: in-memory index of verified results per database layer, and the
// chain over it: the asked GPU's exact and nearest shapes, its arch's sibling
// GPUs', the closest other arch's exact shape, the default.
#include "db/lookup.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "db/miss_log.hpp"
#include "db/result_order.hpp"
#include "db/store_impl.hpp"

namespace ktune {
namespace {

// Best few configurations kept per (device, problem) and objective: enough to
// step past the ones a caller's device has seen fail, small enough for a
// million results.
constexpr std::size_t kCandidatesPerEntry = 8;
constexpr std::size_t kObjectives = 3;  // time, energy, edp: the index of Objective

std::size_t index_of(Objective o) { return static_cast<std::size_t>(o); }
constexpr std::size_t kMaxCachedAnswers = 1 << 20;
constexpr char kSep = '\x1f';

int arch_number(std::string_view arch) {
  int n = 0;
  for (char c : arch)
    if (c >= '0' && c <= '9') n = n * 10 + (c - '0');
  return n;
}

struct Entry {
  int device_index = -1;  // Impl::device_index of `device`: integer compares in the scans
  std::string device, arch;
  int arch_num = 0;
  std::string problem_key;
  Problem problem;
  std::string shape_class;
  std::vector<std::string> shape_keys;
  std::vector<double> log_shape;  // log2 of shape_keys' values; empty if any is missing or <= 0
  // Per objective (index_of), best first; energy and edp hold only results with energy.
  std::array<std::vector<std::shared_ptr<const LookupAnswer>>, kObjectives> candidates;
};

struct FamilyIndex {
  std::vector<std::unique_ptr<Entry>> entries;
  std::unordered_map<std::string, std::vector<const Entry*>> by_problem;
  // class + kSep + arch -> entries sorted by log_shape[0] (those without a shape at the end)
  struct ClassGroup {
    std::vector<const Entry*> list;
    std::vector<std::string> shape_keys;  // shared by every entry when `uniform`
    bool uniform = true;
  };
  std::unordered_map<std::string, ClassGroup> by_class_arch;
  std::vector<std::string> shape_keys;  // as stored with the first problem that had them
};

struct Layer {
  std::string path;
  std::map<std::pair<std::string, std::string>, FamilyIndex> families;  // (family, hash)
};

std::vector<double> log_shape_of(const Problem& p, const std::vector<std::string>& keys) {
  std::vector<double> out;
  out.reserve(keys.size());
  for (const auto& k : keys) {
    if (!p.contains(k)) return {};
    const Value& v = p.at(k);
    if (std::holds_alternative<std::string>(v)) return {};
    double x = as_number(v);
    if (!(x > 0)) return {};
    out.push_back(std::log2(x));
  }
  return out;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  // boost-style combine with a 64-bit odd constant: cheap, good enough for a cache
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}
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

// Verification stores metrics.verification.deterministic after running a
// configuration twice on the same input; an absent key means it was not checked.
bool proven_deterministic(const Result& r) {
  const auto v = r.metrics.find("verification");
  if (v == r.metrics.end() || !v->is_object()) return false;
  const auto d = v->find("deterministic");
  return d != v->end() && d->is_boolean() && d->get<bool>();
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

std::string distance_text(double d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", d);
  return text;
}

struct GroupKey {
  int device;
  std::int64_t family, problem;
  bool operator==(const GroupKey&) const = default;
};
struct GroupKeyHash {
  std::size_t operator()(const GroupKey& k) const {
    return mix(mix(static_cast<std::uint64_t>(k.device), k.family), k.problem);
  }
};
struct FailedKey {
  int arch;
  std::int64_t family, problem, config;
  bool operator==(const FailedKey&) const = default;
};
struct FailedKeyHash {
  std::size_t operator()(const FailedKey& k) const {
    return mix(mix(mix(static_cast<std::uint64_t>(k.arch), k.family), k.problem), k.config);
  }
};

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

/// The order of answers under an objective: its value (candidates always
/// have one), then the order of result_order.hpp.
bool answers_before(const LookupAnswer& a, const LookupAnswer& b, Objective o) {
  if (o != Objective::time) {
    const double va = objective_value(a.result, o).value_or(0);
    const double vb = objective_value(b.result, o).value_or(0);
    if (va != vb) return va < vb;
  }
  return ranks_before(rank_of(a), rank_of(b));
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

struct Lookup::Impl {
  std::vector<Layer> layers;
  std::unordered_map<std::string, std::string> current_hash;  // family -> hash
  std::unordered_map<std::string, std::string> newest_time;   // family -> measured_at of current
  // For requests without a hash: per family, shape class and arch, the hash
  // of the newest measurement (measured_at, hash), so that each kernel path
  // of a family versioned per path keeps its own current hash; and the
  // family's shape keys, to derive a request's shape class.
  std::unordered_map<std::string, std::pair<std::string, std::string>> newest_by_class;
  std::unordered_map<std::string, std::vector<std::string>> family_shape_keys;
  std::unordered_map<std::string, std::string>
      problem_class;  // family, problem key -> stored shape class
  // Configurations with a failed result (any status but ok), all layers:
  // family, hash, arch, problem key, config key. Never served for that
  // family version, problem and arch, whichever layer or device form asked.
  std::unordered_set<std::string> failed;
  std::unordered_map<std::string, std::string> device_arch;
  std::unordered_map<std::string, int> device_index;  // GPU name -> small integer, all layers
  std::size_t entry_count = 0;

  struct Cached {
    LookupRequest request;  // without its default (the default is applied per call)
    std::shared_ptr<const LookupAnswer> answer;
  };
  // The miss log (log_misses), written under the lock.
  mutable std::mutex log_mutex;
  std::unique_ptr<MissLog> miss_log;
  std::atomic<bool> logging{false};  // read without the lock on every miss
  void log_miss(const LookupRequest& req, const std::string& arch) const;

  std::shared_ptr<const LookupPredictor> predictor;  // set_predictor; null: no predicted answers
  PredictionRule rule;
  std::vector<LookupTier> chain{std::begin(kDefaultChainOrder), std::end(kDefaultChainOrder)};

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
  const LookupAnswer* first_usable(const Entry& e, const Ask& ask) const {
    for (const auto& c : e.candidates[index_of(ask.req.objective)])
      if (usable(*c, e, ask.req, ask.hash, ask.arch, ask.problem_key)) return c.get();
    return nullptr;
  }
  const FamilyIndex* family_of(const Layer& layer, const Ask& ask) const {
    auto it = layer.families.find({ask.req.family, ask.hash});
    return it == layer.families.end() ? nullptr : &it->second;
  }

  mutable std::shared_mutex cache_mutex;
  mutable std::unordered_map<std::uint64_t, std::vector<Cached>> cache;
  mutable std::size_t cached = 0;

  int index_of_device(const std::string& name) {
    auto [it, fresh] = device_index.try_emplace(name, static_cast<int>(device_index.size()));
    return it->second;
  }

  void load(const std::string& path);
  /// Rows of a database that cannot be read are left out, each with one
  /// warning: one bad row never takes the others down.
  std::vector<std::string> warnings;
  void skip_row(const std::string& path, std::int64_t row_id, const std::string& why) {
    warnings.push_back("'" + path + "': results row " + std::to_string(row_id) +
                       " cannot be read (" + why + "); skipped");
  }
  std::shared_ptr<const LookupAnswer> compute(const LookupRequest& req) const;
  /// The hash served to a request that names none (see newest_by_class).
  std::string current_hash_without_request(const LookupRequest& req, const std::string& arch) const;
  bool failed_on(const std::string& family, const std::string& hash, const std::string& arch,
                 const std::string& problem_key, const std::string& config_key) const {
    return failed.count(family + kSep + hash + kSep + arch + kSep + problem_key + kSep +
                        config_key) > 0;
  }
  /// Whether `cand`, measured as part of `e`, may answer the request: it
  /// failed neither on the asked problem and arch nor, in any layer, where it
  /// was measured, and the caller's validator (if any) accepts it.
  bool usable(const LookupAnswer& cand, const Entry& e, const LookupRequest& req,
              const std::string& hash, const std::string& arch,
              const std::string& problem_key) const {
    if (!failed.empty()) {
      if (!arch.empty() && failed_on(req.family, hash, arch, problem_key, cand.config_key))
        return false;
      if (failed_on(req.family, hash, e.arch, e.problem_key, cand.config_key)) return false;
    }
    if (req.deterministic_only && !proven_deterministic(cand.result)) return false;
    return !req.fits || req.fits(cand.config);
  }
};

void Lookup::Impl::load(const std::string& path) {
  Store store = Store::open_read_only(path);
  SQLite::Database& db = store.impl().db;
  Layer layer;
  layer.path = path;

  struct DeviceRow {
    std::string name, arch;
    int index;
  };
  std::unordered_map<std::int64_t, DeviceRow> devices;
  {
    SQLite::Statement q(db, "SELECT id, name, arch FROM devices");
    while (q.executeStep()) {
      std::string name = q.getColumn(1).getString();
      devices[q.getColumn(0).getInt64()] = {name, q.getColumn(2).getString(),
                                            index_of_device(name)};
      device_arch.emplace(q.getColumn(1).getString(), q.getColumn(2).getString());
    }
  }
  struct FamilyRow {
    std::string name, hash;
  };
  std::unordered_map<std::int64_t, FamilyRow> families;
  {
    SQLite::Statement q(
        db,
        "SELECT f.id, f.name, f.source_hash, "
        "(SELECT max(measured_at) FROM results r WHERE r.family_id = f.id) FROM families f");
    while (q.executeStep()) {
      FamilyRow row{q.getColumn(1).getString(), q.getColumn(2).getString()};
      std::string newest = q.getColumn(3).isNull() ? "" : q.getColumn(3).getString();
      auto& t = newest_time[row.name];
      if (!newest.empty() && newest > t) {
        t = newest;
        current_hash[row.name] = row.hash;
      }
      families[q.getColumn(0).getInt64()] = std::move(row);
    }
  }
  struct ProblemRow {
    std::string key, json, shape_class, shape_keys;
  };
  std::unordered_map<std::int64_t, ProblemRow> problems;
  {
    SQLite::Statement q(db, "SELECT id, key, json, shape_class, shape_keys FROM problems");
    while (q.executeStep())
      problems[q.getColumn(0).getInt64()] = {q.getColumn(1).getString(), q.getColumn(2).getString(),
                                             q.getColumn(3).getString(),
                                             q.getColumn(4).getString()};
  }
  // Configurations with a failed result, per arch and problem: skipped here
  // so that the kept candidates are usable ones, and remembered for every
  // layer (a failure in one layer also rules out another layer's success).
  std::unordered_map<std::string, int> arch_ids;
  auto arch_id = [&](const std::string& arch) {
    return arch_ids.try_emplace(arch, static_cast<int>(arch_ids.size())).first->second;
  };
  std::unordered_set<FailedKey, FailedKeyHash> failed_ids;
  {
    SQLite::Statement q(db,
                        "SELECT r.device_id, r.family_id, r.problem_id, r.config_id, c.key "
                        "FROM results r JOIN configs c ON c.id = r.config_id "
                        "WHERE r.status <> 'ok'");
    while (q.executeStep()) {
      const auto& dev = devices.at(q.getColumn(0).getInt64());
      const auto& fam = families.at(q.getColumn(1).getInt64());
      const auto& prob = problems.at(q.getColumn(2).getInt64());
      failed.insert(fam.name + kSep + fam.hash + kSep + dev.arch + kSep + prob.key + kSep +
                    q.getColumn(4).getString());
      failed_ids.insert({arch_id(dev.arch), q.getColumn(1).getInt64(), q.getColumn(2).getInt64(),
                         q.getColumn(3).getInt64()});
    }
  }
  // Fastest verified configurations per (family, device name, problem), in
  // the order of result_order.hpp.
  // Under energy and edp, only results with a positive energy_j are picked.
  struct Pick {
    double median_s, min_s, spread;
    bool noisy;
    double energy_j;  // 0: none recorded
    std::string config_key, measured_at;
    std::int64_t config_id;
    std::int64_t row_id;
    ResultRank rank() const { return {median_s, min_s, spread, config_key, noisy}; }
    double value(Objective o) const {
      return o == Objective::time     ? rank().ranking_s()
             : o == Objective::energy ? energy_j
                                      : energy_j * median_s;
    }
    bool before(const Pick& other, Objective o) const {
      if (value(o) != other.value(o)) return value(o) < other.value(o);
      if (ranks_before(rank(), other.rank())) return true;
      if (ranks_before(other.rank(), rank())) return false;
      // One configuration measured twice alike: the older row.
      return measured_at < other.measured_at;
    }
  };
  struct Group {
    std::int64_t family_id;
    const DeviceRow* device;
    std::int64_t problem_id;
    std::array<std::vector<Pick>, kObjectives> picks;  // per objective (index_of)
  };
  std::unordered_map<GroupKey, Group, GroupKeyHash> groups;
  {
    // Energy, noisy mark and validity of the metrics: kept per row since
    // schema version 3 (parsing 7.8 MB of metrics JSON was most of an open);
    // parsed here for a row that lacks them and in an older file.
    const bool kept = db.tableExists("result_lookup_metrics");
    auto from_metrics = [&](const std::string& kept_column, const std::string& parsed) {
      return kept ? "(CASE WHEN m.result_id IS NULL THEN " + parsed + " ELSE m." + kept_column +
                        " END)"
                  : parsed;
    };
    SQLite::Statement q(
        db,
        "SELECT r.id, r.device_id, r.family_id, r.problem_id, r.config_id, r.median_s, "
        "r.min_s, r.spread, c.key, r.measured_at, " +
            from_metrics("energy_j", kEnergySql) + ", " + from_metrics("noisy", kNoisySql) + ", " +
            from_metrics("metrics_valid", "json_valid(r.metrics)") +
            " FROM results r JOIN configs c ON c.id = r.config_id " +
            (kept ? "LEFT JOIN result_lookup_metrics m ON m.result_id = r.id " : "") +
            "WHERE r.status = 'ok'");
    while (q.executeStep()) {
      std::int64_t row_id = q.getColumn(0).getInt64();
      if (q.getColumn(12).getInt() == 0) {
        skip_row(path, row_id, "its metrics are not JSON that SQLite can read");
        continue;
      }
      const auto& dev = devices.at(q.getColumn(1).getInt64());
      std::int64_t family_id = q.getColumn(2).getInt64();
      std::int64_t problem_id = q.getColumn(3).getInt64();
      std::int64_t config_id = q.getColumn(4).getInt64();
      if (!failed_ids.empty() &&
          failed_ids.count({arch_id(dev.arch), family_id, problem_id, config_id}))
        continue;
      const SQLite::Column energy = q.getColumn(10);
      const double energy_j = energy.isInteger() || energy.isFloat() ? energy.getDouble() : 0;
      const Pick pick{q.getColumn(5).getDouble(),
                      q.getColumn(6).getDouble(),
                      q.getColumn(7).getDouble(),
                      q.getColumn(11).getInt() != 0,
                      energy_j > 0 ? energy_j : 0,
                      q.getColumn(8).getString(),
                      q.getColumn(9).getString(),
                      config_id,
                      row_id};
      auto [it, fresh] = groups.try_emplace(GroupKey{dev.index, family_id, problem_id});
      Group& g = it->second;
      if (fresh) {
        g.family_id = family_id;
        g.device = &dev;
        g.problem_id = problem_id;
      }
      for (Objective o : {Objective::time, Objective::energy, Objective::edp}) {
        if (o != Objective::time && pick.energy_j == 0) continue;
        std::vector<Pick>& picks = g.picks[index_of(o)];
        auto same = std::find_if(picks.begin(), picks.end(),
                                 [&](const Pick& p) { return p.config_id == config_id; });
        if (same != picks.end()) {
          if (pick.before(*same, o)) *same = pick;
        } else if (picks.size() < kCandidatesPerEntry) {
          picks.push_back(pick);
        } else {
          auto worst =
              std::max_element(picks.begin(), picks.end(),
                               [o](const Pick& a, const Pick& b) { return a.before(b, o); });
          if (pick.before(*worst, o)) *worst = pick;
        }
      }
    }
  }
  SQLite::Statement detail(
      db, std::string("SELECT c.json, c.key, ") + kResultColumns +
              " FROM results r JOIN configs c ON c.id = r.config_id WHERE r.id = ?");
  for (auto& [unused, g] : groups) {
    const auto& fam = families.at(g.family_id);
    const auto& prob = problems.at(g.problem_id);
    FamilyIndex& fi = layer.families[{fam.name, fam.hash}];
    auto e = std::make_unique<Entry>();
    e->device_index = g.device->index;
    e->device = g.device->name;
    e->arch = g.device->arch;
    e->arch_num = arch_number(e->arch);
    e->problem_key = prob.key;
    e->problem = ValueMap::from_json(nlohmann::json::parse(prob.json));
    e->shape_keys = split_names(prob.shape_keys);
    e->shape_class = prob.shape_class;
    e->log_shape = log_shape_of(e->problem, e->shape_keys);
    if (fi.shape_keys.empty()) fi.shape_keys = e->shape_keys;
    // One answer per result row, shared by the objectives that picked it.
    std::unordered_map<std::int64_t, std::shared_ptr<const LookupAnswer>> answers;
    auto answer_of = [&](const Pick& p) -> std::shared_ptr<const LookupAnswer> {
      if (auto it = answers.find(p.row_id); it != answers.end()) return it->second;
      detail.reset();
      detail.bind(1, p.row_id);
      if (!detail.executeStep()) return nullptr;
      auto a = std::make_shared<LookupAnswer>();
      try {
        a->config = ValueMap::from_json(nlohmann::json::parse(detail.getColumn(0).getString()));
        read_result(detail, 2, a->result, a->provenance);
      } catch (const std::exception& e) {
        skip_row(path, p.row_id, e.what());
        return answers[p.row_id] = nullptr;  // warned once, whichever objective asks again
      }
      a->config_key = detail.getColumn(1).getString();
      a->result.config = a->config;
      a->measured_device = e->device;
      a->measured_arch = e->arch;
      a->measured_problem = e->problem;
      a->family_hash = fam.hash;
      a->database = path;
      return answers[p.row_id] = std::move(a);
    };
    for (Objective o : {Objective::time, Objective::energy, Objective::edp}) {
      std::vector<Pick>& picks = g.picks[index_of(o)];
      std::sort(picks.begin(), picks.end(),
                [o](const Pick& a, const Pick& b) { return a.before(b, o); });
      for (const Pick& p : picks)
        if (auto a = answer_of(p)) e->candidates[index_of(o)].push_back(std::move(a));
    }
    fi.by_problem[e->problem_key].push_back(e.get());
    for (const auto& c : e->candidates[index_of(Objective::time)]) {
      auto& newest = newest_by_class[fam.name + kSep + e->shape_class + kSep + e->arch];
      if (c->provenance.measured_at > newest.first) newest = {c->provenance.measured_at, fam.hash};
    }
    if (!e->shape_keys.empty()) family_shape_keys.try_emplace(fam.name, e->shape_keys);
    problem_class.try_emplace(fam.name + kSep + e->problem_key, e->shape_class);
    auto& group = fi.by_class_arch[e->shape_class + kSep + e->arch];
    if (group.list.empty()) group.shape_keys = e->shape_keys;
    if (e->shape_keys != group.shape_keys || e->log_shape.size() != e->shape_keys.size())
      group.uniform = false;
    group.list.push_back(e.get());
    fi.entries.push_back(std::move(e));
    ++entry_count;
  }
  for (auto& [unused, fi] : layer.families)
    for (auto& [unused2, group] : fi.by_class_arch)
      std::stable_sort(group.list.begin(), group.list.end(), [](const Entry* a, const Entry* b) {
        if (a->log_shape.empty() != b->log_shape.empty()) return b->log_shape.empty();
        if (a->log_shape.empty()) return false;
        return a->log_shape[0] < b->log_shape[0];
      });
  layers.push_back(std::move(layer));
}

std::string Lookup::Impl::current_hash_without_request(const LookupRequest& req,
                                                       const std::string& arch) const {
  // The newest hash among results of the request's shape class (one kernel
  // path), else the family's newest hash. The class: the request's, else the
  // one stored with the same problem, else the problem minus its shape keys.
  std::string shape_class = req.shape_class;
  if (shape_class.empty()) {
    if (auto it = problem_class.find(req.family + kSep + req.problem.key());
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
  if (auto it = newest_by_class.find(req.family + kSep + shape_class + kSep + arch);
      it != newest_by_class.end())
    return it->second.second;
  auto it = current_hash.find(req.family);
  return it != current_hash.end() ? it->second : std::string();
}

std::shared_ptr<const LookupAnswer> Lookup::Impl::compute(const LookupRequest& req) const {
  std::string arch = req.arch;
  if (arch.empty() && !req.device.empty()) {
    if (auto it = device_arch.find(req.device); it != device_arch.end())
      arch = it->second;
    else if (auto b = find_builtin_device(req.device))
      arch = b->arch();
  }
  Ask ask{req, arch, "", req.problem.key()};
  ask.hash = req.family_hash.empty() ? current_hash_without_request(req, arch) : req.family_hash;
  if (ask.hash.empty()) return nullptr;
  if (auto it = device_index.find(req.device); it != device_index.end()) ask.device = it->second;
  const bool arch_only = req.device.empty();
  const EntryFilter own{LookupReach::own, arch_only ? -1 : ask.device};
  const EntryFilter sibling{LookupReach::sibling, ask.device};
  for (LookupTier tier : chain) {
    std::shared_ptr<const LookupAnswer> a;
    switch (tier) {
      case LookupTier::own_exact:
        a = exact(ask, own);
        break;
      case LookupTier::own_nearest:
        a = nearest(ask, own);
        break;
      // Siblings are GPUs other than the asked one: an arch alone has none.
      case LookupTier::sibling_exact:
        if (!arch_only && !req.own_device_only) a = exact(ask, sibling);
        break;
      case LookupTier::sibling_nearest:
        if (!arch_only && !req.own_device_only) a = nearest(ask, sibling);
        break;
      case LookupTier::other_arch_exact:
        if (!req.own_device_only) a = other_arch(ask);
        break;
    }
    if (a) return a;
  }
  return nullptr;
}

std::shared_ptr<const LookupAnswer> Lookup::Impl::exact(const Ask& ask,
                                                        const EntryFilter& filter) const {
  // The asked GPU's own entries are its by name; others' must share its arch.
  const bool by_name = filter.reach == LookupReach::own && filter.device != -1;
  if (!by_name && ask.arch.empty()) return nullptr;
  for (const Layer& layer : layers) {
    const FamilyIndex* fi = family_of(layer, ask);
    if (!fi) continue;
    auto it = fi->by_problem.find(ask.problem_key);
    if (it == fi->by_problem.end()) continue;
    const LookupAnswer* best = nullptr;
    for (const Entry* e : it->second) {
      if ((!by_name && e->arch != ask.arch) || !filter.accepts(*e)) continue;
      const LookupAnswer* c = first_usable(*e, ask);
      if (c && (!best || answers_before(*c, *best, ask.req.objective))) best = c;
    }
    if (!best) continue;
    auto a = std::make_shared<LookupAnswer>(*best);
    a->source = LookupSource::exact;
    a->reach = filter.reach;
    a->distance = 0;
    return a;
  }
  return nullptr;
}

std::shared_ptr<const LookupAnswer> Lookup::Impl::nearest(const Ask& ask,
                                                          const EntryFilter& filter) const {
  if (ask.arch.empty()) return nullptr;
  const LookupRequest& req = ask.req;
  for (const Layer& layer : layers) {
    const FamilyIndex* fi = family_of(layer, ask);
    if (!fi) continue;
    const auto& keys = !req.shape_keys.empty() ? req.shape_keys : fi->shape_keys;
    if (keys.empty()) continue;
    std::string shape_class =
        !req.shape_class.empty() ? req.shape_class : derived_shape_class(req.problem, keys);
    auto it = fi->by_class_arch.find(shape_class + kSep + ask.arch);
    if (it == fi->by_class_arch.end()) continue;
    std::vector<double> q = log_shape_of(req.problem, keys);
    if (q.empty()) continue;
    const auto& list = it->second.list;
    const bool check_keys = !(it->second.uniform && it->second.shape_keys == keys);
    double best_d2 = std::numeric_limits<double>::infinity();
    const LookupAnswer* best = nullptr;
    auto consider = [&](const Entry* e) {
      if (!filter.accepts(*e)) return;
      if (check_keys && (e->shape_keys != keys || e->log_shape.size() != q.size())) return;
      double d2 = 0;
      for (std::size_t i = 0; i < q.size(); ++i)
        d2 += (q[i] - e->log_shape[i]) * (q[i] - e->log_shape[i]);
      if (d2 > best_d2) return;
      const LookupAnswer* c = first_usable(*e, ask);
      if (!c) return;
      if (d2 < best_d2 || answers_before(*c, *best, req.objective)) {
        best_d2 = d2;
        best = c;
      }
    };
    // Entries are sorted by their first coordinate: walk outwards from the
    // query and stop once that coordinate alone is farther than the best.
    auto with_shape_end = std::partition_point(
        list.begin(), list.end(), [](const Entry* e) { return !e->log_shape.empty(); });
    auto mid = std::lower_bound(list.begin(), with_shape_end, q[0],
                                [](const Entry* e, double x) { return e->log_shape[0] < x; });
    auto up = mid;
    auto down = mid;
    while (up != with_shape_end || down != list.begin()) {
      bool went = false;
      if (up != with_shape_end) {
        double dx = (*up)->log_shape[0] - q[0];
        if (dx * dx <= best_d2) {
          consider(*up);
          ++up;
          went = true;
        } else {
          up = with_shape_end;
        }
      }
      if (down != list.begin()) {
        double dx = q[0] - (*(down - 1))->log_shape[0];
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
    if (!best) continue;
    const double distance = std::sqrt(best_d2);
    // The predictor models time: energy and edp keep the nearest rule.
    if (predictor && req.objective == Objective::time && distance >= rule.min_distance)
      if (auto p = predict(ask, filter, shape_class, keys, q)) return p;
    auto a = std::make_shared<LookupAnswer>(*best);
    a->source = LookupSource::nearest;
    a->reach = filter.reach;
    a->distance = distance;
    return a;
  }
  return nullptr;
}

std::shared_ptr<const LookupAnswer> Lookup::Impl::other_arch(const Ask& ask) const {
  if (ask.arch.empty()) return nullptr;
  const int want = arch_number(ask.arch);
  for (const Layer& layer : layers) {
    const FamilyIndex* fi = family_of(layer, ask);
    if (!fi) continue;
    auto it = fi->by_problem.find(ask.problem_key);
    if (it == fi->by_problem.end()) continue;
    const LookupAnswer* best = nullptr;
    int best_gap = std::numeric_limits<int>::max();
    for (const Entry* e : it->second) {
      if (e->arch == ask.arch) continue;
      const int gap = std::abs(e->arch_num - want);
      const LookupAnswer* c = first_usable(*e, ask);
      if (!c) continue;
      // closest arch first; at equal gap the older one (its code runs on newer GPUs)
      const bool better = !best || gap < best_gap ||
                          (gap == best_gap && e->arch_num < arch_number(best->measured_arch)) ||
                          (gap == best_gap && e->arch_num == arch_number(best->measured_arch) &&
                           answers_before(*c, *best, ask.req.objective));
      if (better) {
        best = c;
        best_gap = gap;
      }
    }
    if (!best) continue;
    auto a = std::make_shared<LookupAnswer>(*best);
    a->source = LookupSource::arch_fallback;
    a->reach = LookupReach::other_arch;
    a->distance = 0;
    return a;
  }
  return nullptr;
}

std::shared_ptr<const LookupAnswer> Lookup::Impl::predict(const Ask& ask, const EntryFilter& filter,
                                                          const std::string& shape_class,
                                                          const std::vector<std::string>& keys,
                                                          const std::vector<double>& q) const {
  const LookupRequest& req = ask.req;
  const std::string group_key = shape_class + kSep + ask.arch;
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
  // The GPU whose measurements teach: the asked one; among siblings, the one
  // with the most measured problems of the class (by name at a tie).
  std::string measured_on = req.device;
  if (filter.reach == LookupReach::sibling) {
    std::map<std::string, std::size_t> problems_on;
    for (const Entry* e : entries) ++problems_on[e->device];
    std::size_t most = 0;
    for (const auto& [device, count] : problems_on)
      if (count > most) measured_on = device, most = count;
    std::erase_if(entries, [&](const Entry* e) { return e->device != measured_on; });
  }
  struct Near {
    double d2;
    const Entry* entry;
  };
  std::vector<Near> near;
  for (const Entry* e : entries) {
    double d2 = 0;
    for (std::size_t i = 0; i < q.size(); ++i)
      d2 += (q[i] - e->log_shape[i]) * (q[i] - e->log_shape[i]);
    near.push_back({d2, e});
  }
  // Nearest first (layers in order at equal distance): a configuration
  // measured at several problems is reported with its nearest measurement.
  std::stable_sort(near.begin(), near.end(),
                   [](const Near& a, const Near& b) { return a.d2 < b.d2; });
  if (near.size() > rule.problems) near.resize(rule.problems);
  PredictionQuery query;
  query.request = &req;
  query.arch = ask.arch;
  query.family_hash = ask.hash;
  query.shape_class = shape_class;
  query.measured_on = measured_on;
  if (req.device_spec)
    query.device = req.device_spec;
  else if (auto b = find_builtin_device(req.device); b && b->name == req.device)
    query.device = b;
  std::vector<const LookupAnswer*> measured;
  std::unordered_set<std::string> seen;
  for (const Near& n : near) {
    std::size_t taken = 0;
    for (const auto& c : n.entry->candidates[index_of(Objective::time)]) {
      if (taken == rule.winners_per_problem) break;
      if (!usable(*c, *n.entry, req, ask.hash, ask.arch, ask.problem_key)) continue;
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
  // The cache is keyed by a hash of the request's fields and confirmed by
  // comparing them: no string is built on the repeated path.
  const std::uint64_t h = request_hash(req);
  std::shared_ptr<const LookupAnswer> found;
  bool hit = false;
  {
    std::shared_lock lock(impl_->cache_mutex);
    if (auto it = impl_->cache.find(h); it != impl_->cache.end())
      for (const auto& c : it->second)
        if (same_request(c.request, req)) {
          found = c.answer;
          hit = true;
          break;
        }
  }
  if (!hit) {
    found = impl_->compute(req);
    if (impl_->logging.load(std::memory_order_relaxed) &&
        (!found || found->source != LookupSource::exact || found->reach != LookupReach::own)) {
      std::string arch = req.arch.empty() ? arch_of(req.device) : req.arch;
      impl_->log_miss(req, arch);
    }
    LookupRequest stored = req;
    stored.default_config.reset();
    stored.fits = nullptr;
    if (req.fits)
      stored.fits = [](const Config&) { return true; };  // only its presence is compared
    std::unique_lock lock(impl_->cache_mutex);
    if (impl_->cached >= kMaxCachedAnswers) {
      impl_->cache.clear();
      impl_->cached = 0;
    }
    impl_->cache[h].push_back({std::move(stored), found});
    ++impl_->cached;
  }
  if (found || !req.default_config) return found;
  auto a = std::make_shared<LookupAnswer>();
  a->source = LookupSource::default_config;
  a->config = *req.default_config;
  a->config_key = a->config.key();
  return a;
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

void Lookup::log_misses(const std::string& path) {
  auto log = std::make_unique<MissLog>(path);
  std::lock_guard lock(impl_->log_mutex);
  impl_->miss_log = std::move(log);
  impl_->logging = true;
}

void Lookup::set_predictor(std::shared_ptr<const LookupPredictor> predictor, PredictionRule rule) {
  std::unique_lock lock(impl_->cache_mutex);
  impl_->predictor = std::move(predictor);
  impl_->rule = rule;
  impl_->cache.clear();
  impl_->cached = 0;
}

void Lookup::set_chain_order(std::vector<LookupTier> order) {
  std::unique_lock lock(impl_->cache_mutex);
  impl_->chain = std::move(order);
  impl_->cache.clear();
  impl_->cached = 0;
}

std::size_t Lookup::indexed_entries() const { return impl_->entry_count; }

const std::vector<std::string>& Lookup::warnings() const { return impl_->warnings; }

std::string Lookup::arch_of(const std::string& device_name) const {
  if (auto it = impl_->device_arch.find(device_name); it != impl_->device_arch.end())
    return it->second;
  if (auto b = find_builtin_device(device_name)) return b->arch();
  return "";
}

}  // namespace ktune
