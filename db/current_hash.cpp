// Per-row freshness over a tuning database: which results are stale when the
// current template hash depends on each row's (problem, device), pruning
// them, and re-keying legacy whole-family hashes to per-row ones.
#include "db/current_hash.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "db/store_impl.hpp"

namespace ktune {
namespace {

// Results of one (family version, device, problem): the unit every decision here is made for.
struct RowGroup {
  std::int64_t family_id = 0, device_id = 0, problem_id = 0;
  std::string family, hash, device, arch;
  std::string problem_json;
  std::int64_t results = 0;
};

std::vector<RowGroup> row_groups(SQLite::Database& db, const std::string& family, const std::string& only_hash) {
  SQLite::Statement q(db,
                      "SELECT r.family_id, r.device_id, r.problem_id, f.name, f.source_hash, d.name, d.arch, "
                      "p.json, count(*) FROM results r JOIN families f ON f.id = r.family_id "
                      "JOIN devices d ON d.id = r.device_id JOIN problems p ON p.id = r.problem_id "
                      "WHERE (?1 = '' OR f.name = ?1) AND (?2 = '' OR f.source_hash = ?2) "
                      "GROUP BY r.family_id, r.device_id, r.problem_id "
                      "ORDER BY f.name, f.source_hash, r.device_id, r.problem_id");
  q.bind(1, family);
  q.bind(2, only_hash);
  std::vector<RowGroup> out;
  while (q.executeStep()) {
    RowGroup g;
    g.family_id = q.getColumn(0).getInt64();
    g.device_id = q.getColumn(1).getInt64();
    g.problem_id = q.getColumn(2).getInt64();
    g.family = q.getColumn(3).getString();
    g.hash = q.getColumn(4).getString();
    g.device = q.getColumn(5).getString();
    g.arch = q.getColumn(6).getString();
    g.problem_json = q.getColumn(7).getString();
    g.results = q.getColumn(8).getInt64();
    out.push_back(std::move(g));
  }
  return out;
}

// Per family name, the hash with the newest measurement (the rule for rows
// whose current hash is unknown).
std::unordered_map<std::string, std::string> newest_hashes(SQLite::Database& db) {
  SQLite::Statement q(db,
                      "SELECT f.name, f.source_hash, max(r.measured_at) FROM families f "
                      "JOIN results r ON r.family_id = f.id GROUP BY f.id");
  std::unordered_map<std::string, std::pair<std::string, std::string>> best;  // name -> (time, hash)
  while (q.executeStep()) {
    std::string name = q.getColumn(0).getString(), hash = q.getColumn(1).getString();
    std::string t = q.getColumn(2).isNull() ? "" : q.getColumn(2).getString();
    auto [it, fresh] = best.try_emplace(name, t, hash);
    if (!fresh && t > it->second.first) it->second = {t, hash};
  }
  std::unordered_map<std::string, std::string> out;
  for (auto& [name, th] : best) out.emplace(name, th.second);
  return out;
}

std::string current_of(const RowGroup& g, const CurrentHash& current) {
  if (!current) return "";
  return current(g.family, ValueMap::from_json(nlohmann::json::parse(g.problem_json)), g.device, g.arch);
}

std::vector<RowGroup> stale_groups(SQLite::Database& db, const std::string& family, const CurrentHash& current) {
  auto newest = newest_hashes(db);
  std::vector<RowGroup> out;
  for (auto& g : row_groups(db, family, "")) {
    std::string now = current_of(g, current);
    if (now.empty()) now = newest[g.family];
    if (g.hash != now) out.push_back(std::move(g));
  }
  return out;
}

}  // namespace

std::unordered_map<std::string, std::string> newest_measured_hashes(const Store& store) {
  return newest_hashes(store.impl().db);
}

std::vector<StaleSummary> stale_results(const Store& store, const std::string& family, const CurrentHash& current) {
  std::map<std::pair<std::string, std::string>, std::int64_t> counts;
  for (const auto& g : stale_groups(store.impl().db, family, current)) counts[{g.family, g.hash}] += g.results;
  std::vector<StaleSummary> out;
  for (const auto& [k, n] : counts) out.push_back({k.first, k.second, n});
  return out;
}

PruneSummary prune_stale_results(Store& store, const std::string& family, const CurrentHash& current,
                                 bool dry_run) {
  if (family.empty()) throw std::invalid_argument("pruning stale results needs a family");
  // Which rows are stale is decided here, in C++ (the current hash of each
  // row), so the selection names the stale groups as one JSON array bound as
  // a parameter: [[family_id, device_id, problem_id], ...].
  std::string groups;
  return prune_results(store.impl(), dry_run, [&] {
    nlohmann::json stale = nlohmann::json::array();
    for (const auto& g : stale_groups(store.impl().db, family, current))
      stale.push_back({g.family_id, g.device_id, g.problem_id});
    groups = stale.dump();
    return ResultSelection{"SELECT r.id FROM json_each(?1) g JOIN results r "
                           "ON r.family_id = json_extract(g.value, '$[0]') "
                           "AND r.device_id = json_extract(g.value, '$[1]') "
                           "AND r.problem_id = json_extract(g.value, '$[2]')",
                           [&](SQLite::Statement& st) { st.bind(1, groups); }};
  });
}

std::vector<StaleConfiguration> stale_configurations(const Store& store, const std::string& family,
                                                     const CurrentHash& current) {
  if (family.empty()) throw std::invalid_argument("listing stale configurations needs a family");
  SQLite::Database& db = store.impl().db;
  SQLite::Statement configs(db,
                            "SELECT c.json, count(*) FROM results r JOIN configs c ON c.id = r.config_id "
                            "WHERE r.family_id = ? AND r.device_id = ? AND r.problem_id = ? "
                            "GROUP BY c.id ORDER BY c.key");
  // One entry per (hash, device name and arch, problem, configuration): device
  // rows that differ only in driver or CUDA version are the same GPU here.
  std::map<std::tuple<std::string, std::string, std::string, std::string, std::string>, StaleConfiguration> merged;
  for (const auto& g : row_groups(db, family, "")) {
    const std::string now = current_of(g, current);
    if (now.empty() || now == g.hash) continue;
    const Problem problem = ValueMap::from_json(nlohmann::json::parse(g.problem_json));
    configs.bind(1, g.family_id);
    configs.bind(2, g.device_id);
    configs.bind(3, g.problem_id);
    while (configs.executeStep()) {
      Config config = ValueMap::from_json(nlohmann::json::parse(configs.getColumn(0).getString()));
      auto key = std::make_tuple(g.hash, g.device, g.arch, problem.key(), config.key());
      auto [it, fresh] = merged.try_emplace(std::move(key));
      StaleConfiguration& sc = it->second;
      if (fresh) sc = {g.family, g.hash, now, g.device, g.arch, problem, std::move(config), 0};
      sc.results += configs.getColumn(1).getInt64();
    }
    configs.reset();
  }
  std::vector<StaleConfiguration> out;
  out.reserve(merged.size());
  for (auto& [key, sc] : merged) out.push_back(std::move(sc));
  return out;
}

RekeySummary rekey_configurations(Store& store, const std::vector<StaleConfiguration>& chosen, bool dry_run) {
  Store::Impl& impl = store.impl();
  // The rows of one listed entry, found by their keys.
  static constexpr const char* kRows =
      "family_id = (SELECT id FROM families WHERE name = :family AND source_hash = :from) "
      "AND device_id IN (SELECT id FROM devices WHERE name = :device AND arch = :arch) "
      "AND problem_id = (SELECT id FROM problems WHERE family = :family AND key = :problem) "
      "AND config_id = (SELECT id FROM configs WHERE key = :config)";
  auto bind = [](SQLite::Statement& st, const StaleConfiguration& c) {
    st.bind(":family", c.family);
    st.bind(":from", c.hash);
    st.bind(":device", c.device);
    st.bind(":arch", c.arch);
    st.bind(":problem", c.problem.key());
    st.bind(":config", c.config.key());
  };
  RekeySummary s;
  write_or_rollback(impl, !dry_run, "re-key results in", [&] {
    SQLite::Statement count(impl.db, std::string("SELECT count(*) FROM results WHERE ") + kRows);
    SQLite::Statement move(impl.db, std::string("UPDATE OR IGNORE results SET family_id = :to WHERE ") + kRows);
    SQLite::Statement drop(impl.db, std::string("DELETE FROM results WHERE ") + kRows);
    for (const auto& c : chosen) {
      if (dry_run) {
        bind(count, c);
        if (count.executeStep()) s.moved += count.getColumn(0).getInt64();
        count.reset();
        continue;
      }
      bind(move, c);
      move.bind(":to", impl.family_id(c.family, c.current_hash));
      s.moved += move.exec();
      move.reset();
      // What could not move is a measurement already stored under the new
      // hash (same device, problem, configuration, source, host and time).
      bind(drop, c);
      s.duplicates += drop.exec();
      drop.reset();
    }
    // The family version the results left, once empty, goes as in a prune.
    if (!dry_run) delete_unreferenced_rows(impl);
  });
  return s;
}

RehashSummary rehash_results(Store& store, const std::string& family, const std::string& from_hash,
                             const CurrentHash& current, bool dry_run) {
  if (family.empty() || from_hash.empty())
    throw std::invalid_argument("rehash needs a family and the hash to re-key");
  if (!current) throw std::invalid_argument("rehash needs the current hash of each row");
  Store::Impl& impl = store.impl();
  RehashSummary s;
  std::map<std::string, std::int64_t> moved, others;
  write_or_rollback(impl, !dry_run, "rehash", [&] {
    for (const auto& g : row_groups(impl.db, family, ""))
      if (g.hash != from_hash) others[g.hash] += g.results;
    SQLite::Statement move(impl.db,
                           "UPDATE OR IGNORE results SET family_id = ? "
                           "WHERE family_id = ? AND device_id = ? AND problem_id = ?");
    SQLite::Statement drop(impl.db, "DELETE FROM results WHERE family_id = ? AND device_id = ? AND problem_id = ?");
    for (const auto& g : row_groups(impl.db, family, from_hash)) {
      const std::string to = current_of(g, current);
      if (to.empty()) {
        s.unknown += g.results;
        continue;
      }
      if (to == from_hash) {
        s.already_current += g.results;
        continue;
      }
      if (dry_run) {
        s.rehashed += g.results;
        moved[to] += g.results;
        continue;
      }
      move.bind(1, impl.family_id(family, to));
      move.bind(2, g.family_id);
      move.bind(3, g.device_id);
      move.bind(4, g.problem_id);
      const std::int64_t n = move.exec();
      move.reset();
      // What could not move is a measurement already stored under the new
      // hash (same device, problem, configuration, source, host and time).
      drop.bind(1, g.family_id);
      drop.bind(2, g.device_id);
      drop.bind(3, g.problem_id);
      const std::int64_t dup = drop.exec();
      drop.reset();
      s.rehashed += n;
      s.duplicates += dup;
      if (n > 0) moved[to] += n;
    }
    if (!dry_run) delete_unreferenced_rows(impl);
  });
  s.by_new_hash.assign(moved.begin(), moved.end());
  s.left_alone.assign(others.begin(), others.end());
  return s;
}

CurrentHash lenient_current_hash(CurrentHash strict,
                                 std::function<void(const std::string& why)> on_first_failure) {
  auto first = std::make_shared<std::once_flag>();
  return [strict = std::move(strict), note = std::move(on_first_failure), first](
             const std::string& family, const Problem& problem, const std::string& device,
             const std::string& arch) -> std::string {
    try {
      return strict(family, problem, device, arch);
    } catch (const std::runtime_error& e) {
      if (note) std::call_once(*first, [&] { note(e.what()); });
      return "";
    }
  };
}

}  // namespace ktune
