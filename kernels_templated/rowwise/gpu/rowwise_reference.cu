// nvcc-compiled helpers of the row-wise harnesses: random fill and the
// device-side comparison (each family's fp64 reference is in its folder).
#include "kernels_templated/rowwise/gpu/rowwise_reference.hpp"

#include "kernels_templated/rowwise/gpu/reference_device.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>

namespace ktune::rowwise {
namespace {

__device__ bool is_poison(const void* p, DType t, long long i) {
  if (t == DType::fp32) return static_cast<const unsigned*>(p)[i] == 0xffffffffu;
  return static_cast<const unsigned short*>(p)[i] == 0xffffu;
}

__device__ std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__global__ void fill_kernel(void* data, DType t, long long n, double lo, double hi, std::uint64_t seed) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const double u = (splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(i))) >> 11) * 0x1.0p-53;
    const float v = static_cast<float>(lo + (hi - lo) * u);
    switch (t) {
      case DType::fp32: static_cast<float*>(data)[i] = v; break;
      case DType::bf16: static_cast<__nv_bfloat16*>(data)[i] = __float2bfloat16_rn(v); break;
      case DType::fp16: static_cast<__half*>(data)[i] = __float2half_rn(v); break;
    }
  }
}

__device__ void store_value(void* data, DType t, long long i, float v) {
  switch (t) {
    case DType::fp32: static_cast<float*>(data)[i] = v; break;
    case DType::bf16: static_cast<__nv_bfloat16*>(data)[i] = __float2bfloat16_rn(v); break;
    case DType::fp16: static_cast<__half*>(data)[i] = __float2half_rn(v); break;
  }
}

__global__ void fill_edge_kernel(void* data, DType t, long long rows, long long cols, bool by_column, bool minus_inf,
                                 float equal_value, double lo, double hi, std::uint64_t seed) {
  const long long n = rows * cols;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long line = by_column ? i % cols : i / cols;
    const long long along = by_column ? i / cols : i % cols;  // position within the line
    const long long length = by_column ? rows : cols;
    int pattern = static_cast<int>(line % 6);
    if (!minus_inf && (pattern == 3 || pattern == 4)) pattern = 5;
    float v;
    if (pattern == 0) v = 0.f;
    else if (pattern == 1) v = equal_value;
    else if (pattern == 2) v = along % 2 == 0 ? 60000.f : -60000.f;
    else if (pattern == 3 || (pattern == 4 && along < length / 2)) v = -INFINITY;
    else v = static_cast<float>(lo + (hi - lo) * ((splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(i))) >> 11) * 0x1.0p-53));
    store_value(data, t, i, v);
  }
}

__device__ unsigned long long pack(double value, unsigned long long index) {
  // Non-negative floats order like their bit patterns.
  return (static_cast<unsigned long long>(__float_as_uint(static_cast<float>(value))) << 32) | (index & 0xffffffffULL);
}

__device__ void note_first(unsigned long long& first, long long i) {
  first = min(first, static_cast<unsigned long long>(i));
}

// One block per line (grid-stride over lines): element verdicts per thread,
// the line's sums reduced in shared memory, totals folded by thread 0 and
// written with one atomic per block and quantity.
__global__ void check_kernel(const void* out, DType t, const double* ref, const double* mag, long long n,
                             long long line_length, bool row_stats, verify::ElementBound bound, CompareStats* stats) {
  __shared__ double s_err2[kThreads], s_ref2[kThreads], s_abs[kThreads], s_rel[kThreads];
  __shared__ unsigned long long s_worst[kThreads];
  unsigned long long checked = 0, off = 0, non_finite = 0, unwritten = 0, undefined = 0, first_bad = ~0ULL;
  double tot_err2 = 0, tot_ref2 = 0, tot_abs = 0, tot_rel = 0;  // thread 0's
  unsigned long long tot_worst = 0, tot_row = 0;
  const long long lines = (n + line_length - 1) / line_length;
  for (long long line = blockIdx.x; line < lines; line += gridDim.x) {
    const long long begin = line * line_length;
    const long long end = min(begin + line_length, n);
    double err2 = 0, ref2 = 0, max_abs = 0, max_rel = 0;
    unsigned long long worst = 0;
    for (long long i = begin + threadIdx.x; i < end; i += kThreads) {
      if (is_poison(out, t, i)) {
        ++unwritten;
        note_first(first_bad, i);
        continue;
      }
      ++checked;
      const double r = ref[i], o = load_as_double(out, t, i);
      const double allowed = verify::allowed_error(bound, r, mag ? mag[i] : 0.0);
      const verify::ElementOutcome verdict = verify::judge_element(o, r, allowed);
      if (verdict == verify::ElementOutcome::undefined) {
        ++undefined;
        continue;
      }
      if (verdict == verify::ElementOutcome::non_finite) {
        ++non_finite;
        note_first(first_bad, i);
        continue;
      }
      if (verdict == verify::ElementOutcome::off) {
        ++off;
        note_first(first_bad, i);
      }
      if (!verify::is_finite_value(r)) {
        if (verdict == verify::ElementOutcome::off) worst = max(worst, pack(INFINITY, i));
        continue;
      }
      const double e = fabs(o - r);
      err2 += e * e;
      ref2 += r * r;
      max_abs = fmax(max_abs, e);
      if (fabs(r) > bound.atol && r != 0) max_rel = fmax(max_rel, e / fabs(r));
      worst = max(worst, pack(allowed > 0 ? e / allowed : (e > 0 ? INFINITY : 0.0), i));
    }
    s_err2[threadIdx.x] = err2;
    s_ref2[threadIdx.x] = ref2;
    s_abs[threadIdx.x] = max_abs;
    s_rel[threadIdx.x] = max_rel;
    s_worst[threadIdx.x] = worst;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half >>= 1) {
      if (threadIdx.x < half) {
        const int o = threadIdx.x + half;
        s_err2[threadIdx.x] += s_err2[o];
        s_ref2[threadIdx.x] += s_ref2[o];
        s_abs[threadIdx.x] = fmax(s_abs[threadIdx.x], s_abs[o]);
        s_rel[threadIdx.x] = fmax(s_rel[threadIdx.x], s_rel[o]);
        s_worst[threadIdx.x] = max(s_worst[threadIdx.x], s_worst[o]);
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      tot_err2 += s_err2[0];
      tot_ref2 += s_ref2[0];
      tot_abs = fmax(tot_abs, s_abs[0]);
      tot_rel = fmax(tot_rel, s_rel[0]);
      tot_worst = max(tot_worst, s_worst[0]);
      if (row_stats) {
        const double rel = s_ref2[0] > 0 ? sqrt(s_err2[0] / s_ref2[0]) : sqrt(s_err2[0]);
        tot_row = max(tot_row, pack(rel, static_cast<unsigned long long>(line)));
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&stats->err2, tot_err2);
    atomicAdd(&stats->ref2, tot_ref2);
    atomicMax(reinterpret_cast<unsigned long long*>(&stats->max_abs),
              static_cast<unsigned long long>(__double_as_longlong(tot_abs)));
    atomicMax(reinterpret_cast<unsigned long long*>(&stats->max_rel),
              static_cast<unsigned long long>(__double_as_longlong(tot_rel)));
    atomicMax(&stats->worst, tot_worst);
    atomicMax(&stats->worst_row, tot_row);
  }
  // Counters: one atomic per warp and counter.
  for (int d = 16; d > 0; d >>= 1) {
    checked += __shfl_down_sync(0xffffffffu, checked, d);
    off += __shfl_down_sync(0xffffffffu, off, d);
    non_finite += __shfl_down_sync(0xffffffffu, non_finite, d);
    unwritten += __shfl_down_sync(0xffffffffu, unwritten, d);
    undefined += __shfl_down_sync(0xffffffffu, undefined, d);
    first_bad = min(first_bad, __shfl_down_sync(0xffffffffu, first_bad, d));
  }
  if (threadIdx.x % 32 == 0) {
    if (checked) atomicAdd(&stats->checked, checked);
    if (off) atomicAdd(&stats->off, off);
    if (non_finite) atomicAdd(&stats->non_finite, non_finite);
    if (unwritten) atomicAdd(&stats->unwritten, unwritten);
    if (undefined) atomicAdd(&stats->undefined, undefined);
    if (first_bad != ~0ULL) atomicMin(&stats->first_bad, first_bad);
  }
}

}  // namespace

cudaError_t fill_uniform(void* data, DType dtype, long long n, double lo, double hi, std::uint64_t seed,
                         cudaStream_t stream) {
  fill_kernel<<<blocks_for(n, 4096), kThreads, 0, stream>>>(data, dtype, n, lo, hi, seed);
  return cudaGetLastError();
}

cudaError_t fill_edge(void* data, DType dtype, long long rows, long long cols, bool lines_are_columns, bool minus_inf,
                      float equal_value, double lo, double hi, std::uint64_t seed, cudaStream_t stream) {
  fill_edge_kernel<<<blocks_for(rows * cols, 4096), kThreads, 0, stream>>>(data, dtype, rows, cols, lines_are_columns,
                                                                          minus_inf, equal_value, lo, hi, seed);
  return cudaGetLastError();
}

cudaError_t check_outputs(const void* out, DType dtype, const double* ref, const double* mag, long long n,
                          long long line_length, bool row_stats, const verify::ElementBound& bound,
                          CompareStats* scratch, verify::CheckStats& result, cudaStream_t stream) {
  CompareStats init, totals;
  cudaError_t e = cudaMemcpyAsync(scratch, &init, sizeof init, cudaMemcpyHostToDevice, stream);
  if (e != cudaSuccess) return e;
  const long long line = line_length > 0 ? line_length : 1;
  const long long lines = (n + line - 1) / line;
  const unsigned grid = static_cast<unsigned>(lines < 4096 ? (lines > 0 ? lines : 1) : 4096);
  check_kernel<<<grid, kThreads, 0, stream>>>(out, dtype, ref, mag, n, line, row_stats, bound, scratch);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  if ((e = cudaMemcpyAsync(&totals, scratch, sizeof totals, cudaMemcpyDeviceToHost, stream)) != cudaSuccess) return e;
  if ((e = cudaStreamSynchronize(stream)) != cudaSuccess) return e;
  verify::CheckStats& r = result;
  r = verify::CheckStats{};
  r.checked = static_cast<long long>(totals.checked);
  r.off = static_cast<long long>(totals.off);
  r.non_finite = static_cast<long long>(totals.non_finite);
  r.unwritten = static_cast<long long>(totals.unwritten);
  r.undefined = static_cast<long long>(totals.undefined);
  r.err2 = totals.err2;
  r.ref2 = totals.ref2;
  r.max_abs = totals.max_abs;
  r.max_rel = totals.max_rel;
  r.first_bad = totals.first_bad == ~0ULL ? -1 : static_cast<long long>(totals.first_bad);
  auto unpack = [](unsigned long long key, double& value, long long& index) {
    const unsigned bits = static_cast<unsigned>(key >> 32);
    float f;
    memcpy(&f, &bits, 4);
    value = f;
    index = static_cast<long long>(key & 0xffffffffULL);
  };
  if (r.checked > 0) unpack(totals.worst, r.worst_ratio, r.worst_index);
  if (row_stats && n > 0) unpack(totals.worst_row, r.worst_row_rel_l2, r.worst_row);
  return cudaSuccess;
}

cudaError_t read_element(const void* data, DType dtype, long long i, double& value) {
  const int bytes = dtype == DType::fp32 ? 4 : 2;
  unsigned char raw[4] = {0, 0, 0, 0};
  cudaError_t e = cudaMemcpy(raw, static_cast<const unsigned char*>(data) + i * bytes, bytes, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return e;
  if (dtype == DType::fp32) {
    float f;
    memcpy(&f, raw, 4);
    value = f;
  } else {
    unsigned short h;
    memcpy(&h, raw, 2);
    value = dtype == DType::bf16 ? static_cast<double>(__bfloat162float(__ushort_as_bfloat16(h)))
                                 : static_cast<double>(__half2float(__ushort_as_half(h)));
  }
  return cudaSuccess;
}

}  // namespace ktune::rowwise
