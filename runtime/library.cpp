// Library: an emitted library's tables behind the shared dispatcher: the
// router as the chooser, the compiled-in kernels as the supplier.
#include "runtime/ktune_library.hpp"

#include <mutex>
#include <unordered_map>

#include "runtime/dispatcher.hpp"
#include "runtime/emit_keys.hpp"
#include "runtime/gpu_launcher.hpp"
#include "runtime/router.hpp"

namespace ktune {

RouterChooser::RouterChooser(const EmittedTables& t) : tables_(t) {
  for (int i = 0; i < t.kernel_count; ++i)
    compiled_.emplace(t.kernels[i]->source_hash, t.kernels[i]);
}

std::vector<rt::Choice> RouterChooser::candidates(const KernelFamily& family, const Problem& p,
                                                  const Space&, const DeviceSpec&) const {
  const std::string name(family.name());
  const std::string shape_class = family.shape_class(p);
  const std::string matches[] = {p.key(), rt::emit_group_key(family, p), shape_class, shape_class};
  const char* hows[] = {"exact", "group", "general", "default"};
  std::vector<rt::Choice> out;
  for (int level = 0; level < 4; ++level) {
    for (int i = 0; i < tables_.route_count; ++i) {
      const EmittedRoute& r = tables_.routes[i];
      if (name != r.family || std::string_view(r.how) != hows[level] || matches[level] != r.match)
        continue;
      Config c = Config::parse(r.config);
      if (!find(stable_hash_hex(rt::kernel_source_key(family.source(p, c))))) continue;
      std::string how = hows[level];
      if (r.measured_on && *r.measured_on)
        how += std::string(" (measured on ") + r.measured_on + ")";
      out.push_back({std::move(c), std::move(how)});
    }
  }
  if (out.empty())
    throw std::runtime_error("the emitted library (" + std::string(tables_.database) +
                             ") has no compiled configuration routed to " + name + " " + p.key());
  return out;
}

const EmittedKernel* RouterChooser::find(const std::string& hash) const {
  auto it = compiled_.find(hash);
  return it == compiled_.end() ? nullptr : it->second;
}

namespace {

/// cudaKernel_t handles of the compiled-in functions.
class StaticSupplier final : public rt::KernelSupplier {
 public:
  explicit StaticSupplier(const RouterChooser& router) : router_(router) {}
  CallStatus kernels(const KernelFamily& family, const Problem& p, const Config& c,
                     std::shared_ptr<const rt::KernelSet>* out) override {
    const std::string hash = stable_hash_hex(rt::kernel_source_key(family.source(p, c)));
    std::lock_guard lock(mutex_);
    if (auto it = sets_.find(hash); it != sets_.end()) {
      *out = it->second;
      return CallStatus::success();
    }
    const EmittedKernel* k = router_.find(hash);
    if (!k) return CallStatus::error("not compiled into the emitted library");
    auto set = std::make_shared<rt::KernelSet>();
    for (int i = 0; i < k->count; ++i) {
      cudaKernel_t handle = nullptr;
      if (cudaError_t e = cudaGetKernel(&handle, k->functions[i]); e != cudaSuccess)
        return CallStatus::error(std::string("cudaGetKernel: ") + cudaGetErrorString(e));
      set->kernels.push_back(handle);
    }
    *out = sets_.emplace(hash, std::move(set)).first->second;
    return CallStatus::success();
  }

 private:
  const RouterChooser& router_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const rt::KernelSet>> sets_;
};

}  // namespace

struct Library::Impl {
  Impl(const EmittedTables& t, DeviceSpec device, int ordinal)
      : tables(t),
        router(new RouterChooser(t)),
        dispatcher(device, std::unique_ptr<rt::ConfigChooser>(router),
                   std::make_unique<StaticSupplier>(*router),
                   std::make_unique<rt::GpuLauncher>(device, ordinal)) {}
  const EmittedTables& tables;
  RouterChooser* router;  ///< owned by the dispatcher
  rt::Dispatcher dispatcher;
};

Library::Library(std::unique_ptr<Impl> impl) : Calls(impl->dispatcher), impl_(std::move(impl)) {}
Library::~Library() = default;

CallStatus Library::open(const EmittedTables& tables, std::unique_ptr<Library>* out, int device) {
  try {
    int used = 0;
    DeviceSpec spec;
    if (CallStatus s = rt::live_device(device, &used, &spec); !s) return s;
    *out = std::make_unique<Library>(std::make_unique<Impl>(tables, std::move(spec), used));
    return CallStatus::success();
  } catch (const std::exception& e) {
    return CallStatus::error(std::string("ktune library: ") + e.what());
  }
}

const char* Library::database() const { return impl_->tables.database; }
const char* Library::template_hashes() const { return impl_->tables.template_hashes; }

}  // namespace ktune
