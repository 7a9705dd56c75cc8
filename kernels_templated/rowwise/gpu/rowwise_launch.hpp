// RowwiseLauncher: launches the kernels of one row-wise family's launch
// plan on caller buffers (attributes, persistent grids, clusters). The
// harness and libktune_runtime both launch through it.
#pragma once

#include <map>
#include <set>
#include <span>
#include <string>

#include <cuda_runtime_api.h>

#include "kernels_templated/rowwise/launch_plan.hpp"

namespace ktune::rowwise {

/// One call's tensors and sizes.
struct RowwiseCall {
  const void* x = nullptr;
  const void* w = nullptr;  ///< the family's column vector (rmsnorm's weight), else null
  void* y = nullptr;
  long long rows = 0, cols = 0;
  float eps = 0;  ///< the family's real parameter (rmsnorm's epsilon), else 0
};

/// Workspace and counters the plan may use (counters zeroed; kernels leave them zero).
struct RowwiseScratch {
  float* ws = nullptr;
  long long ws_floats = 0;
  unsigned* counters = nullptr;
  long long counter_count = 0;
};

/// Not thread-safe (its occupancy cache): one launcher per stream or a lock.
class RowwiseLauncher {
 public:
  RowwiseLauncher() = default;
  RowwiseLauncher(const PlanDevice& device, int device_id)
      : device_(device), device_id_(device_id) {}
  /// The caller keeps every kernel it passes loaded while this launcher
  /// lives: kernel attributes are then set once per kernel, not per launch.
  void set_kernels_stable(bool stable) { kernels_stable_ = stable; }
  void set_device(const PlanDevice& device, int device_id) {
    device_ = device;
    device_id_ = device_id;
  }

  /// Launches `kernels` (the plan's, in order). cudaErrorInvalidValue when the
  /// kernel count does not match or the scratch is smaller than the plan needs.
  cudaError_t launch(const LaunchPlan& plan, const RowwiseCall& call, const RowwiseScratch& scratch,
                     std::span<const cudaKernel_t> kernels, cudaStream_t stream);

 private:
  /// The grid of a persistent launch: the planned grid, at most what the
  /// device holds at once (occupancy query, cached per kernel instance).
  long long persistent_grid(const KernelLaunch& k, cudaKernel_t kernel);

  PlanDevice device_;
  int device_id_ = 0;
  bool kernels_stable_ = false;
  std::set<std::pair<cudaKernel_t, int>>
      attributes_set_;                         ///< (kernel, dynamic smem) set (kernels_stable_)
  std::map<std::string, long long> resident_;  ///< persistent_grid's cache: blocks resident at once
};

/// The device facts of the current CUDA device (throws std::runtime_error on a CUDA error).
PlanDevice query_plan_device(int device_id);

}  // namespace ktune::rowwise
