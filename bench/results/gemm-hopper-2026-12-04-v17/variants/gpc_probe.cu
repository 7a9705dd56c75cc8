// gpc_probe: which SMs share a GPC, read off cluster launches. A cluster's blocks always share one GPC, so
// clusters of 16 (non-portable), 8 and 4, one block per SM (~200 KB of shared memory each), as many as fit
// at once, each block recording its %smid, partition the SMs the launch reached into GPC groups. Then the
// plain grid of 132 and clusters of 2 (our wgmma launches) show the order in which blocks and clusters take
// those SMs. Prints "cluster_size block cluster_index smid" lines.
// Build: nvcc -std=c++17 -arch=sm_90a -o gpc_probe gpc_probe.cu
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void where(int* smid_of_block) {
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

int main() {
  const int threads = 128, smem = 200 * 1024;
  cudaFuncSetAttribute(where, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(where, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  int* d = nullptr;
  cudaMalloc(&d, 264 * sizeof(int));
  for (int cluster : {16, 8, 4, 2, 1}) {
    cudaLaunchConfig_t cfg{};
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    int clusters = 132 / cluster;
    cfg.gridDim = dim3(cluster);
    if (cudaOccupancyMaxActiveClusters(&clusters, where, &cfg) != cudaSuccess) clusters = 132 / cluster;
    if (cluster <= 2) clusters = 132 / cluster;  // our launches: the whole grid of 132 blocks
    const int blocks = clusters * cluster;
    cfg.gridDim = dim3(blocks);
    cudaMemset(d, 0xFF, 264 * sizeof(int));
    const cudaError_t e = cudaLaunchKernelEx(&cfg, where, d);
    const cudaError_t s = cudaDeviceSynchronize();
    if (e != cudaSuccess || s != cudaSuccess) {
      std::printf("cluster %d: %s\n", cluster, cudaGetErrorString(e != cudaSuccess ? e : s));
      cudaGetLastError();
      continue;
    }
    std::printf("# cluster %d: %d clusters at once\n", cluster, clusters);
    std::vector<int> h(blocks);
    cudaMemcpy(h.data(), d, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b) std::printf("%d %d %d %d\n", cluster, b, b / cluster, h[b]);
  }
  cudaFree(d);
  return 0;
}
