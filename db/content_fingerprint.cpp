// content_fingerprint: the rows a derived model reads, hashed in id order.
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
    for (const char* sql : {
             "SELECT id, name, arch, spec FROM devices ORDER BY id",
             "SELECT id, name, source_hash FROM families ORDER BY id",
             "SELECT id, family, json, shape_class, shape_keys FROM problems ORDER BY id",
             "SELECT id, json FROM configs ORDER BY id",
             "SELECT id, device_id, family_id, problem_id, config_id, status, median_s "
             "FROM results ORDER BY id",
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
