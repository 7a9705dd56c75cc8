// Store: opening (checks, WAL, migrations), recording batches, reading results.
#include "db/store.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "db/cache_dir.hpp"
#include "db/result_order.hpp"
#include "db/schema.hpp"
#include "db/store_impl.hpp"
#include "space/value_map.hpp"

namespace ktune {
namespace {

std::string device_cache_key(const DeviceSpec& d) {
  return d.name + '\x1f' + d.arch() + '\x1f' + std::to_string(d.sm_count) + '\x1f' + d.driver +
         '\x1f' + d.cuda_runtime;
}

// A shipped database in a read-only folder cannot grow a -shm file: SQLite's
// immutable mode reads it without any lock or side file.
std::string read_only_uri(const std::string& path) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
      uri += buf;
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

bool folder_writable(const std::string& path) {
  auto parent = std::filesystem::absolute(path).parent_path();
  return ::access(parent.c_str(), W_OK) == 0 && ::access(path.c_str(), W_OK) == 0;
}

/// Which version of a file is on disk: device, inode, size, modification and
/// change times ("absent" where there is none); empty where the file changed in
/// the last 2 s, since a file's times move in clock ticks of a few milliseconds
/// and a change within the same tick would leave them as they were.
std::string file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "absent";
  if (std::max(st.st_mtim.tv_sec, st.st_ctim.tv_sec) + 2 > std::time(nullptr)) return "";
  return std::to_string(st.st_dev) + ':' + std::to_string(st.st_ino) + ':' +
         std::to_string(st.st_size) + ':' + std::to_string(st.st_mtim.tv_sec) + '.' +
         std::to_string(st.st_mtim.tv_nsec) + ':' + std::to_string(st.st_ctim.tv_sec) + '.' +
         std::to_string(st.st_ctim.tv_nsec);
}

/// The marker a passed integrity check leaves in the cache folder, named by
/// the file's path and identity: a later process reading the same unchanged
/// file skips the check. Any change (a write moves the times, a replacement
/// the inode) names another marker.
std::filesystem::path integrity_marker(const std::string& path, const std::string& identity) {
  std::error_code ec;
  const std::string absolute = std::filesystem::absolute(path, ec).string();
  return std::filesystem::path(default_cache_dir()) / "db-integrity" /
         stable_hash_hex((ec ? path : absolute) + '|' + identity);
}

/// inspect_file for a read-only open, with its integrity check done once per
/// file unchanged since (itself and its -wal): once per process, and once
/// across processes through a marker in the cache folder. `ktune lookup`
/// opens each database twice (its index, then the predictor's fingerprint),
/// and the check reads the whole file, 7 ms of the shipped 11 MB. A refused
/// file is never remembered, nor one that changed just before (file_identity).
FileInspection inspect_for_reading(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::pair<std::string, FileInspection>> passed;
  const std::string file = file_identity(path), wal = file_identity(path + "-wal");
  if (file.empty() || wal.empty()) return inspect_file(path);
  const std::string identity = file + '|' + wal;
  {
    std::lock_guard lock(mutex);
    if (auto it = passed.find(path); it != passed.end() && it->second.first == identity)
      return it->second.second;
  }
  const std::filesystem::path marker = integrity_marker(path, identity);
  std::error_code ec;
  const bool checked_before = std::filesystem::exists(marker, ec);
  FileInspection inspection = inspect_file(path, checked_before);
  if (!checked_before && inspection.exists_with_content) {
    // Best effort: a cache that cannot be written only costs the next process the check.
    std::filesystem::create_directories(marker.parent_path(), ec);
    std::ofstream(marker) << path << '\n';
  }
  std::lock_guard lock(mutex);
  passed[path] = {identity, inspection};
  return inspection;
}

}  // namespace

std::string measurement_time_now() {
  static std::atomic<std::int64_t> last{0};
  std::int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  std::int64_t prev = last.load();
  while (true) {
    std::int64_t next = std::max(now, prev + 1);
    if (last.compare_exchange_weak(prev, next)) {
      now = next;
      break;
    }
  }
  std::time_t seconds = static_cast<std::time_t>(now / 1000000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<long long>(now % 1000000));
  return buf;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    if (comma > pos) out.push_back(text.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}

std::string derived_shape_class(const Problem& p, const std::vector<std::string>& shape_keys) {
  Problem rest = p;
  for (const auto& k : shape_keys) rest.erase(k);
  return rest.key();
}

void read_result(SQLite::Statement& row, int first, Result& r, Provenance& p) {
  int c = first;
  r.status = status_from_string(row.getColumn(c++).getString());
  r.time.median_s = row.getColumn(c++).getDouble();
  r.time.min_s = row.getColumn(c++).getDouble();
  r.time.max_s = row.getColumn(c++).getDouble();
  r.time.spread = row.getColumn(c++).getDouble();
  r.time.repetitions = row.getColumn(c++).getInt();
  r.tflops = row.getColumn(c++).getDouble();
  r.gbps = row.getColumn(c++).getDouble();
  r.error = row.getColumn(c++).getDouble();
  r.max_abs_error = row.getColumn(c++).getDouble();
  auto det = row.getColumn(c++);
  r.deterministic = det.isNull() ? std::nullopt : std::optional<bool>(det.getInt() != 0);
  r.message = row.getColumn(c++).getString();
  r.metrics = nlohmann::json::parse(row.getColumn(c++).getString());
  p.host = row.getColumn(c++).getString();
  p.tool_version = row.getColumn(c++).getString();
  p.source = row.getColumn(c++).getString();
  p.measured_at = row.getColumn(c++).getString();
}

// ---- Impl: ids by natural key -------------------------------------------------

// The five fields that identify a device row, bound as parameters 1..5 in the
// order of the devices table's identity columns (insert and lookup share it).
static void bind_device_identity(SQLite::Statement& st, const DeviceSpec& d) {
  st.bind(1, d.name);
  st.bind(2, d.arch());
  st.bind(3, d.sm_count);
  st.bind(4, d.driver);
  st.bind(5, d.cuda_runtime);
}

std::int64_t Store::Impl::device_id(const DeviceSpec& d) {
  std::string key = device_cache_key(d);
  if (auto it = device_ids.find(key); it != device_ids.end()) return it->second;
  SQLite::Statement ins(db,
                        "INSERT INTO devices (name, arch, sm_count, driver, cuda_version, spec) "
                        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
  bind_device_identity(ins, d);
  ins.bind(6, d.to_json().dump());
  ins.exec();
  auto id = find_device(d);
  if (!id) throw DatabaseError("device '" + d.name + "' was not stored");
  device_ids.emplace(key, *id);
  return *id;
}

std::optional<std::int64_t> Store::Impl::find_device(const DeviceSpec& d) const {
  SQLite::Statement q(const_cast<SQLite::Database&>(db),
                      "SELECT id FROM devices WHERE name = ? AND arch = ? AND sm_count = ? AND "
                      "driver = ? AND cuda_version = ?");
  bind_device_identity(q, d);
  if (q.executeStep()) return q.getColumn(0).getInt64();
  return std::nullopt;
}

std::int64_t Store::Impl::family_id(const std::string& family, const std::string& hash) {
  std::string key = family + '\x1f' + hash;
  if (auto it = family_ids.find(key); it != family_ids.end()) return it->second;
  SQLite::Statement ins(
      db, "INSERT INTO families (name, source_hash) VALUES (?, ?) ON CONFLICT DO NOTHING");
  ins.bind(1, family);
  ins.bind(2, hash);
  ins.exec();
  auto id = find_family(family, hash);
  if (!id) throw DatabaseError("family '" + family + "' was not stored");
  family_ids.emplace(key, *id);
  return *id;
}

std::optional<std::int64_t> Store::Impl::find_family(const std::string& family,
                                                     const std::string& hash) const {
  SQLite::Statement q(const_cast<SQLite::Database&>(db),
                      "SELECT id FROM families WHERE name = ? AND source_hash = ?");
  q.bind(1, family);
  q.bind(2, hash);
  if (q.executeStep()) return q.getColumn(0).getInt64();
  return std::nullopt;
}

std::int64_t Store::Impl::problem_id(const RunKey& key) {
  std::string pkey = key.problem.key();
  std::string cache = key.family + '\x1f' + pkey;
  if (auto it = problem_ids.find(cache); it != problem_ids.end()) return it->second;
  std::string shape_class =
      key.shape_class.empty() ? derived_shape_class(key.problem, key.shape_keys) : key.shape_class;
  SQLite::Statement ins(db,
                        "INSERT INTO problems (family, key, json, shape_class, shape_keys) "
                        "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
  ins.bind(1, key.family);
  ins.bind(2, pkey);
  ins.bind(3, key.problem.to_json().dump());
  ins.bind(4, shape_class);
  ins.bind(5, join_names(key.shape_keys));
  ins.exec();
  // A problem first stored without shape information learns it later.
  if (!key.shape_keys.empty() || !key.shape_class.empty()) {
    SQLite::Statement upd(db,
                          "UPDATE problems SET shape_class = ?, shape_keys = ? "
                          "WHERE family = ? AND key = ? AND shape_keys = '' AND ? <> ''");
    upd.bind(1, shape_class);
    upd.bind(2, join_names(key.shape_keys));
    upd.bind(3, key.family);
    upd.bind(4, pkey);
    upd.bind(5, join_names(key.shape_keys));
    upd.exec();
  }
  auto id = find_problem(key.family, key.problem);
  if (!id) throw DatabaseError("problem '" + pkey + "' was not stored");
  problem_ids.emplace(cache, *id);
  return *id;
}

std::optional<std::int64_t> Store::Impl::find_problem(const std::string& family,
                                                      const Problem& p) const {
  SQLite::Statement q(const_cast<SQLite::Database&>(db),
                      "SELECT id FROM problems WHERE family = ? AND key = ?");
  q.bind(1, family);
  q.bind(2, p.key());
  if (q.executeStep()) return q.getColumn(0).getInt64();
  return std::nullopt;
}

std::int64_t Store::Impl::config_id(const Config& c) {
  std::string key = c.key();
  if (auto it = config_ids.find(key); it != config_ids.end()) return it->second;
  SQLite::Statement ins(db, "INSERT INTO configs (key, json) VALUES (?, ?) ON CONFLICT DO NOTHING");
  ins.bind(1, key);
  ins.bind(2, c.to_json().dump());
  ins.exec();
  SQLite::Statement q(db, "SELECT id FROM configs WHERE key = ?");
  q.bind(1, key);
  if (!q.executeStep()) throw DatabaseError("configuration '" + key + "' was not stored");
  std::int64_t id = q.getColumn(0).getInt64();
  config_ids.emplace(std::move(key), id);
  return id;
}

bool Store::Impl::insert_row(std::int64_t device, std::int64_t family, std::int64_t problem,
                             const Result& r, const Provenance& p, const std::string& measured_at) {
  std::int64_t config = config_id(r.config);
  if (!insert_result)
    insert_result.emplace(
        db,
        "INSERT INTO results (device_id, family_id, problem_id, config_id, status, median_s, "
        "min_s, max_s, spread, repetitions, tflops, gbps, error, max_abs_error, deterministic, "
        "message, metrics, host, tool_version, source, measured_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT DO NOTHING");
  SQLite::Statement& s = *insert_result;
  s.reset();
  s.clearBindings();
  s.bind(1, device);
  s.bind(2, family);
  s.bind(3, problem);
  s.bind(4, config);
  s.bind(5, std::string(to_string(r.status)));
  s.bind(6, r.time.median_s);
  s.bind(7, r.time.min_s);
  s.bind(8, r.time.max_s);
  s.bind(9, r.time.spread);
  s.bind(10, r.time.repetitions);
  s.bind(11, r.tflops);
  s.bind(12, r.gbps);
  s.bind(13, r.error);
  s.bind(14, r.max_abs_error);
  if (r.deterministic)
    s.bind(15, *r.deterministic ? 1 : 0);
  else
    s.bind(15);
  s.bind(16, r.message);
  s.bind(17, r.metrics.dump());
  s.bind(18, p.host);
  s.bind(19, p.tool_version);
  s.bind(20, p.source);
  s.bind(21, measured_at);
  return s.exec() > 0;
}

void Store::Impl::forget_ids() {
  device_ids.clear();
  family_ids.clear();
  problem_ids.clear();
  config_ids.clear();
}

// `PRAGMA data_version` changes whenever another connection (another Store,
// another process) commits, and only then: a cheap, exact "someone else
// wrote" signal that needs no schema change and also covers deletions by
// tools that know nothing of these caches (an older ktune, the sqlite3
// shell). A generation counter bumped by prunes would keep the caches across
// other writers' inserts, but only prunes that remember to bump it would be
// seen. Dropping the caches costs one SELECT per id the next batch resolves.
void Store::Impl::forget_ids_if_changed_elsewhere() {
  const std::int64_t version = db.execAndGet("PRAGMA data_version").getInt64();
  if (seen_data_version != version) forget_ids();
  seen_data_version = version;
}

// ---- Store --------------------------------------------------------------------

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

Store Store::open(const std::string& path) {
  const bool in_memory = path == ":memory:";
  // Every check reads only: a file refused here is left byte-for-byte as it was.
  const FileInspection file = in_memory ? FileInspection{} : inspect_file(path);
  try {
    return retry_while_busy([&] {
      SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, kBusyTimeoutMs);
      db.exec("PRAGMA synchronous = NORMAL");
      db.exec("PRAGMA foreign_keys = ON");
      // A new file has nothing to keep: WAL first, so that processes creating
      // it together serialise on WAL's locks. A file with content is switched
      // to WAL only once its migration (one transaction) has committed: a
      // migration that fails rolls back and leaves the file as it was.
      if (!in_memory && !file.exists_with_content) db.exec("PRAGMA journal_mode = WAL");
      try {
        migrate(db, kSchemaVersion);
      } catch (const SQLite::Exception& e) {
        if ((e.getErrorCode() & 0xff) == SQLITE_BUSY || (e.getErrorCode() & 0xff) == SQLITE_LOCKED)
          throw;
        throw DatabaseError("cannot migrate '" + path + "' from schema version " +
                            std::to_string(file.version) + " to " + std::to_string(kSchemaVersion) +
                            " (" + e.what() +
                            "): its schema is not what its version says; file left untouched");
      }
      if (!in_memory && file.exists_with_content) db.exec("PRAGMA journal_mode = WAL");
      return Store(std::make_unique<Impl>(path, false, std::move(db)));
    });
  } catch (const SQLite::Exception& e) {
    throw DatabaseError("cannot open '" + path + "' for writing: " + e.what());
  }
}

Store Store::open_read_only(const std::string& path) {
  check_database_path(path);
  if (!std::filesystem::exists(path)) throw DatabaseError("no tuning database at '" + path + "'");
  // Decided before anything else reads the file: in a read-only folder a
  // leftover -wal or -journal is refused, never silently left unread.
  const ReadOnlyAccess access = read_only_access(path, folder_writable(path));
  FileInspection file = inspect_for_reading(path);
  if (!file.exists_with_content)
    throw DatabaseError("'" + path + "' is empty, not a tuning database");
  if (file.version < kOldestReadableSchemaVersion)
    throw DatabaseError("'" + path + "' has schema version " + std::to_string(file.version) +
                        ", older than this build's " + std::to_string(kSchemaVersion) +
                        "; upgrade it with `ktune db migrate " + path + "`");
  try {
    if (access == ReadOnlyAccess::shared) {
      SQLite::Database db(path, SQLite::OPEN_READONLY, kBusyTimeoutMs);
      return Store(std::make_unique<Impl>(path, true, std::move(db)));
    }
    SQLite::Database db(read_only_uri(path), SQLite::OPEN_READONLY | SQLite::OPEN_URI);
    return Store(std::make_unique<Impl>(path, true, std::move(db)));
  } catch (const SQLite::Exception& e) {
    throw DatabaseError("cannot open '" + path + "' read-only: " + e.what());
  }
}

std::int64_t checkpoint_for_shipping(const std::string& path) {
  check_database_path(path);
  if (!std::filesystem::exists(path)) throw DatabaseError("no tuning database at '" + path + "'");
  Store store = Store::open(path);
  SQLite::Database& db = store.impl().db;
  try {
    // TRUNCATE: every frame copied back and the log emptied, or busy = 1
    // when another connection's reads or writes kept frames from it.
    SQLite::Statement checkpoint(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    checkpoint.executeStep();
    if (checkpoint.getColumn(0).getInt() != 0)
      throw DatabaseError("cannot checkpoint '" + path +
                          "': another process is using it; try again when it is done");
    checkpoint.reset();
    // Leaving WAL needs the only connection; SQLite answers the mode it is in.
    const std::string mode = db.execAndGet("PRAGMA journal_mode = DELETE").getString();
    if (mode != "delete")
      throw DatabaseError("cannot leave WAL mode in '" + path + "' (still " + mode +
                          "): another process has it open; try again when it is done");
    return store.result_count();
  } catch (const SQLite::Exception& e) {
    throw DatabaseError("cannot checkpoint '" + path + "': " + e.what());
  }
}

void Store::record(const RunKey& key, std::span<const Result> results,
                   const Provenance& provenance) {
  write_or_rollback(*impl_, true, "record results in", [&] {
    std::int64_t device = impl_->device_id(key.device);
    std::int64_t family = impl_->family_id(key.family, key.family_hash);
    std::int64_t problem = impl_->problem_id(key);
    for (const Result& r : results) {
      std::string when =
          provenance.measured_at.empty() ? measurement_time_now() : provenance.measured_at;
      impl_->insert_row(device, family, problem, r, provenance, when);
    }
  });
}

std::int64_t Store::insert(std::span<const Measurement> measurements) {
  std::int64_t added = 0;
  write_or_rollback(*impl_, true, "insert into", [&] {
    for (const Measurement& m : measurements) {
      if (m.provenance.measured_at.empty())
        throw DatabaseError("a measurement of '" + m.key.family + "' has no time");
      std::int64_t device = impl_->device_id(m.key.device);
      std::int64_t family = impl_->family_id(m.key.family, m.key.family_hash);
      std::int64_t problem = impl_->problem_id(m.key);
      if (impl_->insert_row(device, family, problem, m.result, m.provenance,
                            m.provenance.measured_at))
        ++added;
    }
  });
  return added;
}

std::vector<Result> Store::results(const RunKey& key) const {
  std::vector<Result> out;
  auto device = impl_->find_device(key.device);
  auto family = impl_->find_family(key.family, key.family_hash);
  auto problem = impl_->find_problem(key.family, key.problem);
  if (!device || !family || !problem) return out;
  SQLite::Statement q(impl_->db,
                      std::string("SELECT c.json, ") + kResultColumns +
                          " FROM results r JOIN configs c ON c.id = r.config_id "
                          "WHERE r.device_id = ? AND r.family_id = ? AND r.problem_id = ? "
                          "ORDER BY c.key, r.measured_at DESC");
  q.bind(1, *device);
  q.bind(2, *family);
  q.bind(3, *problem);
  std::string last_config;
  while (q.executeStep()) {
    std::string json = q.getColumn(0).getString();
    if (!out.empty() && json == last_config) continue;  // an older measurement
    Result r;
    Provenance p;
    r.config = ValueMap::from_json(nlohmann::json::parse(json));
    read_result(q, 1, r, p);
    last_config = std::move(json);
    out.push_back(std::move(r));
  }
  return out;
}

std::optional<Result> Store::best(const RunKey& key) const {
  auto device = impl_->find_device(key.device);
  auto family = impl_->find_family(key.family, key.family_hash);
  auto problem = impl_->find_problem(key.family, key.problem);
  if (!device || !family || !problem) return std::nullopt;
  // Ranked as every "best" is (result_order.hpp): a noisy result at the slow end of its spread.
  SQLite::Statement q(impl_->db,
                      std::string("SELECT json, ") + kResultColumns +
                          " FROM (SELECT c.json AS json, c.key AS config_key, " + kNoisySql +
                          " AS noisy, r.* FROM results r JOIN configs c ON c.id = r.config_id "
                          "WHERE r.device_id = ?1 AND r.family_id = ?2 AND r.problem_id = ?3 "
                          "AND r.status = 'ok' AND r.config_id NOT IN ("
                          "  SELECT config_id FROM results WHERE device_id = ?1 AND family_id = ?2 "
                          "  AND problem_id = ?3 AND status = 'wrong_result')) r ORDER BY " +
                          kResultRankSql + " LIMIT 1");
  q.bind(1, *device);
  q.bind(2, *family);
  q.bind(3, *problem);
  if (!q.executeStep()) return std::nullopt;
  Result r;
  Provenance p;
  r.config = ValueMap::from_json(nlohmann::json::parse(q.getColumn(0).getString()));
  read_result(q, 1, r, p);
  return r;
}

void Store::for_each(const std::function<bool(const Measurement&)>& visit,
                     const std::string& measured_since) const {
  SQLite::Statement q(impl_->db,
                      std::string("SELECT d.spec, f.name, f.source_hash, p.json, p.shape_class, "
                                  "p.shape_keys, c.json, ") +
                          kResultColumns +
                          " FROM results r JOIN devices d ON d.id = r.device_id "
                          "JOIN families f ON f.id = r.family_id "
                          "JOIN problems p ON p.id = r.problem_id "
                          "JOIN configs c ON c.id = r.config_id "
                          "WHERE r.measured_at >= ? "
                          "ORDER BY f.name, f.source_hash, d.name, d.id, p.key, c.key, "
                          "r.measured_at, r.source, r.host");
  q.bind(1, measured_since);
  Measurement m;
  while (q.executeStep()) {
    m.key.device = DeviceSpec::from_json(nlohmann::json::parse(q.getColumn(0).getString()));
    m.key.family = q.getColumn(1).getString();
    m.key.family_hash = q.getColumn(2).getString();
    m.key.problem = ValueMap::from_json(nlohmann::json::parse(q.getColumn(3).getString()));
    m.key.shape_class = q.getColumn(4).getString();
    m.key.shape_keys = split_names(q.getColumn(5).getString());
    m.result = Result{};
    m.result.config = ValueMap::from_json(nlohmann::json::parse(q.getColumn(6).getString()));
    read_result(q, 7, m.result, m.provenance);
    if (!visit(m)) return;
  }
}

std::vector<StaleSummary> Store::stale(const std::string& family,
                                       const std::string& current_hash) const {
  std::vector<StaleSummary> out;
  if (!family.empty()) {
    SQLite::Statement q(
        impl_->db,
        "SELECT f.name, f.source_hash, count(r.id) FROM families f "
        "JOIN results r ON r.family_id = f.id WHERE f.name = ? AND f.source_hash <> ? "
        "GROUP BY f.id ORDER BY f.source_hash");
    q.bind(1, family);
    q.bind(2, current_hash);
    while (q.executeStep())
      out.push_back(
          {q.getColumn(0).getString(), q.getColumn(1).getString(), q.getColumn(2).getInt64()});
    return out;
  }
  // Without a current hash, the newest-measured hash of each family is current.
  SQLite::Statement q(
      impl_->db,
      "WITH per_hash AS (SELECT f.name AS name, f.source_hash AS hash, "
      "  count(r.id) AS n, max(r.measured_at) AS newest FROM families f "
      "  JOIN results r ON r.family_id = f.id GROUP BY f.id), "
      "current AS (SELECT name, max(newest) AS newest FROM per_hash GROUP BY name) "
      "SELECT p.name, p.hash, p.n FROM per_hash p JOIN current c ON c.name = p.name "
      "WHERE p.newest < c.newest ORDER BY p.name, p.hash");
  while (q.executeStep())
    out.push_back(
        {q.getColumn(0).getString(), q.getColumn(1).getString(), q.getColumn(2).getInt64()});
  return out;
}

PruneSummary Store::prune_stale(const std::string& family, const std::string& current_hash,
                                bool dry_run) {
  if (family.empty() || current_hash.empty())
    throw std::invalid_argument("prune_stale needs a family and its current template hash");
  return prune_results(*impl_, dry_run, [&] {
    return ResultSelection{
        "SELECT id FROM results WHERE family_id IN "
        "(SELECT id FROM families WHERE name = ?1 AND source_hash <> ?2)",
        [&](SQLite::Statement& st) {
          st.bind(1, family);
          st.bind(2, current_hash);
        }};
  });
}

StoreStats Store::stats() const {
  StoreStats s;
  auto count = [&](const char* table) {
    return impl_->db.execAndGet(std::string("SELECT count(*) FROM ") + table).getInt64();
  };
  s.devices = count("devices");
  s.families = count("families");
  s.problems = count("problems");
  s.configs = count("configs");
  s.results = count("results");
  auto grouped = [&](const char* sql, std::vector<std::pair<std::string, std::int64_t>>& out) {
    SQLite::Statement q(impl_->db, sql);
    while (q.executeStep()) out.emplace_back(q.getColumn(0).getString(), q.getColumn(1).getInt64());
  };
  grouped("SELECT status, count(*) FROM results GROUP BY status ORDER BY status", s.by_status);
  grouped(
      "SELECT f.name || '@' || f.source_hash, count(r.id) FROM families f "
      "JOIN results r ON r.family_id = f.id GROUP BY f.id ORDER BY 1",
      s.by_family);
  grouped(
      "SELECT d.name || ' (' || d.arch || ')', count(r.id) FROM devices d "
      "JOIN results r ON r.device_id = d.id GROUP BY d.name, d.arch ORDER BY 1",
      s.by_device);
  return s;
}

std::optional<DeviceSpec> Store::measured_ceilings(const std::string& device_name) const {
  try {
    SQLite::Statement q(impl_->db, "SELECT spec FROM devices WHERE name = ? ORDER BY id DESC");
    q.bind(1, device_name);
    while (q.executeStep()) {
      DeviceSpec spec = DeviceSpec::from_json(nlohmann::json::parse(q.getColumn(0).getString()));
      if (spec.measured_ceilings) return spec;
    }
  } catch (const std::exception& e) {
    throw DatabaseError("cannot read the ceilings of '" + device_name + "' in '" + impl_->path +
                        "': " + e.what());
  }
  return std::nullopt;
}

std::int64_t Store::set_measured_ceilings(const std::string& device_name,
                                          const DeviceSpec& ceilings) {
  if (impl_->read_only) throw DatabaseError("'" + impl_->path + "' is open read-only");
  try {
    SQLite::Transaction tx(impl_->db, SQLite::TransactionBehavior::IMMEDIATE);
    std::vector<std::pair<std::int64_t, std::string>> updated;
    SQLite::Statement q(impl_->db, "SELECT id, spec FROM devices WHERE name = ?");
    q.bind(1, device_name);
    while (q.executeStep()) {
      DeviceSpec spec = DeviceSpec::from_json(nlohmann::json::parse(q.getColumn(1).getString()));
      spec.adopt_measured_ceilings(ceilings);
      updated.emplace_back(q.getColumn(0).getInt64(), spec.to_json().dump());
    }
    SQLite::Statement upd(impl_->db, "UPDATE devices SET spec = ? WHERE id = ?");
    for (const auto& [id, json] : updated) {
      upd.bind(1, json);
      upd.bind(2, id);
      upd.exec();
      upd.reset();
    }
    tx.commit();
    return static_cast<std::int64_t>(updated.size());
  } catch (const std::exception& e) {
    throw DatabaseError("cannot store the ceilings of '" + device_name + "' in '" + impl_->path +
                        "': " + e.what());
  }
}

std::int64_t Store::result_count() const {
  return impl_->db.execAndGet("SELECT count(*) FROM results").getInt64();
}

int Store::schema_version() const { return impl_->db.execAndGet("PRAGMA user_version").getInt(); }

const std::string& Store::path() const { return impl_->path; }
bool Store::read_only() const { return impl_->read_only; }

}  // namespace ktune
