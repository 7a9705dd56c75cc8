// CompilingSupplier: once-cells per kernel source; the NVRTC compiler and
// the runtime-API loader behind it.
#include "runtime/kernel_cache.hpp"

#include "kernels_templated/rowwise/gpu/cubin_runner.hpp"
#include "runtime/emit_keys.hpp"

namespace ktune::rt {
namespace {

class NvrtcCompiler final : public CubinCompiler {
 public:
  explicit NvrtcCompiler(CompilerOptions options) : compiler_(std::move(options)) {}
  CompileOutput compile(const KernelSource& source) override { return compiler_.compile(source); }

 private:
  Compiler compiler_;
};

class LibraryLoader final : public CubinLoader {
 public:
  CallStatus load(const CompileOutput& compiled, std::shared_ptr<const KernelSet>* out) override {
    std::vector<std::string> names;
    for (const KernelResources& k : compiled.kernels) names.push_back(k.lowered_name);
    auto cubin = std::make_shared<rowwise::LoadedCubin>(compiled.cubin, names);
    if (!cubin->ok()) return CallStatus::error(cubin->error());
    auto set = std::make_shared<KernelSet>();
    set->kernels.assign(cubin->kernels().begin(), cubin->kernels().end());
    set->owner = std::move(cubin);
    *out = std::move(set);
    return CallStatus::success();
  }
};

}  // namespace

std::unique_ptr<CubinCompiler> make_nvrtc_compiler(CompilerOptions options) {
  return std::make_unique<NvrtcCompiler>(std::move(options));
}
std::unique_ptr<CubinLoader> make_library_loader() { return std::make_unique<LibraryLoader>(); }

CompilingSupplier::CompilingSupplier(std::unique_ptr<CubinCompiler> compiler,
                                     std::unique_ptr<CubinLoader> loader)
    : compiler_(std::move(compiler)), loader_(std::move(loader)) {}

SupplierCounts CompilingSupplier::counts() const {
  return {memory_hits_.load(), builds_.load(), disk_hits_.load()};
}

CompilingSupplier::Built CompilingSupplier::build(const KernelSource& source) {
  ++builds_;
  Built b;
  try {
    const CompileOutput compiled = compiler_->compile(source);
    if (compiled.cache_hit) ++disk_hits_;
    if (!compiled.ok) {
      b.status = CallStatus::error("compiling " + source.program_name +
                                   " failed: " + compiled.log.substr(0, 2000));
      return b;
    }
    b.status = loader_->load(compiled, &b.kernels);
  } catch (const std::exception& e) {
    b.status = CallStatus::error(std::string("building the kernels failed: ") + e.what());
  }
  return b;
}

CallStatus CompilingSupplier::kernels(const KernelFamily& family, const Problem& normalized,
                                      const Config& config, std::shared_ptr<const KernelSet>* out) {
  KernelSource source;
  try {
    source = family.source(normalized, config);
  } catch (const std::exception& e) {
    return CallStatus::error(std::string("no kernel source: ") + e.what());
  }
  const std::string key = kernel_source_key(source);
  std::promise<Built> promise;
  std::shared_future<Built> cell;
  bool builder = false;
  {
    std::lock_guard lock(mutex_);
    auto it = cells_.find(key);
    if (it == cells_.end()) {
      cell = promise.get_future().share();
      cells_.emplace(key, cell);
      builder = true;
    } else {
      cell = it->second;
    }
  }
  if (builder) {
    // Outside the lock: other sources build meanwhile; callers of this one wait on the cell.
    promise.set_value(build(source));
  } else {
    ++memory_hits_;
  }
  const Built& built = cell.get();
  if (!built.status) return built.status;
  *out = built.kernels;
  return CallStatus::success();
}

}  // namespace ktune::rt
