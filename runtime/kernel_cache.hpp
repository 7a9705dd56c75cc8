// CompilingSupplier: a configuration's kernels from the in-memory cache, else
// from a cubin (the Compiler's on-disk cache, else one NVRTC compile), loaded
// once. Concurrent first requests of one source wait for one build (a
// per-key shared_future). Compiler and loader are interfaces so the cache is
// tested without NVRTC or a GPU.
#pragma once

#include <atomic>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "compile/compiler.hpp"
#include "runtime/dispatcher.hpp"

namespace ktune::rt {

/// Source -> cubin (the Compiler: its disk cache, else NVRTC).
class CubinCompiler {
 public:
  virtual ~CubinCompiler() = default;
  virtual CompileOutput compile(const KernelSource& source) = 0;
};

/// Cubin -> loaded kernels (cudaLibraryLoadData / cudaLibraryGetKernel).
class CubinLoader {
 public:
  virtual ~CubinLoader() = default;
  virtual CallStatus load(const CompileOutput& compiled, std::shared_ptr<const KernelSet>* out) = 0;
};

/// The real pair.
std::unique_ptr<CubinCompiler> make_nvrtc_compiler(CompilerOptions options);
std::unique_ptr<CubinLoader> make_library_loader();

/// What the cache has done so far (tests and the overhead bench read it).
struct SupplierCounts {
  long long memory_hits = 0;  ///< answered from memory (or by waiting for another caller's build)
  long long builds = 0;       ///< compile + load runs (one per distinct source)
  long long disk_hits = 0;    ///< builds whose cubin came from the on-disk cache
};

class CompilingSupplier final : public KernelSupplier {
 public:
  CompilingSupplier(std::unique_ptr<CubinCompiler> compiler, std::unique_ptr<CubinLoader> loader);
  CallStatus kernels(const KernelFamily& family, const Problem& normalized, const Config& config,
                     std::shared_ptr<const KernelSet>* out) override;
  SupplierCounts counts() const;

 private:
  struct Built {
    CallStatus status;
    std::shared_ptr<const KernelSet> kernels;
  };
  Built build(const KernelSource& source);

  std::unique_ptr<CubinCompiler> compiler_;
  std::unique_ptr<CubinLoader> loader_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_future<Built>> cells_;
  std::atomic<long long> memory_hits_{0}, builds_{0}, disk_hits_{0};
};

}  // namespace ktune::rt
