// A tuning job adopts the measured ceilings a database stores for its GPU
// (engine/tune_job.hpp, apply_stored_ceilings).
#include <gtest/gtest.h>

#include "engine/tune_job.hpp"
#include "tests/db/db_test_support.hpp"

namespace ktune {
namespace {

TEST(StoredCeilings, TuneJobAdoptsThemForItsGpuOnly) {
  testing::TempDir dir;
  const std::string path = dir.file("c.db");
  const DeviceSpec device = testing::datasheet_device();
  ASSERT_EQ(testing::store_synthetic_ceilings(path, device), 1);
  DeviceSpec live = device;
  apply_stored_ceilings(path, live);
  EXPECT_TRUE(live.measured_ceilings);
  EXPECT_EQ(live.dram_gbps, 4000);
  EXPECT_EQ(live.peak_tflops_bf16, 800);
  // No database yet, or none named: the datasheet stands.
  DeviceSpec untouched = device;
  apply_stored_ceilings(dir.file("absent.db"), untouched);
  apply_stored_ceilings("", untouched);
  EXPECT_FALSE(untouched.measured_ceilings);
  EXPECT_EQ(untouched.dram_gbps, 4800);
  DeviceSpec other = device;
  other.name = "Synthetic GPU B";
  apply_stored_ceilings(path, other);
  EXPECT_FALSE(other.measured_ceilings);
}

}  // namespace
}  // namespace ktune
