// read_bandwidth_probe: how fast can anything read 256 MB on this GPU?
//
// Issue 8's last-axis sum of 32768x4096 bf16 reads at 100.5% of the same
// process's cudaMemcpy rate (results rowwise v10); 1.3x PyTorch would need
// about 102%. A sum only reads, so its ceiling is the read bandwidth, not the
// copy's. This probe measures that ceiling with kernels that do nothing but
// read the same 256 MB and add it up, in three shapes:
//
// - grid: a grid-stride loop over 16-byte vectors, UNROLL loads in flight per
//   thread, with three load forms (plain, non-coherent with a 256-byte L2
//   prefetch, streaming `.cs`);
// - rows: one block of 128 threads per 8 KiB row (the family's best block for
//   the sum), UNROLL loads per thread;
// - bulk: each block keeps a ring of STAGES chunks in shared memory, filled by
//   one thread with `cp.async.bulk` (TMA) and completion counted on the
//   chunk's mbarrier, so up to STAGES x CHUNK bytes per block are in flight
//   with one instruction each.
//
// Every kernel's total is checked against the host's sum of the same data:
// the data are seeded random integers 1..8 in bf16 (never zeros), so every
// partial sum stays an integer below 2^24 and the check is exact: a kernel
// that skipped or repeated one 16-byte vector fails. The partials are
// poisoned with NaN before each checked run. Timing: CUDA events around
// batches of 10 back-to-back launches (so the host's launch gap is not timed,
// as the engine's gated stream does), 2 warm-up batches, median of 15
// batches. The D2D cudaMemcpy of the same 256 MB (read + write counted) is
// timed the same way in the same process.
//
// The same process also times copies of the 256 MB (through registers, with
// plain or non-coherent 256-byte-prefetch loads, and by the TMA alone: bulk
// loads into shared memory and bulk stores out of it),
// each checked byte for byte, as a share of the cudaMemcpy rate.
//
// Usage: bench_read_bandwidth_probe
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "bench/probe_bulk.cuh"
#include "bench/probe_timing.hpp"

namespace {

/// Milliseconds per launch: the median of 15 event-timed batches of 10
/// back-to-back launches, after 2 warm-up batches.
template <typename Launch>
float batched_ms(Launch&& launch) {
  constexpr int kBatch = 10;
  return ktune::probe::median_event_ms(
             [&] {
               for (int i = 0; i < kBatch; ++i) launch();
             },
             2, 15) /
         kBatch;
}

constexpr long long kRows = 32768;
constexpr long long kCols = 4096;
constexpr long long kElems = kRows * kCols;
constexpr long long kBytes = kElems * 2;
constexpr long long kVecs = kBytes / 16;

enum Load { kPlain, kNc256, kStreaming };

template <int LOAD>
__device__ __forceinline__ uint4 load16(const uint4* p) {
  uint4 v;
  if constexpr (LOAD == kPlain) {
    asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  } else if constexpr (LOAD == kNc256) {
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  } else {
    asm volatile("ld.global.cs.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  }
  return v;
}

__device__ __forceinline__ float sum8(uint4 v) {
  const unsigned words[4] = {v.x, v.y, v.z, v.w};
  float s = 0.f;
#pragma unroll
  for (unsigned w : words) {
    const float2 f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&w));
    s += f.x + f.y;
  }
  return s;
}

/// The block's threads' sums, added in shared memory; thread 0 writes it.
__device__ __forceinline__ void block_total(float s, float* out) {
  __shared__ float partial[32];
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.f;
    for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) t += partial[w];
    out[blockIdx.x] = t;
  }
}

template <int UNROLL, int LOAD>
__global__ void read_grid(const uint4* __restrict__ in, float* out) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  float s = 0.f;
  for (; i + (UNROLL - 1) * stride < kVecs; i += UNROLL * stride) {
    uint4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = load16<LOAD>(in + i + u * stride);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) s += sum8(v[u]);
  }
  for (; i < kVecs; i += stride) s += sum8(load16<LOAD>(in + i));
  block_total(s, out);
}

/// One block of 128 threads per row of 4096 bf16 (512 vectors).
template <int UNROLL, int LOAD>
__global__ void read_rows(const uint4* __restrict__ in, float* out) {
  constexpr int kRowVecs = kCols * 2 / 16;
  const uint4* row = in + static_cast<long long>(blockIdx.x) * kRowVecs;
  float s = 0.f;
  for (int i = threadIdx.x; i < kRowVecs; i += UNROLL * 128) {
    uint4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = load16<LOAD>(row + i + u * 128);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) s += sum8(v[u]);
  }
  block_total(s, out);
}

using ktune::probe::smem_addr;

/// The ring both bulk kernels use: STAGES shared-memory slots of CHUNK bytes,
/// each filled by one cp.async.bulk whose completion its mbarrier counts. Block b
/// takes chunks b, b + grid, ...; one thread issues every load.
template <int CHUNK, int STAGES>
struct BulkRing {
  static constexpr long long kChunks = kBytes / CHUNK;
  unsigned char* slots;      // STAGES x CHUNK bytes, 128-byte aligned
  unsigned long long* full;  // STAGES mbarriers
  const unsigned char* in;

  __device__ unsigned char* slot(int s) const { return slots + s * CHUNK; }

  /// Loads chunk `chunk` into slot `s`.
  __device__ void load(long long chunk, int s) const {
    ktune::probe::bulk_load(smem_addr(slot(s)), in + chunk * CHUNK, CHUNK, smem_addr(&full[s]));
  }

  /// The calling thread initializes the barriers and loads this block's first
  /// STAGES chunks.
  __device__ void init_and_fill() const {
    for (int s = 0; s < STAGES; ++s) ktune::probe::init_barrier(smem_addr(&full[s]));
    ktune::probe::fence_barrier_init();
    for (int s = 0; s < STAGES; ++s)
      if (blockIdx.x + static_cast<long long>(s) * gridDim.x < kChunks)
        load(blockIdx.x + static_cast<long long>(s) * gridDim.x, s);
  }

  /// Waits until slot `s` holds the chunk of phase `parity`.
  __device__ void wait(int s, unsigned parity) const {
    ktune::probe::wait_parity(smem_addr(&full[s]), parity);
  }
};

/// Reads through a BulkRing; every thread adds up each slot.
template <int CHUNK, int STAGES>
__global__ void read_bulk(const unsigned char* __restrict__ in, float* out) {
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ __align__(8) unsigned long long full[STAGES];
  const BulkRing<CHUNK, STAGES> r{ring, full, in};
  if (threadIdx.x == 0) r.init_and_fill();
  __syncthreads();
  float sum = 0.f;
  int slot = 0;
  unsigned parity = 0;
  for (long long c = blockIdx.x; c < r.kChunks; c += gridDim.x) {
    r.wait(slot, parity);
    const uint4* v = reinterpret_cast<const uint4*>(r.slot(slot));
    for (int i = threadIdx.x; i < CHUNK / 16; i += blockDim.x) sum += sum8(v[i]);
    __syncthreads();  // every thread has read the slot before it is refilled
    const long long next = c + static_cast<long long>(STAGES) * gridDim.x;
    if (threadIdx.x == 0 && next < r.kChunks) r.load(next, slot);
    if (++slot == STAGES) {
      slot = 0;
      parity ^= 1;
    }
  }
  block_total(sum, out);
}

/// A copy through registers: UNROLL 16-byte loads (of the LOAD form) in flight
/// per thread, then their stores (plain or streaming).
template <int UNROLL, int LOAD, bool STREAMING_STORES>
__global__ void copy_grid(const uint4* __restrict__ in, uint4* __restrict__ out) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < kVecs;
       i += UNROLL * stride) {
    uint4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (i + u * stride < kVecs) v[u] = load16<LOAD>(in + i + u * stride);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (i + u * stride >= kVecs) continue;
      if constexpr (STREAMING_STORES)
        __stcs(out + i + u * stride, v[u]);
      else
        out[i + u * stride] = v[u];
    }
  }
}

/// A copy by the TMA alone: one thread per block moves its chunks through a
/// BulkRing, each slot leaving by a bulk store; a slot is refilled once its
/// store has read it.
template <int CHUNK, int STAGES>
__global__ void copy_bulk(const unsigned char* __restrict__ in, unsigned char* __restrict__ out) {
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ __align__(8) unsigned long long full[STAGES];
  if (threadIdx.x != 0) return;
  const BulkRing<CHUNK, STAGES> r{ring, full, in};
  r.init_and_fill();
  const long long step = gridDim.x;
  int slot = 0;
  unsigned parity = 0;
  long long n = 0;  // chunks stored so far
  for (long long c = blockIdx.x; c < r.kChunks; c += step, ++n) {
    r.wait(slot, parity);
    asm volatile(
        "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(out + c * CHUNK),
        "r"(smem_addr(r.slot(slot))), "r"(CHUNK)
        : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    // Refill the previous slot once its store (one group back) has read it.
    if (n > 0) {
      asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
      const int previous = slot == 0 ? STAGES - 1 : slot - 1;
      const long long next = c - step + STAGES * step;
      if (next < r.kChunks) r.load(next, previous);
    }
    if (++slot == STAGES) {
      slot = 0;
      parity ^= 1;
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");  // every store has written its chunk
}

__global__ void fill(__nv_bfloat16* data) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < kElems;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    unsigned long long h = (i + 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 29;
    data[i] = __float2bfloat16(static_cast<float>(1 + h % 8));
  }
}

/// One table row: a kernel's check, its time and its GB/s as a share of the memcpy's.
void print_row(const char* name, int blocks, int threads, bool ok, float ms, double gbps,
               float copy_gbps) {
  std::printf("| %-34s | %6d | %5d | %s | %8.2f | %7.0f | %6.1f%% |\n", name, blocks, threads,
              ok ? "yes" : "NO ", ms * 1000, gbps, 100.0 * gbps / copy_gbps);
}

struct Probe {
  float* partials;
  double reference;
  float copy_gbps;

  /// Checks `launch` (which writes `blocks` partials) against the reference,
  /// then times it and prints a row.
  template <typename Launch>
  void run(const char* name, int blocks, int threads, Launch&& launch) {
    KTUNE_PROBE_CHECK(cudaMemset(partials, 0xff, sizeof(float) * blocks));  // NaN
    launch();
    KTUNE_PROBE_CHECK(cudaDeviceSynchronize());
    std::vector<float> host(blocks);
    KTUNE_PROBE_CHECK(
        cudaMemcpy(host.data(), partials, sizeof(float) * blocks, cudaMemcpyDeviceToHost));
    double total = 0;
    for (float v : host) total += v;
    const bool ok = total == reference;  // exact: integer data, partials below 2^24
    const float ms = batched_ms(launch);
    print_row(name, blocks, threads, ok, ms, kBytes / (ms * 1e6), copy_gbps);
  }
};

}  // namespace

int main() {
  int device = 0;
  cudaDeviceProp prop{};
  KTUNE_PROBE_CHECK(cudaGetDeviceProperties(&prop, device));
  __nv_bfloat16* data = nullptr;
  void* copy_dst = nullptr;
  float* partials = nullptr;
  KTUNE_PROBE_CHECK(cudaMalloc(&data, kBytes));
  KTUNE_PROBE_CHECK(cudaMalloc(&copy_dst, kBytes));
  KTUNE_PROBE_CHECK(cudaMalloc(&partials, sizeof(float) * kRows));
  fill<<<4 * prop.multiProcessorCount, 256>>>(data);
  KTUNE_PROBE_CHECK(cudaGetLastError());

  // The reference total (exact in double: integers).
  std::vector<__nv_bfloat16> host(kElems);
  KTUNE_PROBE_CHECK(cudaMemcpy(host.data(), data, kBytes, cudaMemcpyDeviceToHost));
  double reference = 0;
  for (const __nv_bfloat16& v : host) reference += static_cast<double>(__bfloat162float(v));

  const float copy_ms = batched_ms([&] {
    KTUNE_PROBE_CHECK(cudaMemcpyAsync(copy_dst, data, kBytes, cudaMemcpyDeviceToDevice));
  });
  const float copy_gbps = static_cast<float>(2.0 * kBytes / (copy_ms * 1e6));
  std::printf("%s, %d SMs; %lld MB of bf16 (%lld x %lld), total %.0f\n", prop.name,
              prop.multiProcessorCount, kBytes / 1000000, kRows, kCols, reference);
  std::printf("D2D cudaMemcpy of the same bytes: %.2f us, %.0f GB/s (read + write)\n\n",
              copy_ms * 1000, copy_gbps);
  std::printf(
      "| kernel | blocks | threads | total right | us | GB/s read | of copy "
      "|\n|---|---|---|---|---|---|---|\n");

  Probe probe{partials, reference, copy_gbps};
  const int sms = prop.multiProcessorCount;
  const auto* vecs = reinterpret_cast<const uint4*>(data);
  char name[64];

  auto grid_case = [&](auto kernel, const char* what, int per_sm, int threads) {
    const int blocks = per_sm * sms;
    std::snprintf(name, sizeof name, "grid %s", what);
    probe.run(name, blocks, threads, [&] { kernel<<<blocks, threads>>>(vecs, partials); });
  };
  for (int per_sm : {4, 8, 16}) {
    grid_case(read_grid<4, kPlain>, "unroll 4, plain", per_sm, 256);
    grid_case(read_grid<8, kPlain>, "unroll 8, plain", per_sm, 256);
    grid_case(read_grid<4, kNc256>, "unroll 4, nc L2::256B", per_sm, 256);
    grid_case(read_grid<8, kNc256>, "unroll 8, nc L2::256B", per_sm, 256);
    grid_case(read_grid<4, kStreaming>, "unroll 4, .cs", per_sm, 256);
  }
  grid_case(read_grid<16, kNc256>, "unroll 16, nc L2::256B", 4, 256);
  grid_case(read_grid<4, kNc256>, "unroll 4, nc L2::256B", 2, 1024);

  auto rows_case = [&](auto kernel, const char* what) {
    std::snprintf(name, sizeof name, "rows %s", what);
    probe.run(name, kRows, 128, [&] { kernel<<<kRows, 128>>>(vecs, partials); });
  };
  rows_case(read_rows<1, kPlain>, "unroll 1, plain");
  rows_case(read_rows<2, kPlain>, "unroll 2, plain");
  rows_case(read_rows<4, kPlain>, "unroll 4, plain");
  rows_case(read_rows<2, kNc256>, "unroll 2, nc L2::256B");
  rows_case(read_rows<4, kNc256>, "unroll 4, nc L2::256B");
  rows_case(read_rows<2, kStreaming>, "unroll 2, .cs");

  auto bulk_case = [&](auto kernel, int chunk, int stages, int per_sm, int threads) {
    const int bytes = chunk * stages;
    KTUNE_PROBE_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    const int blocks = per_sm * sms;
    std::snprintf(name, sizeof name, "bulk %d KB x %d stages", chunk / 1024, stages);
    probe.run(name, blocks, threads, [&] {
      kernel<<<blocks, threads, bytes>>>(reinterpret_cast<const unsigned char*>(data), partials);
    });
  };
  bulk_case(read_bulk<16384, 4>, 16384, 4, 2, 256);
  bulk_case(read_bulk<16384, 6>, 16384, 6, 2, 256);
  bulk_case(read_bulk<32768, 3>, 32768, 3, 2, 512);
  bulk_case(read_bulk<32768, 6>, 32768, 6, 1, 512);
  bulk_case(read_bulk<8192, 8>, 8192, 8, 3, 256);
  bulk_case(read_bulk<65536, 3>, 65536, 3, 1, 1024);

  // Copies: the same 256 MB into copy_dst, poisoned first, compared with the
  // source byte for byte; GB/s counts the read and the write, as the memcpy's.
  std::printf(
      "\n| copy kernel | blocks | threads | copy right | us | GB/s (read + write) | of cudaMemcpy "
      "|\n"
      "|---|---|---|---|---|---|---|\n");
  std::vector<__nv_bfloat16> copied(kElems);
  auto copy_case = [&](const char* what, int blocks, int threads, auto&& launch) {
    KTUNE_PROBE_CHECK(cudaMemset(copy_dst, 0xff, kBytes));
    launch();
    KTUNE_PROBE_CHECK(cudaDeviceSynchronize());
    KTUNE_PROBE_CHECK(cudaMemcpy(copied.data(), copy_dst, kBytes, cudaMemcpyDeviceToHost));
    const bool ok = std::memcmp(copied.data(), host.data(), kBytes) == 0;
    const float ms = batched_ms(launch);
    print_row(what, blocks, threads, ok, ms, 2.0 * kBytes / (ms * 1e6), copy_gbps);
  };
  copy_case("cudaMemcpy D2D", 0, 0, [&] {
    KTUNE_PROBE_CHECK(cudaMemcpyAsync(copy_dst, data, kBytes, cudaMemcpyDeviceToDevice));
  });
  auto* out_vecs = reinterpret_cast<uint4*>(copy_dst);
  for (int per_sm : {4, 8, 16}) {
    const int blocks = per_sm * sms;
    // Loads in the fastest read form (plain) and, as runs A-E had them, non-coherent with the
    // 256-byte prefetch.
    copy_case("grid unroll 4, plain loads and stores", blocks, 256,
              [&] { copy_grid<4, kPlain, false><<<blocks, 256>>>(vecs, out_vecs); });
    copy_case("grid unroll 8, plain loads and stores", blocks, 256,
              [&] { copy_grid<8, kPlain, false><<<blocks, 256>>>(vecs, out_vecs); });
    copy_case("grid unroll 4, plain loads, .cs stores", blocks, 256,
              [&] { copy_grid<4, kPlain, true><<<blocks, 256>>>(vecs, out_vecs); });
    copy_case("grid unroll 4, nc L2::256B loads", blocks, 256,
              [&] { copy_grid<4, kNc256, false><<<blocks, 256>>>(vecs, out_vecs); });
    copy_case("grid unroll 4, nc L2::256B, .cs stores", blocks, 256,
              [&] { copy_grid<4, kNc256, true><<<blocks, 256>>>(vecs, out_vecs); });
  }
  auto copy_bulk_case = [&](auto kernel, int chunk, int stages, int per_sm) {
    const int bytes = chunk * stages;
    KTUNE_PROBE_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    const int blocks = per_sm * sms;
    std::snprintf(name, sizeof name, "bulk %d KB x %d stages", chunk / 1024, stages);
    copy_case(name, blocks, 32, [&] {
      kernel<<<blocks, 32, bytes>>>(reinterpret_cast<const unsigned char*>(data),
                                    reinterpret_cast<unsigned char*>(copy_dst));
    });
  };
  copy_bulk_case(copy_bulk<16384, 4>, 16384, 4, 2);
  copy_bulk_case(copy_bulk<16384, 6>, 16384, 6, 2);
  copy_bulk_case(copy_bulk<32768, 6>, 32768, 6, 1);
  copy_bulk_case(copy_bulk<8192, 8>, 8192, 8, 3);

  KTUNE_PROBE_CHECK(cudaFree(data));
  KTUNE_PROBE_CHECK(cudaFree(copy_dst));
  KTUNE_PROBE_CHECK(cudaFree(partials));
  return 0;
}
