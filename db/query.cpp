// Query views: best verified configuration per problem, and the diff of two databases.
#include "db/query.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

#include "db/result_order.hpp"
#include "db/store_impl.hpp"
#include "space/device_spec.hpp"
#include "space/name_list.hpp"

namespace ktune {

std::vector<BestRow> best_per_problem(const Store& store, const BestQuery& query) {
  SQLite::Database& db = store.impl().db;
  // current: per family, the given hash, else the one with the newest measurement.
  // Never a configuration with a failed result (any status but ok) for the
  // same family version, problem and arch; ranked by result_order.hpp.
  SQLite::Statement q(db, std::string(R"sql(
WITH per_hash AS (
  SELECT f.id AS family_id, f.name AS name, f.source_hash AS hash,
         (SELECT max(measured_at) FROM results r WHERE r.family_id = f.id) AS newest
  FROM families f WHERE (?1 = '' OR f.name = ?1)),
current AS (
  SELECT p.family_id FROM per_hash p
  WHERE ?3 = '*'
     OR (?3 <> '' AND p.hash = ?3)
     OR (?3 = '' AND p.newest IS NOT NULL AND p.newest = (SELECT max(q.newest) FROM per_hash q WHERE q.name = p.name))),
failed AS (
  SELECT DISTINCT d.arch AS arch, r.family_id, r.problem_id, r.config_id
  FROM results r JOIN devices d ON d.id = r.device_id
  WHERE r.status <> 'ok' AND r.family_id IN (SELECT family_id FROM current)),
ok AS (
  SELECT d.name AS dname, d.arch AS arch, r.id AS rid, r.family_id, r.problem_id, r.config_id,
         r.median_s AS median_s, r.min_s AS min_s, r.spread AS spread, c.key AS config_key,
         r.measured_at AS measured_at, r.host AS host, r.source AS source,
         )sql") + kNoisySql + R"sql( AS noisy,
         count(*) OVER (PARTITION BY d.name, r.family_id, r.problem_id) AS n
  FROM results r JOIN devices d ON d.id = r.device_id JOIN configs c ON c.id = r.config_id
  WHERE r.status = 'ok' AND r.family_id IN (SELECT family_id FROM current)
    AND (?2 = '' OR d.name = ?2 OR d.arch = ?2)
    AND NOT EXISTS (SELECT 1 FROM failed w WHERE w.arch = d.arch AND w.family_id = r.family_id
                    AND w.problem_id = r.problem_id AND w.config_id = r.config_id)),
per_config AS (
  SELECT ok.*, row_number() OVER (PARTITION BY dname, family_id, problem_id, config_id
                                  ORDER BY )sql" +
                              kResultRankSql + R"sql(, measured_at, host, source) AS nth
  FROM ok),
ranked AS (
  SELECT per_config.*, row_number() OVER (PARTITION BY dname, family_id, problem_id
                                          ORDER BY )sql" +
                              kResultRankSql + R"sql() AS rn
  FROM per_config WHERE nth = 1)
SELECT f.name, f.source_hash, ok.dname, ok.arch, p.json, p.key, p.shape_class, p.shape_keys,
       c.json, c.key, r.median_s, r.tflops, r.gbps, ok.n, r.host, r.tool_version, r.source, r.measured_at, ok.rn,
       r.min_s, r.spread, ok.noisy
FROM ranked ok JOIN results r ON r.id = ok.rid
JOIN families f ON f.id = ok.family_id JOIN problems p ON p.id = ok.problem_id
JOIN configs c ON c.id = ok.config_id
WHERE ok.rn <= ?4
ORDER BY f.name, ok.dname, p.key, ok.rn)sql");
  q.bind(1, query.family);
  q.bind(2, query.device);
  // With a per-row current hash every version's best is read, and only the
  // rows whose version is current for them are kept (wrong results and counts
  // are per version already).
  const bool per_row = query.family_hash.empty() && query.current;
  q.bind(3, per_row ? std::string("*") : query.family_hash);
  q.bind(4, query.top);
  // family -> newest-measured hash, for rows whose current hash is unknown
  auto newest =
      per_row ? newest_measured_hashes(store) : std::unordered_map<std::string, std::string>{};
  std::vector<BestRow> out;
  while (q.executeStep()) {
    BestRow row;
    row.family = q.getColumn(0).getString();
    row.family_hash = q.getColumn(1).getString();
    row.device = q.getColumn(2).getString();
    row.arch = q.getColumn(3).getString();
    row.problem = ValueMap::from_json(nlohmann::json::parse(q.getColumn(4).getString()));
    row.problem_key = q.getColumn(5).getString();
    row.shape_class = q.getColumn(6).getString();
    row.shape_keys = split_names(q.getColumn(7).getString());
    row.config = ValueMap::from_json(nlohmann::json::parse(q.getColumn(8).getString()));
    row.config_key = q.getColumn(9).getString();
    row.median_s = q.getColumn(10).getDouble();
    row.tflops = q.getColumn(11).getDouble();
    row.gbps = q.getColumn(12).getDouble();
    row.ok_measurements = q.getColumn(13).getInt64();
    row.provenance.host = q.getColumn(14).getString();
    row.provenance.tool_version = q.getColumn(15).getString();
    row.provenance.source = q.getColumn(16).getString();
    row.provenance.measured_at = q.getColumn(17).getString();
    row.rank = q.getColumn(18).getInt();
    row.min_s = q.getColumn(19).getDouble();
    row.spread = q.getColumn(20).getDouble();
    row.noisy = q.getColumn(21).getInt() != 0;
    if (per_row) {
      std::string now = query.current(row.family, row.problem, row.device, row.arch);
      if (now.empty()) now = newest[row.family];
      if (row.family_hash != now) continue;
    }
    out.push_back(std::move(row));
  }
  return out;
}

void StoredNames::merge(const StoredNames& other) {
  for (auto [mine, theirs] :
       {std::pair{&devices, &other.devices}, std::pair{&families, &other.families}}) {
    std::vector<std::string> both;
    std::set_union(mine->begin(), mine->end(), theirs->begin(), theirs->end(),
                   std::back_inserter(both));
    *mine = std::move(both);
  }
}

StoredNames stored_names(const Store& store) {
  SQLite::Database& db = store.impl().db;
  StoredNames names;
  SQLite::Statement devices(db, "SELECT DISTINCT name FROM devices ORDER BY name");
  while (devices.executeStep()) names.devices.push_back(devices.getColumn(0).getString());
  SQLite::Statement families(db, "SELECT DISTINCT name FROM families ORDER BY name");
  while (families.executeStep()) names.families.push_back(families.getColumn(0).getString());
  return names;
}

std::string device_filter(const std::string& device, const StoredNames& stored) {
  const auto& names = stored.devices;
  if (device.empty() || std::find(names.begin(), names.end(), device) != names.end()) return device;
  // An arch as devices store it: sm_90a's results are sm_90's.
  if (std::string arch = device_key(device); arch.starts_with("sm_")) return arch;
  if (auto known = find_builtin_device(device)) return known->name;
  throw std::invalid_argument("unknown GPU '" + device +
                              "': neither in the device table nor in the database (it stores: " +
                              name_list(names) + "); pass one of them or an arch, e.g. sm_90");
}

BestDiff diff_best(const Store& a, const Store& b, const BestQuery& query) {
  using Key = std::tuple<std::string, std::string, std::string>;
  auto index = [&](const Store& s) {
    std::map<Key, BestRow> m;
    BestQuery best_only = query;  // one row per key
    best_only.top = 1;
    for (auto& row : best_per_problem(s, best_only)) {
      Key k{row.family, row.device, row.problem_key};
      m.emplace(std::move(k), std::move(row));
    }
    return m;
  };
  auto ma = index(a);
  auto mb = index(b);
  BestDiff diff;
  for (auto& [k, row] : ma) {
    auto it = mb.find(k);
    if (it == mb.end()) {
      diff.only_a.push_back(row);
    } else if (it->second.config_key != row.config_key ||
               it->second.family_hash != row.family_hash) {
      diff.changed.push_back({row, it->second});
    } else {
      ++diff.same;
    }
  }
  for (auto& [k, row] : mb)
    if (!ma.count(k)) diff.only_b.push_back(row);
  return diff;
}

nlohmann::json best_row_json(const BestRow& r) {
  return {{"family", r.family},
          {"family_hash", r.family_hash},
          {"device", r.device},
          {"arch", r.arch},
          {"problem", r.problem.to_json()},
          {"problem_key", r.problem_key},
          {"config", r.config.to_json()},
          {"config_key", r.config_key},
          {"median_s", r.median_s},
          {"min_s", r.min_s},
          {"tflops", r.tflops},
          {"gbps", r.gbps},
          {"ok_measurements", r.ok_measurements},
          {"rank", r.rank},
          {"source", r.provenance.source},
          {"host", r.provenance.host},
          {"measured_at", r.provenance.measured_at}};
}

}  // namespace ktune
