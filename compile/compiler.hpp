// Compiler: NVRTC compilation of a family's KernelSource to a cubin, with an
// on-disk cache and parallel batches.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kernels_templated/family.hpp"

namespace ktune {

/// Resource usage read from ptxas' report (NVRTC with --ptxas-options=-v).
struct KernelResources {
  std::string name_expression;
  std::string lowered_name;  ///< mangled name to look up in the cubin
  int registers = 0;
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int stack_frame_bytes = 0;
  int static_smem_bytes = 0;
};

/// One kernel's resources as results store them (metrics.compile.kernels).
nlohmann::json kernel_resources_json(const KernelResources& k);

struct CompileOutput {
  bool ok = false;
  std::vector<char> cubin;               ///< empty on failure
  std::vector<KernelResources> kernels;  ///< same order as KernelSource::kernels
  std::string log;                       ///< compiler log (kept on failure)
  double compile_seconds = 0;            ///< 0 on a cache hit
  bool cache_hit = false;
  std::string arch;       ///< the --gpu-architecture actually used
  std::string cache_key;  ///< 32 hex digits; empty without a cache dir
};

struct CompilerOptions {
  std::string arch = "sm_90a";  ///< --gpu-architecture (an "a" is appended for needs_arch_specific)
  std::string cache_dir;        ///< empty: no on-disk cache
  std::vector<std::string> extra;  ///< appended to every compile
  bool precompiled_headers =
      true;  ///< NVRTC's automatic PCH where it has one (the same code, faster)
  /// The kernels_templated folder to compile against; empty: kernel_dir().
  /// `ktune db rehash --compare-cubins` compiles one source against two texts.
  std::string kernel_dir{};
};

class Compiler {
 public:
  explicit Compiler(CompilerOptions options);
  /// Never throws for a bad candidate: failures come back with ok == false
  /// and the log. Throws std::runtime_error only if NVRTC itself is unusable.
  CompileOutput compile(const KernelSource& source) const;
  /// NVRTC's front end only (-fdevice-syntax-only: parsed, instantiated,
  /// no code): ok, the log and each kernel's lowered name, no cubin and no
  /// resources. Uncached. For checks that ask the compiler about a program.
  CompileOutput check_front_end(const KernelSource& source) const;
  /// Compiles many in parallel (TBB); outputs in input order.
  std::vector<CompileOutput> compile_all(std::span<const KernelSource> sources) const;
  /// The directory holding our templates at run time: $KTUNE_KERNEL_DIR, else
  /// kernels_templated/ found relative to the executable, else the
  /// compile-time source path.
  static std::string kernel_dir();
  /// The on-disk cache key of a source: its text, kernel names, options, the
  /// NVRTC version, the architecture and the text of every header (.cuh, .h,
  /// .hpp) under the folder compiled against (options().kernel_dir, else
  /// kernel_dir(); hashed once per process). No path is part of it, so a cache
  /// filled on one machine serves another with the same text and NVRTC.
  std::string cache_key(const KernelSource& source) const;
  /// "13.0": the NVRTC in use (provenance of every result).
  static std::string nvrtc_version();
  const CompilerOptions& options() const { return options_; }

 private:
  /// options_.kernel_dir, else kernel_dir().
  std::string templates_dir() const;

  CompilerOptions options_;
};

/// $KTUNE_CACHE_DIR, else $XDG_CACHE_HOME/ktune, else ~/.cache/ktune: the
/// compile cache of the CLI, the runtime, the benches and the GPU tests.
std::string default_compile_cache_dir();

/// Hash of a family's template files (their text, concatenated in the order
/// template_files() lists them), the family's version key: stable_hash_hex.
/// Throws std::runtime_error naming a file that cannot be read.
std::string family_source_hash(const KernelFamily& family);
/// The version key of the kernel path (normalized problem, device) takes: the
/// hash of family.template_files_for(problem, device). What every result of
/// that problem on that device is stored and looked up under. Equal to
/// family_source_hash(family) for families with one path. Throws like it.
std::string family_source_hash(const KernelFamily& family, const Problem& normalized,
                               const DeviceSpec& device);
/// The same hash of the text in another kernels_templated folder (an older
/// checkout's, say): which results that text measured. A listed file the
/// folder does not have (added since) is left out, as the text then had no
/// such file; a folder with none of them throws.
std::string family_source_hash(const KernelFamily& family, const Problem& normalized,
                               const DeviceSpec& device, const std::string& kernel_dir);

}  // namespace ktune
