// RowwiseLauncher: the launches of a row-wise launch plan, and the device
// facts the plan depends on.
#include "kernels_templated/rowwise/gpu/rowwise_launch.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "kernels_templated/gpu/cluster_launch.hpp"
#include "kernels_templated/rowwise/args.h"

namespace ktune::rowwise {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

}  // namespace

PlanDevice query_plan_device(int dev) {
  PlanDevice d;
  check(cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, dev), "query SM count");
  check(cudaDeviceGetAttribute(&d.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev),
        "query threads per SM");
  check(cudaDeviceGetAttribute(&d.max_blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, dev),
        "query blocks per SM");
  check(cudaDeviceGetAttribute(&d.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev),
        "query shared memory per SM");
  check(
      cudaDeviceGetAttribute(&d.smem_per_block_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
      "query shared memory per block");
  return d;
}

cudaError_t RowwiseLauncher::launch(const LaunchPlan& plan, const RowwiseCall& call,
                                    const RowwiseScratch& scratch,
                                    std::span<const cudaKernel_t> kernels, cudaStream_t stream) {
  if (kernels.size() != plan.kernels.size()) return cudaErrorInvalidValue;
  if (plan.workspace_floats > scratch.ws_floats || plan.counters > scratch.counter_count)
    return cudaErrorInvalidValue;
  ktune_rw::RowwiseArgs args{};
  args.x = call.x;
  args.w = call.w;
  args.y = call.y;
  args.ws = plan.workspace_floats > 0 ? scratch.ws : nullptr;
  args.counters = plan.counters > 0 ? scratch.counters : nullptr;
  args.rows = call.rows;
  args.cols = call.cols;
  args.seg_len = plan.seg_len;
  args.split = plan.split;
  args.eps = call.eps;
  void* params[] = {&args};
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const KernelLaunch& k = plan.kernels[i];
    const cudaKernel_t kernel = kernels[i];
    cudaError_t e = cudaSuccess;
    // Attributes are set on every launch: a kernel handle is not kept across
    // cubins, and the calls are cheap next to a kernel that streams a tensor.
    const bool attributes_set = kernels_stable_ && attributes_set_.count({kernel, k.dynamic_smem});
    if (k.dynamic_smem > 0 && !attributes_set) {
      e = cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          k.dynamic_smem, device_id_);
      if (e == cudaSuccess)
        e = cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared, device_id_);
      if (e != cudaSuccess) return e;
    }
    if (k.cluster > 8 && !attributes_set) {
      e = cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1,
                                          device_id_);
      if (e != cudaSuccess) return e;
    }
    if (kernels_stable_ && !attributes_set) attributes_set_.insert({kernel, k.dynamic_smem});
    const long long grid_x = k.persistent ? persistent_grid(k, kernel) : k.grid_x;
    if (grid_x > INT_MAX || k.grid_y > 65535) return cudaErrorInvalidConfiguration;
    const dim3 grid(static_cast<unsigned>(grid_x), static_cast<unsigned>(k.grid_y));
    const dim3 block(static_cast<unsigned>(k.block));
    // A cluster of 1, not cooperative, is an ordinary launch (ClusterLaunch attaches no attribute).
    const ClusterLaunch launch_config(grid, block, static_cast<std::size_t>(k.dynamic_smem), stream,
                                      k.cluster, k.cooperative);
    e = launch_config.launch(reinterpret_cast<const void*>(kernel), params);
    if (e != cudaSuccess) return e;
  }
  return cudaGetLastError();
}

long long RowwiseLauncher::persistent_grid(const KernelLaunch& k, cudaKernel_t kernel) {
  const std::string key = k.name_expression + "|" + std::to_string(k.block) + "|" +
                          std::to_string(k.dynamic_smem) + "|" + std::to_string(k.cluster);
  auto it = resident_.find(key);
  if (it == resident_.end()) {
    // What the device holds at once, registers and cluster placement included
    // (a GPC that cannot fit another whole cluster leaves SMs idle): a larger
    // grid would run as a second, partial wave of the persistent loop.
    long long resident = 0;
    if (k.cluster > 1) {
      // No stream: the query launches nothing.
      const ClusterLaunch query(dim3(static_cast<unsigned>(k.grid_x)),
                                dim3(static_cast<unsigned>(k.block)),
                                static_cast<std::size_t>(k.dynamic_smem), nullptr, k.cluster);
      int clusters = 0;
      if (query.max_active_clusters(reinterpret_cast<const void*>(kernel), &clusters) ==
          cudaSuccess)
        resident = static_cast<long long>(clusters) * k.cluster;
    } else {
      int blocks = 0;
      if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
              &blocks, reinterpret_cast<const void*>(kernel), k.block,
              static_cast<std::size_t>(k.dynamic_smem)) == cudaSuccess)
        resident = static_cast<long long>(blocks) * device_.sm_count;
    }
    cudaGetLastError();  // a failed query leaves the planned grid; the launch reports real errors
    it = resident_.emplace(key, resident).first;
  }
  // Whole groups only (a cluster, or a linked row's segments, walks rows together).
  const long long resident = it->second / k.group * k.group;
  return resident > 0 ? std::min(k.grid_x, resident) : k.grid_x;
}

}  // namespace ktune::rowwise
