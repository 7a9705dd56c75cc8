// Merge: attach each input to the output and copy its rows, ids remapped by natural keys.
#include "db/merge.hpp"

#include <filesystem>

#include "db/partial_file.hpp"
#include "db/schema.hpp"
#include "db/store_impl.hpp"

namespace ktune {
namespace {

// Adds the measurements of inputs[first..] to `out` (to become `output`), one
// transaction per input.
void merge_into(Store& out, const std::string& output, const std::vector<std::string>& inputs,
                std::size_t first, MergeSummary& summary) {
  SQLite::Database& db = out.impl().db;
  try {
    db.exec("PRAGMA cache_size = -262144");  // 256 MiB: the id indexes stay in memory
    db.exec("PRAGMA temp_store = MEMORY");
    for (std::size_t i = first; i < inputs.size(); ++i) {
      const std::string& in = inputs[i];
      SQLite::Statement attach(db, "ATTACH DATABASE ? AS src");
      attach.bind(1, in);
      attach.exec();
      try {
        SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
        summary.read += db.execAndGet("SELECT count(*) FROM src.results").getInt64();
        db.exec(R"sql(
INSERT INTO main.devices (name, arch, sm_count, driver, cuda_version, spec)
  SELECT name, arch, sm_count, driver, cuda_version, spec FROM src.devices WHERE true ON CONFLICT DO NOTHING;
INSERT INTO main.families (name, source_hash)
  SELECT name, source_hash FROM src.families WHERE true ON CONFLICT DO NOTHING;
INSERT INTO main.problems (family, key, json, shape_class, shape_keys)
  SELECT family, key, json, shape_class, shape_keys FROM src.problems WHERE true
  ON CONFLICT (family, key) DO UPDATE SET shape_class = excluded.shape_class, shape_keys = excluded.shape_keys
  WHERE problems.shape_keys = '' AND excluded.shape_keys <> '';
INSERT INTO main.configs (key, json)
  SELECT key, json FROM src.configs WHERE true ON CONFLICT DO NOTHING;
CREATE TEMP TABLE map_device (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL);
CREATE TEMP TABLE map_family (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL);
CREATE TEMP TABLE map_problem (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL);
CREATE TEMP TABLE map_config (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL);
INSERT INTO map_device SELECT s.id, d.id FROM src.devices s JOIN main.devices d
  ON d.name = s.name AND d.arch = s.arch AND d.sm_count = s.sm_count AND d.driver = s.driver
  AND d.cuda_version = s.cuda_version;
INSERT INTO map_family SELECT s.id, d.id FROM src.families s JOIN main.families d
  ON d.name = s.name AND d.source_hash = s.source_hash;
INSERT INTO map_problem SELECT s.id, d.id FROM src.problems s JOIN main.problems d
  ON d.family = s.family AND d.key = s.key;
INSERT INTO map_config SELECT s.id, d.id FROM src.configs s JOIN main.configs d ON d.key = s.key;
INSERT INTO main.results (device_id, family_id, problem_id, config_id, status, median_s, min_s, max_s,
    spread, repetitions, tflops, gbps, error, max_abs_error, deterministic, message, metrics, host,
    tool_version, source, measured_at)
  SELECT md.dst, mf.dst, mp.dst, mc.dst, r.status, r.median_s, r.min_s, r.max_s, r.spread,
    r.repetitions, r.tflops, r.gbps, r.error, r.max_abs_error, r.deterministic, r.message, r.metrics,
    r.host, r.tool_version, r.source, r.measured_at
  FROM src.results r
  JOIN map_device md ON md.src = r.device_id JOIN map_family mf ON mf.src = r.family_id
  JOIN map_problem mp ON mp.src = r.problem_id JOIN map_config mc ON mc.src = r.config_id
  WHERE true ON CONFLICT DO NOTHING;
)sql");
        summary.added += db.getChanges();
        db.exec(
            "DROP TABLE temp.map_device; DROP TABLE temp.map_family; "
            "DROP TABLE temp.map_problem; DROP TABLE temp.map_config;");
        tx.commit();
      } catch (...) {
        db.exec("DETACH DATABASE src");
        throw;
      }
      db.exec("DETACH DATABASE src");
    }
    summary.output_total = out.result_count();
  } catch (const SQLite::Exception& e) {
    throw DatabaseError("cannot merge into '" + output + "': " + e.what());
  }
}

}  // namespace

MergeSummary merge_databases(const std::vector<std::string>& inputs, const std::string& output) {
  check_database_path(output);
  for (const auto& in : inputs) {
    check_database_path(in);
    if (!std::filesystem::exists(in)) throw DatabaseError("no tuning database at '" + in + "'");
    std::error_code ec;
    if (std::filesystem::equivalent(in, output, ec))
      throw DatabaseError("the output '" + output + "' is also an input");
    FileInspection f = inspect_file(in);
    // Read only: an input of an older schema that holds every merged column will do.
    if (f.exists_with_content && f.version < kOldestReadableSchemaVersion)
      throw DatabaseError("'" + in + "' has schema version " + std::to_string(f.version) +
                          "; upgrade it first with `ktune db migrate " + in + "`");
  }
  MergeSummary summary;
  remove_abandoned_partials(output);
  std::error_code ec;
  if (std::filesystem::exists(output, ec)) {
    // Added to in place: SQLite's transactions, one per input, keep it whole.
    Store out = Store::open(output);
    merge_into(out, output, inputs, 0, summary);
    return summary;
  }
  // A new output is written whole under a partial name and published only if
  // the path is still free: of merges racing to create it, one wins and the
  // others fail with nothing written; a killed merge leaves no file there.
  PartialFile partial(output);
  try {
    // It starts as a page-by-page copy of the first input: far faster than
    // re-inserting its rows, and the same contents.
    SQLite::Database src(inputs.front(), SQLite::OPEN_READONLY);
    SQLite::Statement vacuum(src, "VACUUM INTO ?");
    vacuum.bind(1, partial.path());
    vacuum.exec();
    const std::int64_t n = src.execAndGet("SELECT count(*) FROM results").getInt64();
    summary.read += n;
    summary.added += n;
  } catch (const SQLite::Exception& e) {
    throw DatabaseError("cannot copy '" + inputs.front() + "' into '" + partial.path() +
                        "': " + e.what());
  }
  {
    Store out = Store::open(partial.path());
    merge_into(out, output, inputs, 1, summary);
    try {
      out.impl().db.exec("PRAGMA journal_mode = DELETE");  // the file alone holds everything
    } catch (const SQLite::Exception& e) {
      throw DatabaseError("cannot complete '" + partial.path() + "': " + e.what());
    }
  }
  try {
    partial.publish_new();
  } catch (const std::runtime_error& e) {
    throw DatabaseError(std::string("cannot create '") + output + "': " + e.what());
  }
  return summary;
}

}  // namespace ktune
