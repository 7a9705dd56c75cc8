// content_fingerprint: the small tables whole, checksums of the large ones.
#include "db/content_fingerprint.hpp"

#include <cstdio>

#include "db/store_impl.hpp"
#include "space/value_map.hpp"

namespace ktune {

std::string content_fingerprint(const std::string& path) {
  Store store = Store::open_read_only(path);
  SQLite::Database& db = store.impl().db;
  std::string text;
  try {
    // The small tables whole; the large ones by checksums SQLite computes in
    // one pass (no row is copied out): each result's id, device, family,
    // problem, status and median enter weighted by its id, so a changed,
    // added or removed result changes a sum. Those columns are all in the
    // index results_by_status, which SQLite scans instead of the table (a
    // result's configuration is part of its unique key: a row is never
    // pointed at another one; its id changes).
    for (const char* sql : {
             "SELECT id, name, arch, spec FROM devices ORDER BY id",
             "SELECT id, name, source_hash FROM families ORDER BY id",
             "SELECT count(*), total(id), total(length(key) * (id % 1009 + 1)), "
             "total(length(json) * (id % 997 + 1)), total(length(shape_class) * (id % 991 + 1)), "
             "total(unicode(shape_class) * id), total(length(shape_keys) * id) FROM problems",
             "SELECT count(*), total(id), total(length(key) * (id % 1009 + 1)), "
             "total(length(json) * (id % 997 + 1)), total(unicode(substr(key, -1)) * id) "
             "FROM configs",
             "SELECT count(*), total(id), total(median_s), total(median_s * (id % 1000003 + 1)), "
             "total((device_id * 1000003 + family_id) * (id % 101 + 1)), "
             "total(problem_id * (id % 1009 + 1)), total(length(status) * (id % 991 + 1)), "
             "total(unicode(status) * id) FROM results",
         }) {
      SQLite::Statement q(db, sql);
      const int columns = q.getColumnCount();
      while (q.executeStep()) {
        for (int i = 0; i < columns; ++i) {
          const SQLite::Column c = q.getColumn(i);
          // A double as its 17 significant digits: SQLite's text would round it.
          if (c.isFloat()) {
            char digits[32];
            std::snprintf(digits, sizeof digits, "%.17g", c.getDouble());
            text += digits;
          } else {
            text += c.getString();
          }
          text += '\x1f';
        }
        text += '\x1e';
      }
      text += '\x1d';
    }
  } catch (const SQLite::Exception& e) {
    throw DatabaseError("cannot read '" + path + "' for its fingerprint: " + e.what());
  }
  // Two 64-bit hashes of the same text, the second salted: 128 bits.
  return stable_hash_hex(text) + stable_hash_hex("ktune-fingerprint\x1f" + text);
}

}  // namespace ktune
