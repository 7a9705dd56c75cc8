// DeviceSpec: what a GPU is and what it can do, from the live device or a table.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ktune {

/// Units whose peak rate the roofline model needs.
enum class ComputeUnit { simt_fp32, tensor_tf32, tensor_bf16, tensor_fp16 };
std::string_view to_string(ComputeUnit u);
ComputeUnit compute_unit_from_string(std::string_view text);

/// Identity of the GPU that measured a result (the database key), and its
/// resources and ceilings (the space's constraints and the cost model).
struct DeviceSpec {
  // identity
  std::string name;          ///< e.g. "NVIDIA H200"
  int cc_major = 0;          ///< compute capability
  int cc_minor = 0;
  std::string driver;        ///< driver version text, empty when unknown
  std::string cuda_runtime;  ///< e.g. "13.0"

  // resources
  int sm_count = 0;
  double sm_clock_mhz = 0;             ///< boost clock
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int smem_per_sm = 0;                 ///< bytes
  int smem_per_block_optin = 0;        ///< bytes, the opt-in maximum
  int regs_per_sm = 65536;
  int max_regs_per_thread = 255;
  long long l2_bytes = 0;
  long long global_memory_bytes = 0;

  // ceilings (datasheet, optionally overridden by measurements)
  double dram_gbps = 0;      ///< bytes read + written per second / 1e9
  double peak_tflops_simt_fp32 = 0;
  double peak_tflops_tf32 = 0;
  double peak_tflops_bf16 = 0;
  double peak_tflops_fp16 = 0;
  bool measured_ceilings = false;  ///< true when dram_gbps / peaks were measured, not datasheet
  std::string ceilings_source;     ///< where measured ceilings come from (file, run, date)

  /// Takes the ceilings `measured` states (each field > 0) over this spec's,
  /// marks them measured and keeps their source; identity and resources stay.
  void adopt_measured_ceilings(const DeviceSpec& measured);

  /// "sm_90" (or "sm_90a" where arch-specific features are requested by the caller).
  std::string arch() const;
  double peak_tflops(ComputeUnit unit) const;
  nlohmann::json to_json() const;
  static DeviceSpec from_json(const nlohmann::json& j);
};

/// Built-in specs: A100 (sm_80), A10/RTX 3090 (sm_86), L4/L40S (sm_89), H100 SXM,
/// H100 PCIe, H800, H200 and GH200 (sm_90), each row citing its datasheet. Looked up by exact name,
/// by arch ("sm_90" gives the H100 SXM), or by a case-insensitive fragment of the name ("h200").
std::optional<DeviceSpec> find_builtin_device(std::string_view name_or_arch);

/// A GPU name or arch as the lookups compare it: lower case, and an
/// arch-specific target as its arch ("SM_90a" is "sm_90", whose devices run it).
std::string device_key(std::string_view name_or_arch);
const std::vector<DeviceSpec>& builtin_devices();

}  // namespace ktune
