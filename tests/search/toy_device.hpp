// A made-up round-number device for the cost-model tests, so that expected
// values can be worked out by hand: 100 SMs at 1 GHz, 1e12 B/s of DRAM
// bandwidth, 1e13 FLOP/s on CUDA cores and 1e14 on tensor cores (bf16).
#pragma once

#include "space/device_spec.hpp"

namespace ktune {

inline DeviceSpec toy_device() {
  DeviceSpec d;
  d.name = "toy";
  d.sm_count = 100;
  d.sm_clock_mhz = 1000;
  d.max_threads_per_block = 1024;
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  d.smem_per_sm = 100000;
  d.smem_per_block_optin = 99000;
  d.regs_per_sm = 65536;
  d.max_regs_per_thread = 255;
  d.dram_gbps = 1000;            // 1e12 B/s
  d.peak_tflops_simt_fp32 = 10;  // 1e13 FLOP/s
  d.peak_tflops_bf16 = 100;      // 1e14 FLOP/s
  return d;
}

}  // namespace ktune
