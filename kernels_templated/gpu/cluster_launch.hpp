// ClusterLaunch: the launch configuration of a kernel whose blocks form 1-D
// thread-block clusters, built one way for the harnesses' launches and their
// persistent-grid occupancy queries.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace ktune {

/// A cudaLaunchConfig_t (grid, block, dynamic shared memory, stream) whose
/// blocks form clusters of `cluster` blocks along x (y = z = 1), and, when
/// `cooperative`, whose blocks must all be resident at once (the launch fails
/// with cudaErrorCooperativeLaunchTooLarge otherwise). A cluster of 1 that is
/// not cooperative attaches no attribute: an ordinary launch that still goes
/// through cudaLaunchKernelExC. The configuration points at the attributes
/// this object owns, so it is neither copied nor moved.
class ClusterLaunch {
 public:
  ClusterLaunch(dim3 grid, dim3 block, std::size_t dynamic_smem, cudaStream_t stream, int cluster,
                bool cooperative = false) {
    config_.gridDim = grid;
    config_.blockDim = block;
    config_.dynamicSmemBytes = dynamic_smem;
    config_.stream = stream;
    config_.attrs = attrs_;
    if (cluster > 1) {
      cudaLaunchAttribute& a = attrs_[config_.numAttrs++];
      a.id = cudaLaunchAttributeClusterDimension;
      a.val.clusterDim.x = static_cast<unsigned>(cluster);
      a.val.clusterDim.y = 1;
      a.val.clusterDim.z = 1;
    }
    if (cooperative) {
      cudaLaunchAttribute& a = attrs_[config_.numAttrs++];
      a.id = cudaLaunchAttributeCooperative;
      a.val.cooperative = 1;
    }
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
  cudaLaunchAttribute attrs_[2]{};
  cudaLaunchConfig_t config_{};
};

}  // namespace ktune
