// Measured ceilings stored with a device: set, read back, kept across
// reopening, refused read-only.
#include <gtest/gtest.h>

#include "tests/db/db_test_support.hpp"

namespace ktune {
namespace {

using testing::TempDir;
using testing::datasheet_device;
using testing::synthetic_ceilings;

TEST(StoreCeilings, StoredWithTheDeviceReadBackAndKept) {
  TempDir dir;
  const std::string path = dir.file("c.db");
  const DeviceSpec device = datasheet_device();
  {
    Store store = Store::open(path);
    testing::record_one_result(store, device);
    EXPECT_FALSE(store.measured_ceilings(device.name).has_value());
    EXPECT_EQ(store.set_measured_ceilings(device.name, synthetic_ceilings()), 1);
    EXPECT_EQ(store.set_measured_ceilings("No Such GPU", synthetic_ceilings()), 0);
  }
  const Store reopened = Store::open_read_only(path);
  const auto stored = reopened.measured_ceilings(device.name);
  ASSERT_TRUE(stored.has_value());
  EXPECT_TRUE(stored->measured_ceilings);
  EXPECT_EQ(stored->dram_gbps, 4000);
  EXPECT_EQ(stored->peak_tflops_bf16, 800);
  EXPECT_EQ(stored->peak_tflops_simt_fp32, 67);  // not measured: the datasheet's stays
  EXPECT_EQ(stored->ceilings_source, "synthetic test figures");
  EXPECT_EQ(stored->sm_count, device.sm_count);  // identity and resources untouched
  EXPECT_FALSE(reopened.measured_ceilings("No Such GPU").has_value());
}

TEST(StoreCeilings, ReadOnlyStoreRefusesToSetThem) {
  TempDir dir;
  const std::string path = dir.file("c.db");
  { Store::open(path); }
  Store ro = Store::open_read_only(path);
  EXPECT_THROW(ro.set_measured_ceilings("Synthetic GPU A", synthetic_ceilings()), DatabaseError);
}

}  // namespace
}  // namespace ktune
