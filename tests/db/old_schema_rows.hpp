// Test support: rows written straight into an older schema's tables, as a
// build of that version wrote them (synthetic identities, not measurements).
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

namespace ktune::testing {

/// The device and family rows every schema version wrote alike: Synthetic GPU
/// A (sm_90, 132 SMs) and gemm at "hash-current", both with id 1.
inline void insert_device_and_family_rows(SQLite::Database& db) {
  db.exec(
      "INSERT INTO devices VALUES (1, 'Synthetic GPU A', 'sm_90', 132, '580.00', '13.0', "
      "'{\"name\":\"Synthetic GPU "
      "A\",\"cc\":\"9.0\",\"sm_count\":132,\"driver\":\"580.00\",\"cuda_runtime\":\"13.0\"}')");
  db.exec("INSERT INTO families VALUES (1, 'gemm', 'hash-current')");
}

}  // namespace ktune::testing
