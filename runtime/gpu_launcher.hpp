// GpuLauncher: the real Launcher. One state per stream (the gemm and row-wise
// launchers, the split-K / row-split workspace and counters), so calls on
// different streams never share a workspace, and a shape launched once on a
// stream launches again without allocating (graph capture is then possible).
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>

#include "runtime/dispatcher.hpp"

namespace ktune::rt {

class GpuLauncher final : public Launcher {
 public:
  GpuLauncher(const DeviceSpec& device, int device_id);
  ~GpuLauncher() override;
  CallStatus launch(const Prepared& prepared, const CallTensors& tensors,
                    cudaStream_t stream) override;

 private:
  struct StreamState;
  StreamState& state_of(cudaStream_t stream);

  int sm_count_;
  rowwise::PlanDevice plan_device_;
  int device_id_;
  std::mutex mutex_;  ///< guards states_ (each state has its own lock)
  std::unordered_map<cudaStream_t, std::unique_ptr<StreamState>> states_;
};

}  // namespace ktune::rt
