// ClusterLaunch: the launch configuration of a kernel whose blocks form 1-D
// thread-block clusters, built one way for the harnesses' launches and their
// persistent-grid occupancy queries.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace ktune {

/// A cudaLaunchConfig_t (grid, block, dynamic shared memory, stream) whose
/// blocks form clusters of `cluster` blocks along x (y = z = 1). A cluster of
/// 1 attaches no attribute: an ordinary launch that still goes through
/// cudaLaunchKernelExC. The configuration points at the attribute this object
/// owns, so it is neither copied nor moved.
class ClusterLaunch {
 public:
  ClusterLaunch(dim3 grid, dim3 block, std::size_t dynamic_smem, cudaStream_t stream, int cluster) {
    cluster_attr_.id = cudaLaunchAttributeClusterDimension;
    cluster_attr_.val.clusterDim.x = static_cast<unsigned>(cluster);
    cluster_attr_.val.clusterDim.y = 1;
    cluster_attr_.val.clusterDim.z = 1;
    config_.gridDim = grid;
    config_.blockDim = block;
    config_.dynamicSmemBytes = dynamic_smem;
    config_.stream = stream;
    config_.attrs = &cluster_attr_;
    config_.numAttrs = cluster > 1 ? 1 : 0;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;

  /// Launches `kernel` with `args` (cudaLaunchKernelExC); returns its error.
  cudaError_t launch(const void* kernel, void** args) const {
    return cudaLaunchKernelExC(&config_, kernel, args);
  }
  /// How many clusters of this configuration the device holds at once
  /// (cudaOccupancyMaxActiveClusters); returns its error.
  cudaError_t max_active_clusters(const void* kernel, int* clusters) const {
    return cudaOccupancyMaxActiveClusters(clusters, kernel, &config_);
  }

 private:
  cudaLaunchAttribute cluster_attr_{};
  cudaLaunchConfig_t config_{};
};

}  // namespace ktune
