// Dispatcher: per-shape preparation (choice, validity, kernels, geometry)
// cached behind a shared lock, and the launch.
#include "runtime/dispatcher.hpp"

#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels_templated/gpu/device_properties.hpp"
#include "kernels_templated/rowwise/rowwise_family.hpp"

namespace ktune::rt {
namespace {

/// The tensors the problem reads and writes must be given.
CallStatus check_tensors(const Prepared& p, const CallTensors& t) {
  const std::string family(p.family->name());
  if (!t.in0 || !t.out) return CallStatus::error(family + ": a null input or output pointer");
  if (p.kind == CallKind::gemm) {
    if (!t.in1) return CallStatus::error("gemm: B is a null pointer");
    if (p.gemm.epilogue != "none" && !t.aux)
      return CallStatus::error("gemm: epilogue " + p.gemm.epilogue + " needs a bias");
  }
  if (!p.column_vector.empty() && !t.in1)
    return CallStatus::error(family + ": the " + p.column_vector + " is a null pointer");
  return CallStatus::success();
}

}  // namespace

CallStatus live_device(int ordinal, int* used, DeviceSpec* out) {
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    cudaGetLastError();
    return CallStatus::error(std::string("ktune runtime: no CUDA device (") +
                             (e != cudaSuccess ? cudaGetErrorString(e) : "none visible") + ")");
  }
  int dev = ordinal;
  if (dev < 0 && cudaGetDevice(&dev) != cudaSuccess)
    return CallStatus::error("ktune runtime: cudaGetDevice failed");
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaGetDeviceProperties(&prop, dev); e != cudaSuccess)
    return CallStatus::error("ktune runtime: device " + std::to_string(dev) + ": " +
                             cudaGetErrorString(e));
  DeviceSpec d = spec_of_device(prop);
  *used = dev;
  *out = std::move(d);
  return CallStatus::success();
}

void append_defaults(std::vector<Choice>& choices, const KernelFamily& family,
                     const Problem& normalized, const Space& space, const DeviceSpec& device) {
  choices.push_back({family.default_config(normalized, device), "default"});
  choices.push_back({space.default_config(), "space default"});
}

Dispatcher::Dispatcher(DeviceSpec device, std::unique_ptr<ConfigChooser> chooser,
                       std::unique_ptr<KernelSupplier> supplier, std::unique_ptr<Launcher> launcher)
    : device_(std::move(device)),
      plan_device_(rowwise::plan_device(device_)),
      chooser_(std::move(chooser)),
      supplier_(std::move(supplier)),
      launcher_(std::move(launcher)) {}

Dispatcher::~Dispatcher() = default;

CallStatus Dispatcher::call(const CallKey& key, const CallTensors& tensors, cudaStream_t stream) {
  std::shared_ptr<const Prepared> prepared;
  if (CallStatus s = prepare(key, &prepared); !s) return s;
  if (CallStatus s = check_tensors(*prepared, tensors); !s) return s;
  return launcher_->launch(*prepared, tensors, stream);
}

CallStatus Dispatcher::explain(const CallKey& key, Explanation* out) {
  std::shared_ptr<const Prepared> p;
  if (CallStatus s = prepare(key, &p); !s) return s;
  *out = {std::string(p->family->name()), p->problem.key(), p->config.key(), p->how};
  return CallStatus::success();
}

CallStatus Dispatcher::prepare(const CallKey& key, std::shared_ptr<const Prepared>* out) {
  {
    std::shared_lock lock(mutex_);
    if (auto it = prepared_.find(key); it != prepared_.end()) {
      *out = it->second;
      return CallStatus::success();
    }
  }
  std::shared_ptr<const Prepared> fresh;
  if (CallStatus s = prepare_uncached(key, &fresh); !s) return s;
  std::unique_lock lock(mutex_);
  // Another thread may have prepared the shape meanwhile: keep the first.
  *out = prepared_.emplace(key, std::move(fresh)).first->second;
  return CallStatus::success();
}

CallStatus Dispatcher::prepare_uncached(const CallKey& key, std::shared_ptr<const Prepared>* out) {
  // A key is built from a registered family; anything else is refused, never
  // served by a default family.
  const auto* rowwise_family = dynamic_cast<const rowwise::RowwiseFamily*>(key.family);
  if (!key.family || (key.kind != CallKind::gemm && key.kind != CallKind::rowwise) ||
      (key.kind == CallKind::rowwise) != (rowwise_family != nullptr))
    return CallStatus::error("ktune runtime: a call key without a known family (kind " +
                             std::to_string(static_cast<int>(key.kind)) + ")");
  const std::string family_text(key.family->name());
  try {
    const KernelFamily& family = *key.family;
    auto p = std::make_shared<Prepared>();
    p->kind = key.kind;
    p->family = key.family;
    p->problem = family.normalize(problem_of(key));
    const Space space = family.space(p->problem, device_);
    // The first candidate the space accepts for this problem runs.
    const std::vector<Choice> candidates = chooser_->candidates(family, p->problem, space, device_);
    std::string rejected;
    const Choice* chosen = nullptr;
    for (const Choice& c : candidates) {
      std::string why;
      if (space.is_valid(c.config, &why)) {
        chosen = &c;
        break;
      }
      rejected += "; " + c.how + " " + c.config.key() + " rejected: " + why;
    }
    if (!chosen)
      return CallStatus::error(family_text + " " + p->problem.key() +
                               ": no configuration fits the problem" + rejected);
    p->config = chosen->config;
    p->how = chosen->how;
    if (key.kind == CallKind::gemm) {
      p->gemm = GemmProblem::from(p->problem);
      p->knobs = GemmKnobs::from(p->config);
    } else {
      const rowwise::RowwiseSpec& spec = rowwise_family->spec();
      p->plan = rowwise::plan_launch(spec, p->problem, p->config, plan_device_);
      p->rows = p->problem.integer("rows");
      p->cols = p->problem.integer("cols");
      p->scalar = rowwise::kernel_scalar(spec, p->problem);
      p->column_vector = spec.column_vector();
    }
    if (CallStatus s = supplier_->kernels(family, p->problem, p->config, &p->kernels); !s)
      return CallStatus::error(family_text + " " + p->problem.key() + " with " + p->config.key() +
                               ": " + s.message());
    *out = std::move(p);
    return CallStatus::success();
  } catch (const std::exception& e) {
    return CallStatus::error(family_text + ": " + e.what());
  }
}

}  // namespace ktune::rt
