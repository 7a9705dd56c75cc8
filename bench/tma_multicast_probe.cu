// tma_multicast_probe: what a TMA multicast costs the L2 on this GPU. Clusters
// of two blocks stream the same 128-row x 64-column bf16 tiles of a matrix
// into shared memory, three ways, with the GEMM's tensor maps (128-byte
// swizzle, 64-column boxes):
//   own:       each block loads the whole tile itself (the pair reads it twice);
//   multicast: each block loads 64 rows and multicasts them to both blocks
//              (the pair's wgmma GEMM loads its shared operand this way);
//   half:      each block loads only its own 64 rows (the bytes a multicast
//              moves, delivered once).
// Run it under ncu with lts__t_sectors_op_read.sum: if multicast reads as
// `half`, the L2 serves a multicast tile once; if as `own`, once per block.
// It also prints each way's time (CUDA events, median of 20) and the bytes
// the blocks received per second.
//
// Usage: bench_tma_multicast_probe [rows [cols [clusters]]]   (defaults 8448 x
// 8192, a 138 MB matrix, and one cluster per 128 rows: 66 clusters, each
// streaming its rows' 128 tiles). More clusters than 128-row bands wrap
// around the bands: a small matrix read by every SM at once stays in the L2
// and loads the L2-to-SM path, where a multicast should save bandwidth.
#include <cuda/ptx>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "bench/probe_bulk.cuh"
#include "bench/probe_timing.hpp"
#include "kernels_templated/gemm/gpu/tma_map.hpp"
#include "kernels_templated/gpu/cluster_launch.hpp"

namespace {

using ktune::probe::check;

enum Mode { kOwn = 0, kMulticast = 1, kHalf = 2 };
constexpr const char* kModeName[] = {"own", "multicast", "half"};
constexpr int kRows = 128, kCols = 64, kStages = 4;
constexpr unsigned kTileBytes = kRows * kCols * 2;

using ktune::probe::smem_addr;

/// Cluster c streams rows [128b, 128b + 128), b = c % bands, tile by tile along the columns
/// through a ring of kStages stages; the pair steps together (a cluster
/// barrier per tile), so a stage is refilled, by either block, only after
/// both consumed it. `sink` keeps the loads from being optimized away.
template <int MODE>
__global__ void __launch_bounds__(32) stream_tiles(const __grid_constant__ CUtensorMap map, int col_tiles, int bands,
                                                   float* sink) {
  extern __shared__ unsigned char raw[];
  unsigned char* ring = raw + ((1024 - (smem_addr(raw) & 1023)) & 1023);
  __shared__ alignas(8) cuda::std::uint64_t full[kStages];
  const int rank = static_cast<int>(cuda::ptx::get_sreg_cluster_ctarank());
  const int row0 = (blockIdx.x / 2 % bands) * kRows;
  // Bytes that land in this block per tile: the whole tile, or (half) its own rows.
  constexpr unsigned kExpected = MODE == kHalf ? kTileBytes / 2 : kTileBytes;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) cuda::ptx::mbarrier_init(&full[s], 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  cuda::ptx::barrier_cluster_arrive();
  cuda::ptx::barrier_cluster_wait();

  auto issue = [&](int tile) {
    const int stage = tile % kStages;
    unsigned char* dst = ring + stage * kTileBytes;
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                         &full[stage], kExpected);
    if constexpr (MODE == kOwn) {
      const cuda::std::int32_t coords[2] = {tile * kCols, row0};
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_shared, cuda::ptx::space_global, dst, &map, coords,
                                      &full[stage]);
    } else {
      // This block's 64 rows (the map's box is 64 rows here), at the same offset in each block.
      const cuda::std::int32_t coords[2] = {tile * kCols, row0 + rank * kRows / 2};
      unsigned char* half_dst = dst + rank * kTileBytes / 2;
      if constexpr (MODE == kMulticast)
        cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, half_dst, &map, coords,
                                        &full[stage], static_cast<cuda::std::uint16_t>(0b11));
      else
        cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_shared, cuda::ptx::space_global, half_dst, &map, coords,
                                        &full[stage]);
    }
  };
  if (threadIdx.x == 0)
    for (int t = 0; t < kStages && t < col_tiles; ++t) issue(t);
  float acc = 0.f;
  for (int t = 0; t < col_tiles; ++t) {
    const int stage = t % kStages;
    while (!cuda::ptx::mbarrier_try_wait_parity(&full[stage], static_cast<unsigned>((t / kStages) & 1))) {
    }
    acc += __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(ring + stage * kTileBytes)[threadIdx.x]);
    // Both blocks are done with this stage before either refills it.
    cuda::ptx::barrier_cluster_arrive();
    cuda::ptx::barrier_cluster_wait();
    if (threadIdx.x == 0 && t + kStages < col_tiles) issue(t + kStages);
  }
  if (acc == 12345.f) sink[blockIdx.x] = acc;  // never true for the data below; keeps the reads
}

template <int MODE>
float run(const void* matrix, int rows, int cols, int clusters, float* sink) {
  CUtensorMap map;
  const unsigned box_rows = MODE == kOwn ? kRows : kRows / 2;
  check(ktune::encode_tma_map_2d(&map, matrix, true, rows, cols, cols, box_rows, kCols), "tensor map");
  int col_tiles = cols / kCols;
  int bands = rows / kRows;
  const std::size_t smem = kStages * kTileBytes + 1024;
  const void* kernel = reinterpret_cast<const void*>(&stream_tiles<MODE>);
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)), "smem");
  const ktune::ClusterLaunch launch(dim3(static_cast<unsigned>(clusters * 2)), dim3(32), smem, nullptr, 2);
  void* args[] = {&map, &col_tiles, &bands, &sink};
  // 3 warm-up launches, then the median of 20 timed.
  return ktune::probe::median_event_ms([&] { check(launch.launch(kernel, args), "launch"); }, 3, 20);
}

}  // namespace

int main(int argc, char** argv) {
  const int rows = argc > 1 ? std::atoi(argv[1]) : 8448;
  const int cols = argc > 2 ? std::atoi(argv[2]) : 8192;
  const int clusters = argc > 3 ? std::atoi(argv[3]) : rows / kRows;
  if (rows <= 0 || cols <= 0 || rows % kRows != 0 || cols % kCols != 0 || clusters <= 0) {
    std::fprintf(stderr, "tma_multicast_probe: rows must be a positive multiple of %d, cols of %d, clusters > 0\n",
                 kRows, kCols);
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("tma_multicast_probe: skipped, no CUDA device\n");
    return 0;
  }
  const std::size_t bytes = static_cast<std::size_t>(rows) * cols * 2;
  void* matrix = nullptr;
  float* sink = nullptr;
  check(cudaMalloc(&matrix, bytes), "matrix");
  check(cudaMalloc(&sink, clusters * 2 * sizeof(float)), "sink");
  // Ones (not zeros: a stream of zeros may be cheaper): the sums stay far from the sentinel.
  std::vector<__nv_bfloat16> host(static_cast<std::size_t>(rows) * cols, __float2bfloat16(1.f));
  check(cudaMemcpy(matrix, host.data(), bytes, cudaMemcpyHostToDevice), "upload");
  std::printf("matrix %d x %d bf16 (%.1f MB), %d clusters of 2 blocks, tiles of %d x %d\n", rows, cols, bytes / 1e6,
              clusters, kRows, kCols);
  std::printf("%-10s %10s %22s\n", "mode", "median ms", "bytes landed GB/s");
  const float t_own = run<kOwn>(matrix, rows, cols, clusters, sink);
  const float t_mc = run<kMulticast>(matrix, rows, cols, clusters, sink);
  const float t_half = run<kHalf>(matrix, rows, cols, clusters, sink);
  // Bytes written into shared memory: own and multicast land each cluster's band in both blocks, half once.
  const double band_bytes = static_cast<double>(kRows) * cols * 2 * clusters;
  std::printf("%-10s %10.4f %22.1f\n", kModeName[kOwn], t_own, 2.0 * band_bytes / t_own / 1e6);
  std::printf("%-10s %10.4f %22.1f\n", kModeName[kMulticast], t_mc, 2.0 * band_bytes / t_mc / 1e6);
  std::printf("%-10s %10.4f %22.1f\n", kModeName[kHalf], t_half, band_bytes / t_half / 1e6);
  cudaFree(matrix);
  cudaFree(sink);
  return 0;
}
