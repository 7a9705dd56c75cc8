// Compile-only runs: compiles configurations of a family's space with NVRTC
// for a target architecture and reports each one's resources or compile
// error. Needs no GPU, so a kernel's CI can check that its space compiles.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compile/compiler.hpp"
#include "kernels_templated/family.hpp"
#include "space/device_spec.hpp"

namespace ktune {

/// The target of a compile-only run: a built-in device (its limits shape the
/// space) and the exact NVRTC architecture. `text` is an arch ("sm_90",
/// "sm_90a") or a built-in device's name or a fragment of it ("h200").
/// Throws std::invalid_argument naming the text when no built-in device matches.
struct CompileTarget {
  DeviceSpec device;
  std::string arch;  ///< as given for an arch ("sm_90a"), else the device's ("sm_90")
};
CompileTarget resolve_compile_target(const std::string& text);

/// Which configurations to compile: `budget` sampled ones (seeded) when
/// budget > 0, else every configuration of the space (a sub-space narrowed by
/// --require, say). Throws std::invalid_argument when neither bounds the run
/// (budget 0 and `whole_space_allowed` false).
std::vector<Config> compile_only_configs(const Space& space, std::size_t budget, std::uint64_t seed,
                                         bool whole_space_allowed);

struct CompileOnlyEntry {
  Config config;
  CompileOutput output;
  /// The dynamic shared memory it launches with, where the family states it
  /// (a user kernel's launch.shared_memory); the built-in families' harnesses
  /// size theirs at launch.
  std::optional<std::int64_t> dynamic_smem_bytes;
};

struct CompileOnlyReport {
  std::string family;
  std::string problem;  ///< the normalized problem's key
  std::string device;
  std::string arch;
  std::vector<CompileOnlyEntry> entries;  ///< in the order compiled
  std::size_t failed() const;
};

/// Compiles each configuration's KernelSource for (problem, target) in
/// parallel; never throws for a configuration that fails to compile.
CompileOnlyReport compile_configurations(const KernelFamily& family, const Problem& problem,
                                         const CompileTarget& target,
                                         const std::vector<Config>& configs,
                                         const std::string& cache_dir);

/// {"family","problem","device","arch","compiled","failed","configurations":[{"config",
/// "key","ok","compile_seconds","cache_hit","kernels":[{"name","registers",
/// "spill_store_bytes","spill_load_bytes","stack_frame_bytes","static_smem_bytes"}],
/// "dynamic_smem_bytes" (where known),"error"}]}
nlohmann::json to_json(const CompileOnlyReport& report);

}  // namespace ktune
