// StoredNames and the device filter that reads a user's --device against them.
#include <gtest/gtest.h>

#include <stdexcept>

#include "db/query.hpp"
#include "space/name_list.hpp"

namespace ktune {
namespace {

TEST(StoredNames, MergeKeepsEachNameOnceAndSorted) {
  StoredNames a{{"NVIDIA H100 80GB HBM3", "NVIDIA H200"}, {"gemm", "softmax"}};
  const StoredNames b{{"NVIDIA A100-SXM4-80GB", "NVIDIA H200"}, {"gemm", "rmsnorm", "transpose"}};
  a.merge(b);
  EXPECT_EQ(a.devices, (std::vector<std::string>{"NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3",
                                                 "NVIDIA H200"}));
  EXPECT_EQ(a.families, (std::vector<std::string>{"gemm", "rmsnorm", "softmax", "transpose"}));
  a.merge(StoredNames{});
  EXPECT_EQ(a.families.size(), 4u);
}

TEST(StoredNames, AnUnknownDeviceIsRefusedNamingWhatIsStored) {
  const StoredNames stored{{"NVIDIA H200"}, {"gemm"}};
  EXPECT_EQ(device_filter("", stored), "");
  EXPECT_EQ(device_filter("NVIDIA H200", stored), "NVIDIA H200");
  EXPECT_EQ(device_filter("SM_90a", stored), "sm_90");
  try {
    device_filter("h2x", stored);
    FAIL() << "an unknown GPU was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("it stores: NVIDIA H200)"), std::string::npos) << e.what();
  }
  try {
    device_filter("h2x", StoredNames{});
    FAIL() << "an unknown GPU was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("it stores: none)"), std::string::npos) << e.what();
  }
}

TEST(NameList, JoinsWithCommasOrSaysWhenEmpty) {
  EXPECT_EQ(name_list(std::vector<std::string>{"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(name_list(std::vector<std::string>{}), "none");
  EXPECT_EQ(name_list(std::vector<std::string>{}, ""), "");
  EXPECT_EQ(name_list(std::vector<std::string>{"only"}), "only");
}

}  // namespace
}  // namespace ktune
