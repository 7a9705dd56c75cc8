// GpuLauncher: per-stream launch state and the calls into the shared launchers.
#include "runtime/gpu_launcher.hpp"

#include "kernels_templated/gemm/gpu/gemm_launch.hpp"
#include "kernels_templated/gemm/gpu/growing_device_buffer.hpp"
#include "kernels_templated/rowwise/gpu/rowwise_launch.hpp"
#include "kernels_templated/rowwise/rowwise_family.hpp"

namespace ktune::rt {

struct GpuLauncher::StreamState {
  std::mutex mutex;
  GemmLauncher gemm;
  rowwise::RowwiseLauncher rowwise;
  GrowingDeviceBuffer<float> workspace;    ///< row-wise split partials
  GrowingDeviceBuffer<unsigned> counters;  ///< row-wise counters, kept at zero by the kernels
};

GpuLauncher::GpuLauncher(const DeviceSpec& device, int device_id)
    : sm_count_(device.sm_count),
      plan_device_(rowwise::plan_device(device)),
      device_id_(device_id) {}

GpuLauncher::~GpuLauncher() = default;

GpuLauncher::StreamState& GpuLauncher::state_of(cudaStream_t stream) {
  std::lock_guard lock(mutex_);
  auto& slot = states_[stream];
  if (!slot) {
    slot = std::make_unique<StreamState>();
    slot->gemm.set_sm_count(sm_count_);
    slot->rowwise.set_device(plan_device_, device_id_);
    // Kernel sets stay loaded until the runtime (and with it this launcher) is destroyed.
    slot->gemm.set_kernels_stable(true);
    slot->rowwise.set_kernels_stable(true);
  }
  return *slot;
}

CallStatus GpuLauncher::launch(const Prepared& p, const CallTensors& t, cudaStream_t stream) {
  StreamState& s = state_of(stream);
  std::lock_guard lock(s.mutex);
  const std::span<const cudaKernel_t> kernels(p.kernels->kernels);
  cudaError_t e = cudaSuccess;
  if (p.kind == CallKind::gemm) {
    e = s.gemm.launch(p.gemm, p.knobs, {t.in0, t.in1, t.out, t.aux}, kernels, stream);
  } else {
    if (p.plan.workspace_floats > 0)
      e = s.workspace.grow_to(static_cast<std::size_t>(p.plan.workspace_floats));
    if (e == cudaSuccess && static_cast<long long>(s.counters.size()) < p.plan.counters) {
      e = s.counters.grow_to(static_cast<std::size_t>(p.plan.counters));
      if (e == cudaSuccess) e = cudaMemsetAsync(s.counters.data(), 0, s.counters.bytes(), stream);
    }
    if (e == cudaSuccess) {
      const rowwise::RowwiseCall call{t.in0, t.in1, t.out, p.rows, p.cols, p.scalar};
      const rowwise::RowwiseScratch scratch{
          s.workspace.data(), static_cast<long long>(s.workspace.size()), s.counters.data(),
          static_cast<long long>(s.counters.size())};
      e = s.rowwise.launch(p.plan, call, scratch, kernels, stream);
    }
  }
  if (e != cudaSuccess)
    return CallStatus::error(std::string(p.family->name()) + " launch of " + p.config.key() + ": " +
                             cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
  return CallStatus::success();
}

}  // namespace ktune::rt
