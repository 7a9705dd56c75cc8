// rmsnorm_bulk_probe: can RMSNorm over bf16 rows of 4096 reach the copy's
// bandwidth if every warp keeps whole rows in flight with bulk copies?
//
// Issue 8's one miss is rmsnorm 32768x4096 bf16 at 95% of the cudaMemcpy rate
// (results rowwise v7/v8); the family's best block holds one row segment in
// shared memory, filled by 16-byte cp.async, and moves on only when the row
// is written. Here each warp owns a ring of DEPTH row slots in shared memory:
// lane 0 fills a slot with one cp.async.bulk of the whole 8 KiB row (TMA,
// completion counted on the slot's mbarrier), the warp reduces the row,
// refills the slot with the row DEPTH ahead, then writes the output from
// registers. No block-wide barrier anywhere, and DEPTH rows per warp are
// always on their way.
//
// Each configuration is verified against the row-wise harnesses' fp64
// reference on seeded random data, with their device-side comparison (the
// output poisoned first; unwritten, non-finite or off elements fail), then
// timed: CUDA events,
// 3 warm-ups, median of 20. The D2D cudaMemcpy of 1 GiB and a plain 16-byte
// copy kernel over the same 512 MB are timed in the same process.
//
// Usage: bench_rmsnorm_bulk_probe [rows]   (default 32768)
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "bench/probe_bulk.cuh"
#include "bench/probe_timing.hpp"
#include "kernels_templated/rowwise/gpu/rowwise_reference.hpp"

namespace ktune {
// The rmsnorm family's fp64 reference (kernels_templated/rmsnorm/gpu/).
cudaError_t rmsnorm_rowwise_reference(const rowwise::ReferenceCall& call);
// Its element bound for bf16 rows of `cols` (rmsnorm_bulk_probe_host.cpp).
verify::ElementBound rmsnorm_bf16_bound(long long cols);
}  // namespace ktune

namespace {

constexpr int kCols = 4096;
constexpr unsigned kRowBytes = kCols * 2;
constexpr int kVecsPerLane = kRowBytes / 16 / 32;  // 16-byte vectors of a row per lane: 16

using ktune::probe::smem_addr;
using ktune::probe::wait_parity;

__device__ __forceinline__ void bulk_load_row(unsigned dst, const void* src, unsigned bar) {
  ktune::probe::bulk_load(dst, src, kRowBytes, bar);
}

__device__ __forceinline__ float2 bf2_to_f2(unsigned v) {
  return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&v));
}
__device__ __forceinline__ unsigned f2_to_bf2(float a, float b) {
  __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
  return *reinterpret_cast<unsigned*>(&h);
}

/// y = x / sqrt(mean(x^2) + eps) * w over rows of kCols bf16. Warp g of the
/// grid takes rows g, g + warps, ...; STREAM stores with .cs (evict-first).
template <int WARPS, int DEPTH, bool STREAM>
__global__ void __launch_bounds__(WARPS * 32, 1)
    rmsnorm_bulk(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w, __nv_bfloat16* y, int rows,
                 float eps) {
  extern __shared__ __align__(128) unsigned char slots[];
  __shared__ alignas(8) unsigned long long bars[WARPS * DEPTH];
  __shared__ alignas(16) unsigned char weights[kRowBytes];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int total_warps = gridDim.x * WARPS;
  const int first = blockIdx.x * WARPS + warp;
  const unsigned slot0 = smem_addr(slots) + warp * DEPTH * kRowBytes;
  const unsigned bar0 = smem_addr(&bars[warp * DEPTH]);
  if (lane == 0) {
    for (int s = 0; s < DEPTH; ++s)
      ktune::probe::init_barrier(bar0 + 8 * s);
    ktune::probe::fence_barrier_init();
    for (int s = 0; s < DEPTH; ++s) {
      const int row = first + s * total_warps;
      if (row < rows) bulk_load_row(slot0 + s * kRowBytes, x + static_cast<long long>(row) * kCols, bar0 + 8 * s);
    }
  }
  __syncwarp();

  // The weights, once per block, in shared memory (registers would spill: the
  // row's 16 vectors per lane already take 64).
  for (int i = threadIdx.x; i < kRowBytes / 16; i += WARPS * 32)
    reinterpret_cast<uint4*>(weights)[i] = reinterpret_cast<const uint4*>(w)[i];
  __syncthreads();

  for (int i = 0;; ++i) {
    const int row = first + i * total_warps;
    if (row >= rows) break;
    const int s = i % DEPTH;
    const unsigned slot = slot0 + s * kRowBytes;
    wait_parity(bar0 + 8 * s, (i / DEPTH) & 1);
    uint4 xv[kVecsPerLane];
#pragma unroll
    for (int j = 0; j < kVecsPerLane; ++j)
      asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                   : "=r"(xv[j].x), "=r"(xv[j].y), "=r"(xv[j].z), "=r"(xv[j].w)
                   : "r"(slot + (lane + 32 * j) * 16));
    float ss0 = 0.f, ss1 = 0.f;
#pragma unroll
    for (int j = 0; j < kVecsPerLane; ++j) {
      const unsigned u[4] = {xv[j].x, xv[j].y, xv[j].z, xv[j].w};
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const float2 f = bf2_to_f2(u[q]);
        ss0 = fmaf(f.x, f.x, ss0);
        ss1 = fmaf(f.y, f.y, ss1);
      }
    }
    float ss = ss0 + ss1;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    // Every lane has consumed its reads of the slot (the shuffles used them):
    // refill it with the row DEPTH ahead. The proxy fence orders the generic
    // reads before the bulk copy's writes.
    if (lane == 0) {
      const int next = row + DEPTH * total_warps;
      if (next < rows) {
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        bulk_load_row(slot, x + static_cast<long long>(next) * kCols, bar0 + 8 * s);
      }
    }
    const float scale = rsqrtf(ss / kCols + eps);
    uint4* out = reinterpret_cast<uint4*>(y + static_cast<long long>(row) * kCols);
#pragma unroll
    for (int j = 0; j < kVecsPerLane; ++j) {
      const unsigned u[4] = {xv[j].x, xv[j].y, xv[j].z, xv[j].w};
      const uint4 wv = reinterpret_cast<const uint4*>(weights)[lane + 32 * j];
      const unsigned wu[4] = {wv.x, wv.y, wv.z, wv.w};
      unsigned o[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const float2 f = bf2_to_f2(u[q]), g = bf2_to_f2(wu[q]);
        o[q] = f2_to_bf2(f.x * scale * g.x, f.y * scale * g.y);
      }
      uint4* dst = out + lane + 32 * j;
      if constexpr (STREAM)
        asm volatile("st.global.cs.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"l"(dst), "r"(o[0]), "r"(o[1]), "r"(o[2]),
                     "r"(o[3])
                     : "memory");
      else
        *dst = make_uint4(o[0], o[1], o[2], o[3]);
    }
  }
}

__global__ void copy16(const uint4* __restrict__ src, uint4* dst, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

constexpr float kEps = 1e-6f;
constexpr int kWarmups = 3, kReps = 20;  // every timing: median of 20 after 3 warm-ups
using ktune::probe::median_event_ms;

/// The problem on the device: input, weights, output, the fp64 reference
/// output and the comparison's scratch.
struct Buffers {
  int rows;
  __nv_bfloat16 *x, *w, *y;
  double* ref;
  ktune::rowwise::CompareStats* scratch;
};

/// Runs, verifies and times one configuration; prints a table row. Returns false on a wrong result.
template <int WARPS, int DEPTH, bool STREAM>
bool run_config(const Buffers& b, int sms, double copy_gbs) {
  auto kernel = rmsnorm_bulk<WARPS, DEPTH, STREAM>;
  const int smem = WARPS * DEPTH * kRowBytes;  // plus the static weights and barriers
  KTUNE_PROBE_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int per_sm = 0;
  KTUNE_PROBE_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, WARPS * 32, smem));
  if (per_sm == 0) {
    std::printf("| %d | %d | %s | — | does not fit |\n", WARPS, DEPTH, STREAM ? "cs" : "wb");
    return true;
  }
  const int grid = sms * per_sm;
  const long long elems = static_cast<long long>(b.rows) * kCols;
  KTUNE_PROBE_CHECK(cudaMemset(b.y, 0xff, elems * 2));  // the harnesses' poison pattern
  kernel<<<grid, WARPS * 32, smem>>>(b.x, b.w, b.y, b.rows, kEps);
  KTUNE_PROBE_CHECK(cudaGetLastError());
  // The rmsnorm family's element bound (its RowwiseSpec).
  ktune::verify::CheckStats stats;
  KTUNE_PROBE_CHECK(ktune::rowwise::check_outputs(
      b.y, ktune::rowwise::DType::bf16, b.ref, nullptr, elems, kCols, true,
      ktune::rmsnorm_bf16_bound(kCols), b.scratch, stats, nullptr));
  if (stats.non_finite || stats.unwritten || stats.first_bad >= 0) {
    std::printf("| %d | %d | %s | %d x %d | WRONG: %lld non-finite, %lld unwritten, first bad element %lld |\n",
                WARPS, DEPTH, STREAM ? "cs" : "wb", grid, WARPS * 32, stats.non_finite, stats.unwritten,
                stats.first_bad);
    return false;
  }
  const double rel_l2 = stats.rel_l2();
  const float ms = median_event_ms([&] { kernel<<<grid, WARPS * 32, smem>>>(b.x, b.w, b.y, b.rows, kEps); }, kWarmups,
                                   kReps);
  const double gbs = (2.0 * elems * 2 + kCols * 2) / (ms * 1e-3) / 1e9;
  std::printf("| %d | %d | %s | %d x %d | %.1f us | %.0f GB/s | %.1f%% | %.2e |\n", WARPS, DEPTH, STREAM ? "cs" : "wb",
              grid, WARPS * 32, ms * 1e3, gbs, 100 * gbs / copy_gbs, rel_l2);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const int rows = argc > 1 ? std::atoi(argv[1]) : 32768;
  if (rows <= 0) {
    std::fprintf(stderr, "rows must be positive, got '%s'\n", argv[1]);
    return 2;
  }
  cudaDeviceProp prop{};
  KTUNE_PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;

  // The copy baseline, as the rowwise bench measures it: D2D cudaMemcpy of 1 GiB, read + write.
  const size_t copy_bytes = size_t{1} << 30;
  void *c0, *c1;
  KTUNE_PROBE_CHECK(cudaMalloc(&c0, copy_bytes));
  KTUNE_PROBE_CHECK(cudaMalloc(&c1, copy_bytes));
  KTUNE_PROBE_CHECK(cudaMemset(c0, 1, copy_bytes));
  const float copy_ms = median_event_ms(
      [&] { KTUNE_PROBE_CHECK(cudaMemcpy(c1, c0, copy_bytes, cudaMemcpyDeviceToDevice)); }, kWarmups, kReps);
  const double copy_gbs = 2.0 * copy_bytes / (copy_ms * 1e-3) / 1e9;
  KTUNE_PROBE_CHECK(cudaFree(c0));
  KTUNE_PROBE_CHECK(cudaFree(c1));

  namespace rw = ktune::rowwise;
  Buffers b{rows, nullptr, nullptr, nullptr, nullptr, nullptr};
  const size_t elems = static_cast<size_t>(rows) * kCols;
  KTUNE_PROBE_CHECK(cudaMalloc(&b.x, elems * 2));
  KTUNE_PROBE_CHECK(cudaMalloc(&b.y, elems * 2));
  KTUNE_PROBE_CHECK(cudaMalloc(&b.w, kCols * 2));
  KTUNE_PROBE_CHECK(cudaMalloc(&b.ref, elems * sizeof(double)));
  KTUNE_PROBE_CHECK(cudaMalloc(&b.scratch, sizeof(rw::CompareStats)));
  KTUNE_PROBE_CHECK(rw::fill_uniform(b.x, rw::DType::bf16, static_cast<long long>(elems), -1, 1, 2026, nullptr));
  KTUNE_PROBE_CHECK(rw::fill_uniform(b.w, rw::DType::bf16, kCols, -1, 1, 2027, nullptr));
  rw::ReferenceCall reference;
  reference.x = b.x;
  reference.w = b.w;
  reference.dtype = rw::DType::bf16;
  reference.rows = rows;
  reference.cols = kCols;
  reference.scalar = kEps;
  reference.ref = b.ref;
  KTUNE_PROBE_CHECK(ktune::rmsnorm_rowwise_reference(reference));

  // A copy kernel over the same bytes as the rmsnorm: what a kernel of 16-byte accesses reaches.
  const long long vecs = static_cast<long long>(elems * 2 / 16);
  const float kcopy_ms = median_event_ms([&] {
    copy16<<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(b.x), reinterpret_cast<uint4*>(b.y), vecs);
  }, kWarmups, kReps);
  const double kcopy_gbs = 2.0 * elems * 2 / (kcopy_ms * 1e-3) / 1e9;

  std::printf("%s, %d SMs; rmsnorm %d x %d bf16\n", prop.name, sms, rows, kCols);
  std::printf("copy: cudaMemcpy D2D 1 GiB %.0f GB/s; copy16 kernel over %zu MB %.0f GB/s (%.1f%%)\n\n", copy_gbs,
              elems * 4 >> 20, kcopy_gbs, 100 * kcopy_gbs / copy_gbs);
  std::printf("| warps | depth | stores | grid x threads | time | GB/s | %% of copy | rel. L2 error |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  bool ok = true;
  ok &= run_config<4, 2, false>(b, sms, copy_gbs);
  ok &= run_config<4, 4, false>(b, sms, copy_gbs);
  ok &= run_config<4, 6, false>(b, sms, copy_gbs);
  ok &= run_config<8, 2, false>(b, sms, copy_gbs);
  ok &= run_config<8, 3, false>(b, sms, copy_gbs);
  ok &= run_config<12, 2, false>(b, sms, copy_gbs);
  ok &= run_config<4, 4, true>(b, sms, copy_gbs);
  ok &= run_config<8, 3, true>(b, sms, copy_gbs);
  ok &= run_config<2, 6, false>(b, sms, copy_gbs);
  ok &= run_config<2, 12, false>(b, sms, copy_gbs);
  KTUNE_PROBE_CHECK(cudaFree(b.x));
  KTUNE_PROBE_CHECK(cudaFree(b.y));
  KTUNE_PROBE_CHECK(cudaFree(b.w));
  KTUNE_PROBE_CHECK(cudaFree(b.ref));
  KTUNE_PROBE_CHECK(cudaFree(b.scratch));
  return ok ? 0 : 1;
}
