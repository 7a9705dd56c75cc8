// The GPU a lookup is asked about (cli/asked_device.hpp), by table name, name
// fragment, arch, the driver's report or this machine's GPU 0; an unknown
// name without a driver is one line naming the known ones.
#include <gtest/gtest.h>

#include "cli/asked_device.hpp"
#include "db/lookup.hpp"
#include "tests/lookup/shipped_database.hpp"

namespace ktune {
namespace {

using testing::driver_only_card;
using testing::kShippedDb;

DeviceQuery one_gpu(const DeviceSpec& spec) {
  DeviceQuery q;
  q.devices.push_back(LiveDevice{0, "0000:01:00.0", spec, 0, 0});
  return q;
}
DeviceQuery no_gpu() { return DeviceQuery{{}, "no CUDA driver on this machine"}; }

TEST(AskedDevice, ByTableNameFragmentArchDriverAndDatabase) {
  Lookup lookup = Lookup::open(kShippedDb);
  const AskedDevice pcie = resolve_asked_device("h100 pcie", lookup, no_gpu);
  EXPECT_EQ(pcie.name, "NVIDIA H100 PCIe");
  EXPECT_EQ(pcie.arch, "sm_90");
  EXPECT_EQ(pcie.spec.sm_count, 114);
  const AskedDevice arch = resolve_asked_device("sm_90", lookup, no_gpu);
  EXPECT_TRUE(arch.name.empty());
  EXPECT_EQ(arch.arch, "sm_90");
  // A card the table lacks, reported by the driver: its arch, its specs.
  const AskedDevice nvl =
      resolve_asked_device("NVIDIA H100 NVL", lookup, [] { return one_gpu(driver_only_card()); });
  EXPECT_EQ(nvl.arch, "sm_90");
  EXPECT_TRUE(nvl.from_driver);
  EXPECT_EQ(nvl.spec.sm_count, 132);
  // No --device: this machine's GPU 0 as the driver reports it.
  EXPECT_EQ(resolve_asked_device("", lookup, [] { return one_gpu(driver_only_card()); }).name,
            "NVIDIA H100 NVL");
}

TEST(AskedDevice, AnUnknownNameWithoutADriverIsOneLineNamingTheKnownOnes) {
  Lookup lookup = Lookup::open(kShippedDb);
  for (const char* name : {"NVIDIA H100 NVL", "voodoo 5"}) {
    try {
      resolve_asked_device(name, lookup, no_gpu);
      ADD_FAILURE() << name << " was accepted";
    } catch (const std::invalid_argument& e) {
      const std::string line = e.what();
      EXPECT_EQ(line.find('\n'), std::string::npos) << line;
      EXPECT_NE(line.find(name), std::string::npos) << line;
      EXPECT_NE(line.find("NVIDIA H100 PCIe"), std::string::npos) << line;
      EXPECT_NE(line.find("sm_90"), std::string::npos) << line;
    }
  }
  EXPECT_THROW(resolve_asked_device("", lookup, no_gpu), std::invalid_argument);
}

}  // namespace
}  // namespace ktune
