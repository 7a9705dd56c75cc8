// gpc_probe: which SMs share a GPC, and where our launches put their blocks.
// A cluster's blocks always share one GPC, so clusters of 16 (non-portable),
// 8 and 4, one block per SM (~200 KB of shared memory each), as many as fit
// at once, each block recording its %smid, partition the SMs they reached
// into GPC groups. Then a plain grid of 132 blocks and 66 clusters of 2 (the
// wgmma kernels' persistent launches) show the order in which blocks and
// clusters take those SMs. Prints "cluster_size block cluster_index smid"
// lines, a "# cluster C: N clusters at once" line before each launch's.
// Usage: bench_gpc_probe (on the H200: run F of bench/results/gemm-hopper-2026-12-04-v17.md
// at commit edeb949)
#include <algorithm>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

#include "bench/probe_timing.hpp"

namespace {

__global__ void record_smid(int* smid_of_block) {
  extern __shared__ unsigned char smem[];
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  if (threadIdx.x == 0) {
    smem[0] = 1;  // touch the allocation
    smid_of_block[blockIdx.x] = static_cast<int>(id);
  }
  // Stay resident long enough that every block of the grid is placed before any leaves.
  const long long start = clock64();
  while (clock64() - start < 4000000) {
  }
}

constexpr int kThreads = 128, kSmemBytes = 200 * 1024, kMaxBlocks = 264;

}  // namespace

int main() {
  KTUNE_PROBE_CHECK(cudaFuncSetAttribute(record_smid, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  KTUNE_PROBE_CHECK(cudaFuncSetAttribute(record_smid, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  int sms = 0;
  KTUNE_PROBE_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int* d = nullptr;
  KTUNE_PROBE_CHECK(cudaMalloc(&d, kMaxBlocks * sizeof(int)));
  for (int cluster : {16, 8, 4, 2, 1}) {
    cudaLaunchConfig_t cfg{};
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = kSmemBytes;
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    // Clusters of 4 and more: as many as the device holds at once. Clusters of
    // 2 and single blocks: one per SM pair or SM, as our persistent launches.
    int clusters = sms / cluster;
    if (cluster > 2) {
      cfg.gridDim = dim3(cluster);
      KTUNE_PROBE_CHECK(cudaOccupancyMaxActiveClusters(&clusters, record_smid, &cfg));
    }
    const int blocks = std::min(clusters * cluster, kMaxBlocks);
    cfg.gridDim = dim3(blocks);
    KTUNE_PROBE_CHECK(cudaMemset(d, 0xFF, kMaxBlocks * sizeof(int)));
    const cudaError_t launched = cudaLaunchKernelEx(&cfg, record_smid, d);
    const cudaError_t finished = cudaDeviceSynchronize();
    if (launched != cudaSuccess || finished != cudaSuccess) {
      // Clusters of 16 are non-portable: say so and go on with the others.
      std::printf("# cluster %d: %s\n", cluster, cudaGetErrorString(launched != cudaSuccess ? launched : finished));
      cudaGetLastError();
      continue;
    }
    std::printf("# cluster %d: %d clusters at once\n", cluster, clusters);
    std::vector<int> smid(blocks);
    KTUNE_PROBE_CHECK(cudaMemcpy(smid.data(), d, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; ++b) std::printf("%d %d %d %d\n", cluster, b, b / cluster, smid[b]);
  }
  KTUNE_PROBE_CHECK(cudaFree(d));
  return 0;
}
