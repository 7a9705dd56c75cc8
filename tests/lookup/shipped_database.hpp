// Test support: the database this repository ships (tuning_db/ktune.db,
// measured on an H200) and a GPU of its arch that the device table lacks.
#pragma once

#include <string>

#include "ktune_test_paths.hpp"
#include "space/device_spec.hpp"

namespace ktune::testing {

inline const std::string kShippedDb =
    std::string(KTUNE_TEST_DATA_DIR) + "/../../tuning_db/ktune.db";

/// A PCIe-class sm_90 card the device table lacks, as a driver would report it.
inline DeviceSpec driver_only_card() {
  DeviceSpec d = *find_builtin_device("NVIDIA H100 PCIe");
  d.name = "NVIDIA H100 NVL";
  d.sm_count = 132;
  d.global_memory_bytes = 94LL * 1000 * 1000 * 1000;
  return d;
}

}  // namespace ktune::testing
