// smid_probe: which SM (and GPC-order position) each block of a persistent-sized grid lands on, for the
// wgmma kernel's launch shapes: 132 blocks of 384 threads with ~200 KB of dynamic shared memory (one block
// per SM), without a cluster and in clusters of two. Prints "cluster_size block smid" lines.
// Build: nvcc -std=c++17 -arch=sm_90a -o smid_probe smid_probe.cu
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
  while (clock64() - start < 2000000) {
  }
}

int main() {
  const int blocks = 132, threads = 384, smem = 200 * 1024;
  cudaFuncSetAttribute(where, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  int* d = nullptr;
  cudaMalloc(&d, blocks * sizeof(int));
  for (int cluster : {1, 2}) {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = cluster > 1 ? 1 : 0;
    cudaMemset(d, 0xFF, blocks * sizeof(int));
    const cudaError_t e = cudaLaunchKernelEx(&cfg, where, d);
    const cudaError_t s = cudaDeviceSynchronize();
    if (e != cudaSuccess || s != cudaSuccess) {
      std::printf("cluster %d: %s\n", cluster, cudaGetErrorString(e != cudaSuccess ? e : s));
      continue;
    }
    std::vector<int> h(blocks);
    cudaMemcpy(h.data(), d, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b) std::printf("%d %d %d\n", cluster, b, h[b]);
  }
  cudaFree(d);
  return 0;
}
