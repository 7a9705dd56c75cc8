// Lookup::Impl::load: one database read into a layer of the index: its GPUs,
// family versions and problems, the configurations that failed, and per
// (GPU, problem) the best few verified results under each objective.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "db/lookup_impl.hpp"
#include "db/result_order.hpp"
#include "db/store_impl.hpp"

namespace ktune {
namespace {

using lookup_detail::Entry;
using lookup_detail::FamilyIndex;
using lookup_detail::index_of;
using lookup_detail::kObjectives;
using lookup_detail::Layer;
using lookup_detail::mix;

struct DeviceRow {
  std::string name, arch;
  int index;  // Lookup::Impl::device_index
};
struct FamilyRow {
  std::string name, hash;
};
struct ProblemRow {
  std::string key, json, shape_class, shape_keys;
};

/// A configuration's failure on a problem, by row ids and the arch (its index
/// in LayerReader::arch_ids): failed rows rule out the same configuration's
/// successes without building text per row.
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

/// One verified result row, as much as ranking it needs. Under energy and
/// edp, only results with a positive energy_j are picked.
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

/// Keeps `pick` if it is among the best kCandidatesPerEntry configurations
/// of `picks` under `o`, one row per configuration (its best).
void keep_if_among_best(std::vector<Pick>& picks, const Pick& pick, Objective o) {
  auto same = std::find_if(picks.begin(), picks.end(),
                           [&](const Pick& p) { return p.config_id == pick.config_id; });
  if (same != picks.end()) {
    if (pick.before(*same, o)) *same = pick;
  } else if (picks.size() < lookup_detail::kCandidatesPerEntry) {
    picks.push_back(pick);
  } else {
    auto worst = std::max_element(picks.begin(), picks.end(),
                                  [o](const Pick& a, const Pick& b) { return a.before(b, o); });
    if (pick.before(*worst, o)) *worst = pick;
  }
}

/// The results of one family version on one GPU for one problem.
struct Group {
  std::int64_t family_id;
  const DeviceRow* device;
  std::int64_t problem_id;
  std::array<std::vector<Pick>, std::size(kObjectives)> picks;  // per objective (index_of)
};
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

/// Reads one database into a new layer; what the index keeps across layers
/// (GPU names and archs, current hashes, failures, warnings) goes to `impl`.
class LayerReader {
 public:
  LayerReader(Lookup::Impl& impl, SQLite::Database& db, const std::string& path)
      : impl_(impl), db_(db), path_(path) {}

  Layer read() {
    read_devices();
    read_families();
    read_problems();
    read_failures();
    pick_results();
    Layer layer;
    layer.path = path_;
    SQLite::Statement detail(
        db_, std::string("SELECT c.json, c.key, ") + kResultColumns +
                 " FROM results r JOIN configs c ON c.id = r.config_id WHERE r.id = ?");
    for (auto& [unused, g] : groups_) index_group(g, detail, layer);
    sort_class_groups(layer);
    return layer;
  }

 private:
  void read_devices() {
    SQLite::Statement q(db_, "SELECT id, name, arch FROM devices");
    while (q.executeStep()) {
      std::string name = q.getColumn(1).getString();
      devices_[q.getColumn(0).getInt64()] = {name, q.getColumn(2).getString(),
                                             impl_.index_of_device(name)};
      impl_.device_arch.emplace(q.getColumn(1).getString(), q.getColumn(2).getString());
    }
  }

  /// Each family version, and per family the hash of its newest result.
  void read_families() {
    SQLite::Statement q(
        db_,
        "SELECT f.id, f.name, f.source_hash, "
        "(SELECT max(measured_at) FROM results r WHERE r.family_id = f.id) FROM families f");
    while (q.executeStep()) {
      FamilyRow row{q.getColumn(1).getString(), q.getColumn(2).getString()};
      std::string newest = q.getColumn(3).isNull() ? "" : q.getColumn(3).getString();
      auto& t = impl_.newest_time[row.name];
      if (!newest.empty() && newest > t) {
        t = newest;
        impl_.current_hash[row.name] = row.hash;
      }
      families_[q.getColumn(0).getInt64()] = std::move(row);
    }
  }

  void read_problems() {
    SQLite::Statement q(db_, "SELECT id, key, json, shape_class, shape_keys FROM problems");
    while (q.executeStep())
      problems_[q.getColumn(0).getInt64()] = {
          q.getColumn(1).getString(), q.getColumn(2).getString(), q.getColumn(3).getString(),
          q.getColumn(4).getString()};
  }

  // Configurations with a failed result, per arch and problem: skipped here
  // so that the kept candidates are usable ones, and remembered for every
  // layer (a failure in one layer also rules out another layer's success).
  void read_failures() {
    SQLite::Statement q(db_,
                        "SELECT r.device_id, r.family_id, r.problem_id, r.config_id, c.key "
                        "FROM results r JOIN configs c ON c.id = r.config_id "
                        "WHERE r.status <> 'ok'");
    while (q.executeStep()) {
      const auto& dev = devices_.at(q.getColumn(0).getInt64());
      const auto& fam = families_.at(q.getColumn(1).getInt64());
      const auto& prob = problems_.at(q.getColumn(2).getInt64());
      impl_.failed.insert(Lookup::Impl::failed_key(fam.name, fam.hash, dev.arch, prob.key,
                                                   q.getColumn(4).getString()));
      failed_ids_.insert({arch_id(dev.arch), q.getColumn(1).getInt64(), q.getColumn(2).getInt64(),
                          q.getColumn(3).getInt64()});
    }
  }

  /// The fastest verified configurations per (family, GPU, problem), in the
  /// order of result_order.hpp, and under energy and edp the lowest.
  void pick_results() {
    // Energy, noisy mark and validity of the metrics: kept per row since
    // schema version 3 (parsing 7.8 MB of metrics JSON was most of an open);
    // parsed here for a row that lacks them and in an older file.
    const bool kept = db_.tableExists("result_lookup_metrics");
    auto from_metrics = [&](const std::string& kept_column, const std::string& parsed) {
      return kept ? "(CASE WHEN m.result_id IS NULL THEN " + parsed + " ELSE m." + kept_column +
                        " END)"
                  : parsed;
    };
    SQLite::Statement q(
        db_,
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
        impl_.skip_row(path_, row_id, "its metrics are not JSON that SQLite can read");
        continue;
      }
      const auto& dev = devices_.at(q.getColumn(1).getInt64());
      std::int64_t family_id = q.getColumn(2).getInt64();
      std::int64_t problem_id = q.getColumn(3).getInt64();
      std::int64_t config_id = q.getColumn(4).getInt64();
      if (!failed_ids_.empty() &&
          failed_ids_.count({arch_id(dev.arch), family_id, problem_id, config_id}))
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
      auto [it, fresh] = groups_.try_emplace(GroupKey{dev.index, family_id, problem_id});
      Group& g = it->second;
      if (fresh) {
        g.family_id = family_id;
        g.device = &dev;
        g.problem_id = problem_id;
      }
      for (Objective o : kObjectives)
        if (o == Objective::time || pick.energy_j != 0)
          keep_if_among_best(g.picks[index_of(o)], pick, o);
    }
  }

  /// The group as an entry of the layer, its picks read whole, best first.
  void index_group(Group& g, SQLite::Statement& detail, Layer& layer) {
    const auto& fam = families_.at(g.family_id);
    auto e = entry_of(g);
    // One answer per result row, shared by the objectives that picked it.
    std::unordered_map<std::int64_t, std::shared_ptr<const LookupAnswer>> answers;
    for (Objective o : kObjectives) {
      std::vector<Pick>& picks = g.picks[index_of(o)];
      std::sort(picks.begin(), picks.end(),
                [o](const Pick& a, const Pick& b) { return a.before(b, o); });
      for (const Pick& p : picks) {
        auto [it, fresh] = answers.try_emplace(p.row_id);
        if (fresh) it->second = read_answer(p.row_id, detail, *e, fam.hash);
        if (it->second) e->candidates[index_of(o)].push_back(it->second);
      }
    }
    file_entry(std::move(e), fam, layer.families[{fam.name, fam.hash}]);
  }

  std::unique_ptr<Entry> entry_of(const Group& g) const {
    const auto& prob = problems_.at(g.problem_id);
    auto e = std::make_unique<Entry>();
    e->device_index = g.device->index;
    e->device = g.device->name;
    e->arch = g.device->arch;
    e->arch_num = lookup_detail::arch_number(e->arch);
    e->problem_key = prob.key;
    e->problem = ValueMap::from_json(nlohmann::json::parse(prob.json));
    e->shape_keys = split_names(prob.shape_keys);
    e->shape_class = prob.shape_class;
    e->log_shape = lookup_detail::log_shape_of(e->problem, e->shape_keys);
    return e;
  }

  /// A result row read whole as a measured answer of `e`; null, with one
  /// warning, where it cannot be read.
  std::shared_ptr<const LookupAnswer> read_answer(std::int64_t row_id, SQLite::Statement& detail,
                                                  const Entry& e, const std::string& hash) {
    detail.reset();
    detail.bind(1, row_id);
    if (!detail.executeStep()) return nullptr;
    auto a = std::make_shared<LookupAnswer>();
    try {
      a->config = ValueMap::from_json(nlohmann::json::parse(detail.getColumn(0).getString()));
      read_result(detail, 2, a->result, a->provenance);
    } catch (const std::exception& ex) {
      impl_.skip_row(path_, row_id, ex.what());
      return nullptr;
    }
    a->config_key = detail.getColumn(1).getString();
    a->result.config = a->config;
    a->measured_device = e.device;
    a->measured_arch = e.arch;
    a->measured_problem = e.problem;
    a->family_hash = hash;
    a->database = path_;
    return a;
  }

  /// Files the entry under its problem and its class group, and notes what
  /// requests without a hash or a shape class are resolved by.
  void file_entry(std::unique_ptr<Entry> e, const FamilyRow& fam, FamilyIndex& fi) {
    if (fi.shape_keys.empty()) fi.shape_keys = e->shape_keys;
    fi.by_problem[e->problem_key].push_back(e.get());
    for (const auto& c : e->candidates[index_of(Objective::time)]) {
      auto& newest =
          impl_.newest_by_class[Lookup::Impl::class_key(fam.name, e->shape_class, e->arch)];
      if (c->provenance.measured_at > newest.first) newest = {c->provenance.measured_at, fam.hash};
    }
    if (!e->shape_keys.empty()) impl_.family_shape_keys.try_emplace(fam.name, e->shape_keys);
    impl_.problem_class.try_emplace(Lookup::Impl::problem_class_key(fam.name, e->problem_key),
                                    e->shape_class);
    auto& group = fi.by_class_arch[lookup_detail::class_arch_key(e->shape_class, e->arch)];
    if (group.list.empty()) group.shape_keys = e->shape_keys;
    if (e->shape_keys != group.shape_keys || e->log_shape.size() != e->shape_keys.size())
      group.uniform = false;
    group.list.push_back(e.get());
    fi.entries.push_back(std::move(e));
    ++impl_.entry_count;
  }

  /// Each class group by its entries' first coordinate (those without a
  /// shape at the end), for the nearest tier's outward walk.
  static void sort_class_groups(Layer& layer) {
    for (auto& [unused, fi] : layer.families)
      for (auto& [unused2, group] : fi.by_class_arch)
        std::stable_sort(group.list.begin(), group.list.end(), [](const Entry* a, const Entry* b) {
          if (a->log_shape.empty() != b->log_shape.empty()) return b->log_shape.empty();
          if (a->log_shape.empty()) return false;
          return a->log_shape[0] < b->log_shape[0];
        });
  }

  int arch_id(const std::string& arch) {
    return arch_ids_.try_emplace(arch, static_cast<int>(arch_ids_.size())).first->second;
  }

  Lookup::Impl& impl_;
  SQLite::Database& db_;
  const std::string& path_;
  std::unordered_map<std::int64_t, DeviceRow> devices_;
  std::unordered_map<std::int64_t, FamilyRow> families_;
  std::unordered_map<std::int64_t, ProblemRow> problems_;
  std::unordered_map<std::string, int> arch_ids_;
  std::unordered_set<FailedKey, FailedKeyHash> failed_ids_;
  std::unordered_map<GroupKey, Group, GroupKeyHash> groups_;
};

}  // namespace

void Lookup::Impl::load(const std::string& path) {
  Store store = Store::open_read_only(path);
  layers.push_back(LayerReader(*this, store.impl().db, path).read());
}

}  // namespace ktune
