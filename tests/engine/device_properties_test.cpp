// spec_from_properties and spec_of_device: what the CUDA runtime reports replaces the base's
// identity and resources; the base's ceilings and clock stay.
#include <gtest/gtest.h>

#include <cstring>

#include "kernels_templated/gpu/device_properties.hpp"

namespace ktune {
namespace {

cudaDeviceProp hand_made_properties() {
  cudaDeviceProp prop{};
  std::strcpy(prop.name, "Made-up GPU");
  prop.major = 9;
  prop.minor = 0;
  prop.multiProcessorCount = 7;
  prop.maxThreadsPerBlock = 512;
  prop.maxThreadsPerMultiProcessor = 1536;
  prop.maxBlocksPerMultiProcessor = 24;
  prop.sharedMemPerMultiprocessor = 100 * 1024;
  prop.sharedMemPerBlockOptin = 99 * 1024;
  prop.regsPerMultiprocessor = 32768;
  prop.l2CacheSize = 3 << 20;
  prop.totalGlobalMem = 5ull << 30;
  return prop;
}

TEST(SpecFromProperties, ReportedResourcesReplaceTheBase) {
  DeviceSpec base = find_builtin_device("NVIDIA H200").value();
  const DeviceSpec spec = spec_from_properties(hand_made_properties(), base);
  EXPECT_EQ(spec.name, "Made-up GPU");
  EXPECT_EQ(spec.arch(), "sm_90");
  EXPECT_EQ(spec.sm_count, 7);
  EXPECT_EQ(spec.max_threads_per_block, 512);
  EXPECT_EQ(spec.max_threads_per_sm, 1536);
  EXPECT_EQ(spec.max_blocks_per_sm, 24);
  EXPECT_EQ(spec.smem_per_sm, 100 * 1024);
  EXPECT_EQ(spec.smem_per_block_optin, 99 * 1024);
  EXPECT_EQ(spec.regs_per_sm, 32768);
  EXPECT_EQ(spec.l2_bytes, 3 << 20);
  EXPECT_EQ(spec.global_memory_bytes, 5ll << 30);
  // Not reported by the properties: kept from the base.
  EXPECT_EQ(spec.peak_tflops_bf16, base.peak_tflops_bf16);
  EXPECT_EQ(spec.dram_gbps, base.dram_gbps);
  EXPECT_EQ(spec.sm_clock_mhz, base.sm_clock_mhz);
  EXPECT_EQ(spec.max_regs_per_thread, base.max_regs_per_thread);
}

TEST(SpecFromProperties, BlankBaseGetsNoCeilings) {
  const DeviceSpec spec = spec_from_properties(hand_made_properties(), DeviceSpec{});
  EXPECT_EQ(spec.sm_count, 7);
  EXPECT_EQ(spec.peak_tflops_bf16, 0);
  EXPECT_EQ(spec.dram_gbps, 0);
}

TEST(SpecOfDevice, KnownNameTakesItsOwnRow) {
  cudaDeviceProp prop = hand_made_properties();
  std::strcpy(prop.name, "NVIDIA H200");
  const DeviceSpec h200 = find_builtin_device("NVIDIA H200").value();
  const DeviceSpec spec = spec_of_device(prop);
  EXPECT_EQ(spec.name, "NVIDIA H200");
  EXPECT_EQ(spec.sm_count, 7);
  EXPECT_EQ(spec.dram_gbps, h200.dram_gbps);
}

TEST(SpecOfDevice, UnknownNameTakesItsArchitecturesRow) {
  const DeviceSpec arch_row = find_builtin_device("sm_90").value();
  const DeviceSpec spec = spec_of_device(hand_made_properties());
  EXPECT_EQ(spec.name, "Made-up GPU");
  EXPECT_GT(spec.peak_tflops_bf16, 0);
  EXPECT_EQ(spec.peak_tflops_bf16, arch_row.peak_tflops_bf16);
  EXPECT_EQ(spec.max_regs_per_thread, arch_row.max_regs_per_thread);
}

TEST(SpecOfDevice, UnknownArchitectureGetsNoCeilings) {
  cudaDeviceProp prop = hand_made_properties();
  prop.major = 42;
  const DeviceSpec spec = spec_of_device(prop);
  EXPECT_EQ(spec.arch(), "sm_420");
  EXPECT_EQ(spec.peak_tflops_bf16, 0);
}

}  // namespace
}  // namespace ktune
