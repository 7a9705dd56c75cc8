// Runtime: opening (databases, device, compiler) and the per-family calls.
#include <cstdlib>
#include <filesystem>

#include "runtime/gpu_launcher.hpp"
#include "runtime/runtime_impl.hpp"

#include <dlfcn.h>

namespace ktune {
namespace {

std::string kernel_dir_of(const RuntimeOptions& o) {
  if (!o.kernel_dir.empty()) return o.kernel_dir;
  if (const char* env = std::getenv("KTUNE_KERNEL_DIR"); env && *env) return env;
  // Installed: <prefix>/lib/libktune_runtime.so beside <prefix>/share/ktune/kernels_templated,
  // wherever the prefix was moved to.
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&kernel_dir_of), &info) != 0 && info.dli_fname) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path installed =
        fs::weakly_canonical(fs::path(info.dli_fname), ec).parent_path().parent_path() / "share" /
        "ktune" / "kernels_templated";
    if (!ec && fs::is_regular_file(installed / "family.hpp", ec)) return installed.string();
  }
  return Compiler::kernel_dir();
}

}  // namespace

std::vector<rt::Choice> LookupChooser::candidates(const KernelFamily& family,
                                                  const Problem& normalized, const Space& space,
                                                  const DeviceSpec& device) const {
  std::vector<rt::Choice> choices;
  if (lookup_) {
    LookupRequest request;
    request.family = std::string(family.name());
    request.problem = normalized;
    request.device = device.name;
    request.arch = device.arch();
    request.shape_keys = family.shape_keys();
    request.shape_class = family.shape_class(normalized);
    // The live GPU's specs: a sibling's measurements are predicted for it.
    request.device_spec = device;
    request.own_device_only = own_device_only_;
    if (!kernel_dir_.empty()) {
      try {
        request.family_hash = family_source_hash(family, normalized, device, kernel_dir_);
      } catch (const std::exception&) {
        // Unreadable templates fail the compile with a clear log; the lookup takes its newest hash.
      }
    }
    if (auto answer = lookup_->best(request))
      choices.push_back({answer->config, describe(*answer)});
  }
  rt::append_defaults(choices, family, normalized, space, device);
  return choices;
}

namespace {
std::unique_ptr<rt::CompilingSupplier> make_supplier(std::unique_ptr<rt::CubinCompiler> compiler,
                                                     std::unique_ptr<rt::CubinLoader> loader,
                                                     rt::CompilingSupplier** raw) {
  auto s = std::make_unique<rt::CompilingSupplier>(std::move(compiler), std::move(loader));
  *raw = s.get();
  return s;
}
}  // namespace

Runtime::Impl::Impl(DeviceSpec device, std::shared_ptr<const Lookup> lookup,
                    std::unique_ptr<rt::CubinCompiler> compiler,
                    std::unique_ptr<rt::CubinLoader> loader, std::unique_ptr<rt::Launcher> launcher,
                    std::string kernel_dir, bool own_device_only)
    : supplier(nullptr),
      dispatcher(std::move(device),
                 std::make_unique<LookupChooser>(std::move(lookup), std::move(kernel_dir),
                                                 own_device_only),
                 make_supplier(std::move(compiler), std::move(loader), &supplier),
                 std::move(launcher)) {}

Runtime::Runtime(std::unique_ptr<Impl> impl) : Calls(impl->dispatcher), impl_(std::move(impl)) {}
Runtime::~Runtime() = default;

CallStatus Runtime::open(const RuntimeOptions& options, std::unique_ptr<Runtime>* out) {
  try {
    std::shared_ptr<const Lookup> lookup;
    if (!options.system_db.empty() || !options.user_db.empty()) {
      std::error_code ec;
      if (!options.system_db.empty() && !std::filesystem::exists(options.system_db, ec))
        return CallStatus::error("ktune runtime: system database " + options.system_db +
                                 " does not exist");
      lookup = std::make_shared<const Lookup>(
          options.system_db.empty() ? Lookup::open(options.user_db)
                                    : Lookup::open_overlay(options.user_db, options.system_db));
    }
    // The device after the databases: a bad path is reported on any machine.
    int dev = 0;
    DeviceSpec device;
    if (CallStatus s = rt::live_device(options.device, &dev, &device); !s) return s;
    CompilerOptions compiler;
    compiler.arch = device.arch();
    compiler.cache_dir = options.cache_dir == "-"    ? ""
                         : options.cache_dir.empty() ? default_compile_cache_dir()
                                                     : options.cache_dir;
    compiler.kernel_dir = kernel_dir_of(options);
    const std::string templates = compiler.kernel_dir;
    auto impl = std::make_unique<Impl>(
        device, std::move(lookup), rt::make_nvrtc_compiler(std::move(compiler)),
        rt::make_library_loader(), std::make_unique<rt::GpuLauncher>(device, dev), templates,
        options.own_device_only);
    *out = std::make_unique<Runtime>(std::move(impl));
    return CallStatus::success();
  } catch (const std::exception& e) {
    return CallStatus::error(std::string("ktune runtime: ") + e.what());
  }
}

RuntimeCounts Runtime::counts() const {
  const rt::SupplierCounts c = impl_->supplier->counts();
  return {c.memory_hits, c.builds, c.disk_hits};
}

}  // namespace ktune
