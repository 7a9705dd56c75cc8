// DeviceSpec: arch names, peak rates per unit, JSON, and the built-in table.
#include "space/device_spec.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace ktune {

std::string_view to_string(ComputeUnit u) {
  switch (u) {
    case ComputeUnit::simt_fp32: return "simt_fp32";
    case ComputeUnit::tensor_tf32: return "tensor_tf32";
    case ComputeUnit::tensor_bf16: return "tensor_bf16";
    case ComputeUnit::tensor_fp16: return "tensor_fp16";
  }
  return "unknown";
}

ComputeUnit compute_unit_from_string(std::string_view text) {
  for (ComputeUnit u : {ComputeUnit::simt_fp32, ComputeUnit::tensor_tf32, ComputeUnit::tensor_bf16,
                        ComputeUnit::tensor_fp16})
    if (to_string(u) == text) return u;
  throw std::invalid_argument("unknown compute unit '" + std::string(text) +
                              "' (accepted: simt_fp32, tensor_tf32, tensor_bf16, tensor_fp16)");
}

std::string DeviceSpec::arch() const {
  return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
}

double DeviceSpec::peak_tflops(ComputeUnit unit) const {
  switch (unit) {
    case ComputeUnit::simt_fp32: return peak_tflops_simt_fp32;
    case ComputeUnit::tensor_tf32: return peak_tflops_tf32;
    case ComputeUnit::tensor_bf16: return peak_tflops_bf16;
    case ComputeUnit::tensor_fp16: return peak_tflops_fp16;
  }
  return 0;
}

nlohmann::json DeviceSpec::to_json() const {
  return {
      {"name", name},
      {"cc", std::to_string(cc_major) + "." + std::to_string(cc_minor)},
      {"arch", arch()},
      {"driver", driver},
      {"cuda_runtime", cuda_runtime},
      {"sm_count", sm_count},
      {"sm_clock_mhz", sm_clock_mhz},
      {"max_threads_per_block", max_threads_per_block},
      {"max_threads_per_sm", max_threads_per_sm},
      {"max_blocks_per_sm", max_blocks_per_sm},
      {"smem_per_sm", smem_per_sm},
      {"smem_per_block_optin", smem_per_block_optin},
      {"regs_per_sm", regs_per_sm},
      {"max_regs_per_thread", max_regs_per_thread},
      {"l2_bytes", l2_bytes},
      {"global_memory_bytes", global_memory_bytes},
      {"dram_gbps", dram_gbps},
      {"peak_tflops_simt_fp32", peak_tflops_simt_fp32},
      {"peak_tflops_tf32", peak_tflops_tf32},
      {"peak_tflops_bf16", peak_tflops_bf16},
      {"peak_tflops_fp16", peak_tflops_fp16},
      {"measured_ceilings", measured_ceilings},
      {"ceilings_source", ceilings_source},
  };
}

void DeviceSpec::adopt_measured_ceilings(const DeviceSpec& measured) {
  auto take = [](double& mine, double theirs) {
    if (theirs > 0) mine = theirs;
  };
  take(dram_gbps, measured.dram_gbps);
  take(peak_tflops_simt_fp32, measured.peak_tflops_simt_fp32);
  take(peak_tflops_tf32, measured.peak_tflops_tf32);
  take(peak_tflops_bf16, measured.peak_tflops_bf16);
  take(peak_tflops_fp16, measured.peak_tflops_fp16);
  measured_ceilings = true;
  ceilings_source = measured.ceilings_source;
}

DeviceSpec DeviceSpec::from_json(const nlohmann::json& j) {
  DeviceSpec d;
  try {
    d.name = j.at("name").get<std::string>();
    std::string cc = j.at("cc").get<std::string>();
    auto dot = cc.find('.');
    if (dot == std::string::npos) throw std::invalid_argument("cc '" + cc + "' is not major.minor");
    d.cc_major = std::stoi(cc.substr(0, dot));
    d.cc_minor = std::stoi(cc.substr(dot + 1));
    d.driver = j.value("driver", "");
    d.cuda_runtime = j.value("cuda_runtime", "");
    d.sm_count = j.value("sm_count", 0);
    d.sm_clock_mhz = j.value("sm_clock_mhz", 0.0);
    d.max_threads_per_block = j.value("max_threads_per_block", 1024);
    d.max_threads_per_sm = j.value("max_threads_per_sm", 2048);
    d.max_blocks_per_sm = j.value("max_blocks_per_sm", 32);
    d.smem_per_sm = j.value("smem_per_sm", 0);
    d.smem_per_block_optin = j.value("smem_per_block_optin", 0);
    d.regs_per_sm = j.value("regs_per_sm", 65536);
    d.max_regs_per_thread = j.value("max_regs_per_thread", 255);
    d.l2_bytes = j.value("l2_bytes", 0LL);
    d.global_memory_bytes = j.value("global_memory_bytes", 0LL);
    d.dram_gbps = j.value("dram_gbps", 0.0);
    d.peak_tflops_simt_fp32 = j.value("peak_tflops_simt_fp32", 0.0);
    d.peak_tflops_tf32 = j.value("peak_tflops_tf32", 0.0);
    d.peak_tflops_bf16 = j.value("peak_tflops_bf16", 0.0);
    d.peak_tflops_fp16 = j.value("peak_tflops_fp16", 0.0);
    d.measured_ceilings = j.value("measured_ceilings", false);
    d.ceilings_source = j.value("ceilings_source", "");
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("malformed device: ") + e.what());
  }
  return d;
}

namespace {

struct Row {
  const char* name;
  int major, minor, sms;
  double clock_mhz;
  int threads_per_sm, blocks_per_sm, smem_per_sm_kb, smem_optin_bytes;
  double l2_mb, memory_gb, dram_gbps, fp32, tf32, bf16, fp16;
};

// Vendor datasheet figures (dense tensor rates: half the datasheets' "with
// sparsity" figures; fp32 accumulate). They are leads: measured ceilings
// override them (DeviceSpec::measured_ceilings), and a live GPU's own
// resources (SMs, shared memory, L2) override the table's (spec_of_device).
// Names are the ones the driver reports (cudaDeviceProp::name). Shared memory
// per SM (228 KB, 227 KB per block opted in) and the sm_90 limits: the CUDA C
// Programming Guide, compute capability 9.0. The first row of an arch
// represents it (find_builtin_device("sm_90")).
// One row a line reads as a table:
// clang-format off
constexpr Row kTable[] = {
    // H100 SXM5 80GB: NVIDIA H100 Tensor Core GPU datasheet (SXM column);
    // SMs, boost clock and L2: NVIDIA H100 Tensor Core GPU Architecture
    // whitepaper (H100 SXM5 column).
    {"NVIDIA H100 80GB HBM3", 9, 0, 132, 1980, 2048, 32, 228, 232448, 50, 80, 3350, 67, 495, 989, 989},
    // H100 PCIe 80GB: the same datasheet (PCIe column) and whitepaper (H100
    // PCIe column): 114 SMs, 1755 MHz boost, HBM2e at 2.0 TB/s.
    {"NVIDIA H100 PCIe", 9, 0, 114, 1755, 2048, 32, 228, 232448, 50, 80, 2000, 51, 378, 756, 756},
    // H800 SXM5: NVIDIA H800 Tensor Core GPU datasheet (SXM column): the H100
    // SXM's compute and HBM3 (FP64 and NVLink reduced, which ktune does not use).
    {"NVIDIA H800", 9, 0, 132, 1980, 2048, 32, 228, 232448, 50, 80, 3350, 67, 495, 989, 989},
    // H200 SXM 141GB: NVIDIA H200 Tensor Core GPU datasheet (SXM column); the
    // datasheet gives no L2 size: 60 MB is the GH100 die's (whitepaper), a
    // live GPU reports its own.
    {"NVIDIA H200", 9, 0, 132, 1980, 2048, 32, 228, 232448, 60, 141, 4800, 67, 495, 989, 989},
    // GH200 Grace Hopper, 96 GB HBM3 GPU memory: NVIDIA GH200 Grace Hopper
    // Superchip datasheet (4 TB/s; 67 / 494 / 990 TFLOPS dense fp32, tf32,
    // bf16). Listed after the H200 so that the fragment "h200" finds the H200.
    {"NVIDIA GH200 480GB", 9, 0, 132, 1980, 2048, 32, 228, 232448, 50, 96, 4000, 67, 494, 990, 990},
    {"NVIDIA A100-SXM4-80GB", 8, 0, 108, 1410, 2048, 32, 164, 166912, 40, 80, 2039, 19.5, 156, 312, 312},
    {"NVIDIA A10", 8, 6, 72, 1695, 1536, 16, 100, 101376, 6, 24, 600, 31.2, 62.5, 125, 125},
    {"NVIDIA GeForce RTX 3090", 8, 6, 82, 1695, 1536, 16, 100, 101376, 6, 24, 936, 35.6, 35.6, 71, 71},
    {"NVIDIA L4", 8, 9, 58, 2040, 1536, 24, 100, 101376, 48, 24, 300, 30.3, 60, 121, 121},
    {"NVIDIA L40S", 8, 9, 142, 2520, 1536, 24, 100, 101376, 96, 48, 864, 91.6, 183, 362, 362},
};
// clang-format on

DeviceSpec from_row(const Row& r) {
  DeviceSpec d;
  d.name = r.name;
  d.cc_major = r.major;
  d.cc_minor = r.minor;
  d.sm_count = r.sms;
  d.sm_clock_mhz = r.clock_mhz;
  d.max_threads_per_sm = r.threads_per_sm;
  d.max_blocks_per_sm = r.blocks_per_sm;
  d.smem_per_sm = r.smem_per_sm_kb * 1024;
  d.smem_per_block_optin = r.smem_optin_bytes;
  d.l2_bytes = static_cast<long long>(r.l2_mb * 1024 * 1024);
  d.global_memory_bytes = static_cast<long long>(r.memory_gb * 1e9);
  d.dram_gbps = r.dram_gbps;
  d.peak_tflops_simt_fp32 = r.fp32;
  d.peak_tflops_tf32 = r.tf32;
  d.peak_tflops_bf16 = r.bf16;
  d.peak_tflops_fp16 = r.fp16;
  return d;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

const std::vector<DeviceSpec>& builtin_devices() {
  static const std::vector<DeviceSpec> devices = [] {
    std::vector<DeviceSpec> v;
    for (const Row& r : kTable) v.push_back(from_row(r));
    return v;
  }();
  return devices;
}

std::string device_key(std::string_view name_or_arch) {
  std::string key = lower(name_or_arch);
  if (key.starts_with("sm_") && key.size() > 3 && key.ends_with("a")) key.pop_back();
  return key;
}

std::optional<DeviceSpec> find_builtin_device(std::string_view name_or_arch) {
  const auto& all = builtin_devices();
  for (const auto& d : all)
    if (d.name == name_or_arch) return d;
  const std::string key = device_key(name_or_arch);
  for (const auto& d : all)  // the first row of an arch is its representative
    if (lower(d.arch()) == key) return d;
  if (key.empty()) return std::nullopt;
  for (const auto& d : all)
    if (lower(d.name).find(key) != std::string::npos) return d;
  return std::nullopt;
}

}  // namespace ktune
