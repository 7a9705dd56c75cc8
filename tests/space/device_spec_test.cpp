// Tests of the built-in device table: lookup by name, arch and fragment; peaks; JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "space/device_spec.hpp"

namespace ktune {
namespace {

TEST(DeviceSpec, FindsByExactNameArchAndFragment) {
  auto h200 = find_builtin_device("NVIDIA H200");
  ASSERT_TRUE(h200);
  EXPECT_EQ(h200->arch(), "sm_90");
  EXPECT_EQ(h200->sm_count, 132);

  auto by_arch = find_builtin_device("sm_90");
  ASSERT_TRUE(by_arch);
  EXPECT_EQ(by_arch->name, "NVIDIA H100 80GB HBM3");  // the first row of an arch represents it
  auto arch_specific = find_builtin_device("sm_90a");
  ASSERT_TRUE(arch_specific);
  EXPECT_EQ(arch_specific->name, by_arch->name);
  EXPECT_EQ(find_builtin_device("SM_80")->name, "NVIDIA A100-SXM4-80GB");

  auto fragment = find_builtin_device("h200");
  ASSERT_TRUE(fragment);
  EXPECT_EQ(fragment->name, "NVIDIA H200");
  EXPECT_EQ(find_builtin_device("L40S")->arch(), "sm_89");

  EXPECT_FALSE(find_builtin_device("sm_75"));
  EXPECT_FALSE(find_builtin_device("voodoo"));
  EXPECT_FALSE(find_builtin_device(""));
  EXPECT_GE(builtin_devices().size(), 7u);
}

TEST(DeviceSpec, HoldsTheDeployedHopperParts) {
  // By the names their drivers report; the PCIe card is a smaller part.
  for (const char* name : {"NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA H800",
                           "NVIDIA H200", "NVIDIA GH200 480GB"}) {
    const auto d = find_builtin_device(name);
    ASSERT_TRUE(d) << name;
    EXPECT_EQ(d->name, name);
    EXPECT_EQ(d->arch(), "sm_90") << name;
    EXPECT_GT(d->dram_gbps, 0) << name;
  }
  EXPECT_LT(find_builtin_device("h100 pcie")->sm_count, find_builtin_device("h100")->sm_count);
  EXPECT_EQ(find_builtin_device("gh200")->name, "NVIDIA GH200 480GB");
  EXPECT_EQ(find_builtin_device("h800")->name, "NVIDIA H800");
}

TEST(DeviceSpec, PeakPerUnitAndResources) {
  const DeviceSpec d = *find_builtin_device("h200");
  EXPECT_DOUBLE_EQ(d.peak_tflops(ComputeUnit::tensor_bf16), d.peak_tflops_bf16);
  EXPECT_DOUBLE_EQ(d.peak_tflops(ComputeUnit::simt_fp32), d.peak_tflops_simt_fp32);
  EXPECT_DOUBLE_EQ(d.peak_tflops(ComputeUnit::tensor_tf32), d.peak_tflops_tf32);
  EXPECT_DOUBLE_EQ(d.peak_tflops(ComputeUnit::tensor_fp16), d.peak_tflops_fp16);
  EXPECT_GT(d.peak_tflops(ComputeUnit::tensor_bf16), d.peak_tflops(ComputeUnit::tensor_tf32));
  EXPECT_GT(d.peak_tflops(ComputeUnit::tensor_tf32), d.peak_tflops(ComputeUnit::simt_fp32));
  EXPECT_GT(d.smem_per_block_optin, 48 * 1024);
  EXPECT_LE(d.smem_per_block_optin, d.smem_per_sm);
  EXPECT_FALSE(d.measured_ceilings);  // table rows are datasheet figures
}

TEST(DeviceSpec, UnitNamesAndJsonRoundTrip) {
  for (ComputeUnit u : {ComputeUnit::simt_fp32, ComputeUnit::tensor_tf32, ComputeUnit::tensor_bf16,
                        ComputeUnit::tensor_fp16})
    EXPECT_EQ(compute_unit_from_string(to_string(u)), u);
  EXPECT_THROW(compute_unit_from_string("int8"), std::invalid_argument);
  for (const DeviceSpec& d : builtin_devices()) {
    const DeviceSpec back = DeviceSpec::from_json(nlohmann::json::parse(d.to_json().dump()));
    EXPECT_EQ(back.to_json(), d.to_json()) << d.name;
  }
  EXPECT_THROW(DeviceSpec::from_json(nlohmann::json::parse(R"({"name": "x", "cc": "90"})")),
               std::invalid_argument);
}

}  // namespace
}  // namespace ktune
