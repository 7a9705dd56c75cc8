// launch_overhead_probe: what a launch costs on the GPU's timeline, outside
// the kernel's own work, the way gemm_bench times a kernel (a 256 MB memset
// to flush the L2, then CUDA events around the launch; median of 30).
//
// v7 (bench/results/gemm-hopper-2026-12-01-v7.md at commit edeb949 §6) saw CUDA events put
// 4.6 us around our 128x4096x4096 wgmma kernel and 2.8 us around cuBLAS's.
// This probe times an almost empty kernel (each block stores one word) the
// ways our launches differ: plain; with 200 KB of dynamic shared memory
// (attribute set once, or set before every launch as GemmHarness does); as
// clusters of two blocks; with two 128-byte __grid_constant__ tensor-map-sized
// parameters; and the same store_one compiled at run time by NVRTC and launched
// from a cudaLibrary (as every ktune candidate is), with the attribute set once
// or before every launch. Each way's median is printed in microseconds.
//
// Usage: bench_launch_overhead_probe [blocks [threads]]   (defaults 128 x 384,
// the M = 512 wgmma grid and block).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <nvrtc.h>

#include "bench/probe_timing.hpp"
#include "kernels_templated/gpu/cluster_launch.hpp"

namespace {

using ktune::probe::check;

struct alignas(64) Opaque128 {
  unsigned long long words[16];
};

__global__ void store_one(int* sink) {
  if (threadIdx.x == 0) sink[blockIdx.x] = blockIdx.x;
}

__global__ void store_one_with_maps(const __grid_constant__ Opaque128 a, const __grid_constant__ Opaque128 b,
                                    int* sink) {
  if (threadIdx.x == 0) sink[blockIdx.x] = static_cast<int>(a.words[blockIdx.x % 16] + b.words[0]);
}

/// store_one, compiled by NVRTC for this device and loaded as a library; the
/// library stays loaded for the program's life.
cudaKernel_t runtime_compiled_store_one() {
  const char* source =
      "extern \"C\" __global__ void store_one(int* sink) { if (threadIdx.x == 0) sink[blockIdx.x] = blockIdx.x; }\n";
  nvrtcProgram program;
  if (nvrtcCreateProgram(&program, source, "store_one.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) std::exit(1);
  int major = 0, minor = 0;
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), "cc");
  check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0), "cc");
  const std::string arch = "--gpu-architecture=sm_" + std::to_string(major * 10 + minor);
  const char* options[] = {arch.c_str()};
  if (nvrtcCompileProgram(program, 1, options) != NVRTC_SUCCESS) {
    std::fprintf(stderr, "launch_overhead_probe: NVRTC could not compile store_one\n");
    std::exit(1);
  }
  std::size_t size = 0;
  nvrtcGetCUBINSize(program, &size);
  std::vector<char> cubin(size);
  nvrtcGetCUBIN(program, cubin.data());
  nvrtcDestroyProgram(&program);
  cudaLibrary_t library;
  check(cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), "load library");
  cudaKernel_t kernel;
  check(cudaLibraryGetKernel(&kernel, library, "store_one"), "library kernel");
  return kernel;
}

}  // namespace

int main(int argc, char** argv) {
  const int blocks = argc > 1 ? std::atoi(argv[1]) : 128;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 384;
  if (blocks < 2 || blocks % 2 != 0 || threads < 32 || threads > 1024) {
    std::fprintf(stderr, "usage: bench_launch_overhead_probe [blocks (even, >= 2) [threads (32..1024)]]\n");
    return 2;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("launch_overhead_probe: skipped, no CUDA device\n");
    return 0;
  }
  cudaStream_t s;
  check(cudaStreamCreate(&s), "stream");
  const std::size_t flush_bytes = std::size_t{256} << 20;
  void* flush = nullptr;
  int* sink = nullptr;
  check(cudaMalloc(&flush, flush_bytes), "flush buffer");
  check(cudaMalloc(&sink, blocks * sizeof(int)), "sink");
  const int big_smem = 200 * 1024;
  Opaque128 a{}, b{};
  for (int i = 0; i < 16; ++i) a.words[i] = b.words[i] = static_cast<unsigned long long>(i);
  void* plain_args[] = {&sink};
  void* map_args[] = {&a, &b, &sink};
  const void* plain = reinterpret_cast<const void*>(store_one);
  const void* with_maps = reinterpret_cast<const void*>(store_one_with_maps);
  check(cudaFuncSetAttribute(plain, cudaFuncAttributeMaxDynamicSharedMemorySize, big_smem), "attribute");
  check(cudaFuncSetAttribute(with_maps, cudaFuncAttributeMaxDynamicSharedMemorySize, big_smem), "attribute");
  const void* library_kernel = reinterpret_cast<const void*>(runtime_compiled_store_one());
  check(cudaFuncSetAttribute(library_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, big_smem), "attribute");

  auto launch = [&](const void* kernel, void** args, std::size_t smem, int cluster) {
    const ktune::ClusterLaunch l(dim3(blocks), dim3(threads), smem, s, cluster);
    return l.launch(kernel, args);
  };
  // As GemmHarness::launch does: the shared-memory attribute set again before every launch.
  auto launch_setting_attribute = [&](const void* kernel) {
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, big_smem);
        e != cudaSuccess)
      return e;
    return launch(kernel, plain_args, big_smem, 1);
  };
  struct Way {
    const char* name;
    std::function<cudaError_t()> run;
  };
  const std::vector<Way> ways = {
      {"plain, no dynamic smem", [&] { return launch(plain, plain_args, 0, 1); }},
      {"200 KB dynamic smem", [&] { return launch(plain, plain_args, big_smem, 1); }},
      {"200 KB, attribute set before each launch", [&] { return launch_setting_attribute(plain); }},
      {"200 KB, clusters of 2", [&] { return launch(plain, plain_args, big_smem, 2); }},
      {"200 KB, two 128-byte grid constants", [&] { return launch(with_maps, map_args, big_smem, 1); }},
      {"200 KB, grid constants, clusters of 2", [&] { return launch(with_maps, map_args, big_smem, 2); }},
      {"NVRTC library kernel, 200 KB", [&] { return launch(library_kernel, plain_args, big_smem, 1); }},
      {"NVRTC library kernel, 200 KB, attribute each launch", [&] { return launch_setting_attribute(library_kernel); }},
      {"NVRTC library kernel, 200 KB, clusters of 2", [&] { return launch(library_kernel, plain_args, big_smem, 2); }},
  };
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "event");
  check(cudaEventCreate(&e1), "event");
  std::vector<std::vector<double>> us(ways.size());
  constexpr int kWarmup = 3, kReps = 30;
  for (int rep = 0; rep < kWarmup + kReps; ++rep) {
    // In turns, as gemm_bench times its launches.
    for (std::size_t w = 0; w < ways.size(); ++w) {
      check(cudaMemsetAsync(flush, rep & 0xFF, flush_bytes, s), "flush");
      check(cudaEventRecord(e0, s), "record");
      check(ways[w].run(), ways[w].name);
      check(cudaEventRecord(e1, s), "record");
      check(cudaEventSynchronize(e1), "sync");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
      if (rep >= kWarmup) us[w].push_back(ms * 1e3);
    }
  }
  std::printf("launch overhead, %d blocks x %d threads, events around one launch after a 256 MB memset, "
              "median (min, max) of %d, us:\n",
              blocks, threads, kReps);
  for (std::size_t w = 0; w < ways.size(); ++w) {
    std::sort(us[w].begin(), us[w].end());
    std::printf("  %-45s %7.2f  (%.2f, %.2f)\n", ways[w].name, us[w][us[w].size() / 2], us[w].front(),
                us[w].back());
  }
  cudaFree(flush);
  cudaFree(sink);
  cudaStreamDestroy(s);
  return 0;
}
