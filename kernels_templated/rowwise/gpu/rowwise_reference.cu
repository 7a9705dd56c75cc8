// nvcc-compiled helpers of the row-wise harnesses: random fill, fp64
// references and the device-side comparison.
#include "kernels_templated/rowwise/gpu/rowwise_reference.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace ktune::rowwise {
namespace {

constexpr int kThreads = 256;

__device__ double load_as_double(const void* p, DType t, long long i) {
  switch (t) {
    case DType::fp32: return static_cast<const float*>(p)[i];
    case DType::bf16: return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    case DType::fp16: return __half2float(static_cast<const __half*>(p)[i]);
  }
  return 0;
}

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

// Block-wide sum or max of doubles; every thread gets the result.
__device__ double block_reduce(double v, bool is_max) {
  __shared__ double buf[kThreads];
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half)
      buf[threadIdx.x] = is_max ? fmax(buf[threadIdx.x], buf[threadIdx.x + half]) : buf[threadIdx.x] + buf[threadIdx.x + half];
    __syncthreads();
  }
  double r = buf[0];
  __syncthreads();
  return r;
}

// One block per row (grid-stride over rows), everything in fp64.
__global__ void reference_rows_kernel(RefKind kind, const void* x, const void* w, DType t, long long rows,
                                      long long cols, double eps, double* ref) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const long long off = row * cols;
    if (kind == RefKind::sum || kind == RefKind::max) {
      const bool is_max = kind == RefKind::max;
      double acc = is_max ? -INFINITY : 0.0;
      for (long long c = threadIdx.x; c < cols; c += kThreads) {
        double v = load_as_double(x, t, off + c);
        acc = is_max ? fmax(acc, v) : acc + v;
      }
      acc = block_reduce(acc, is_max);
      if (threadIdx.x == 0) ref[row] = acc;
    } else if (kind == RefKind::softmax) {
      double m = -INFINITY;
      for (long long c = threadIdx.x; c < cols; c += kThreads) m = fmax(m, load_as_double(x, t, off + c));
      m = block_reduce(m, true);
      double s = 0;
      for (long long c = threadIdx.x; c < cols; c += kThreads) s += exp(load_as_double(x, t, off + c) - m);
      s = block_reduce(s, false);
      for (long long c = threadIdx.x; c < cols; c += kThreads) ref[off + c] = exp(load_as_double(x, t, off + c) - m) / s;
    } else {
      double ss = 0;
      for (long long c = threadIdx.x; c < cols; c += kThreads) {
        double v = load_as_double(x, t, off + c);
        ss += v * v;
      }
      ss = block_reduce(ss, false);
      const double scale = 1.0 / sqrt(ss / static_cast<double>(cols) + eps);
      for (long long c = threadIdx.x; c < cols; c += kThreads)
        ref[off + c] = load_as_double(x, t, off + c) * scale * load_as_double(w, t, c);
    }
  }
}

// One thread per column, rows walked in order (coalesced across columns).
__global__ void reference_cols_kernel(bool is_max, const void* x, DType t, long long rows, long long cols, double* ref) {
  for (long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; c < cols;
       c += static_cast<long long>(gridDim.x) * blockDim.x) {
    double acc = is_max ? -INFINITY : 0.0;
    for (long long r = 0; r < rows; ++r) {
      double v = load_as_double(x, t, r * cols + c);
      acc = is_max ? fmax(acc, v) : acc + v;
    }
    ref[c] = acc;
  }
}

__global__ void compare_kernel(const void* out, DType t, const double* ref, long long n, double bad_rel,
                               double ref_floor, CompareStats* stats) {
  double err2 = 0, ref2 = 0, max_abs = 0;
  unsigned long long nonfinite = 0, unwritten = 0, first_bad = ~0ULL;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const double r = ref[i];
    ref2 += r * r;
    if (is_poison(out, t, i)) {
      ++unwritten;
      first_bad = min(first_bad, static_cast<unsigned long long>(i));
      continue;
    }
    const double o = load_as_double(out, t, i);
    if (!isfinite(o)) {
      ++nonfinite;
      first_bad = min(first_bad, static_cast<unsigned long long>(i));
      continue;
    }
    const double e = fabs(o - r);
    err2 += e * e;
    max_abs = fmax(max_abs, e);
    if (e > bad_rel * fmax(fabs(r), ref_floor)) first_bad = min(first_bad, static_cast<unsigned long long>(i));
  }
  // Block totals first: one atomic per block and quantity.
  __shared__ double sd[3][kThreads];
  __shared__ unsigned long long su[3][kThreads];
  sd[0][threadIdx.x] = err2;
  sd[1][threadIdx.x] = ref2;
  sd[2][threadIdx.x] = max_abs;
  su[0][threadIdx.x] = nonfinite;
  su[1][threadIdx.x] = unwritten;
  su[2][threadIdx.x] = first_bad;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) {
      const int o = threadIdx.x + half;
      sd[0][threadIdx.x] += sd[0][o];
      sd[1][threadIdx.x] += sd[1][o];
      sd[2][threadIdx.x] = fmax(sd[2][threadIdx.x], sd[2][o]);
      su[0][threadIdx.x] += su[0][o];
      su[1][threadIdx.x] += su[1][o];
      su[2][threadIdx.x] = min(su[2][threadIdx.x], su[2][o]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&stats->err2, sd[0][0]);
    atomicAdd(&stats->ref2, sd[1][0]);
    // Non-negative doubles order like their bit patterns.
    atomicMax(reinterpret_cast<unsigned long long*>(&stats->max_abs),
              static_cast<unsigned long long>(__double_as_longlong(sd[2][0])));
    atomicAdd(&stats->nonfinite, su[0][0]);
    atomicAdd(&stats->unwritten, su[1][0]);
    atomicMin(&stats->first_bad, su[2][0]);
  }
}

unsigned blocks_for(long long n, unsigned cap) {
  long long b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > cap ? cap : b));
}

}  // namespace

cudaError_t fill_uniform(void* data, DType dtype, long long n, double lo, double hi, std::uint64_t seed,
                         cudaStream_t stream) {
  fill_kernel<<<blocks_for(n, 4096), kThreads, 0, stream>>>(data, dtype, n, lo, hi, seed);
  return cudaGetLastError();
}

cudaError_t reference_rows(RefKind kind, const void* x, const void* w, DType dtype, long long rows, long long cols,
                           double eps, double* ref, cudaStream_t stream) {
  const unsigned grid = static_cast<unsigned>(rows < 65536 ? rows : 65536);
  reference_rows_kernel<<<grid, kThreads, 0, stream>>>(kind, x, w, dtype, rows, cols, eps, ref);
  return cudaGetLastError();
}

cudaError_t reference_cols(RefKind kind, const void* x, DType dtype, long long rows, long long cols, double* ref,
                           cudaStream_t stream) {
  reference_cols_kernel<<<blocks_for(cols, 65536), kThreads, 0, stream>>>(kind == RefKind::max, x, dtype, rows, cols,
                                                                          ref);
  return cudaGetLastError();
}

cudaError_t compare(const void* out, DType dtype, const double* ref, long long n, double bad_rel, double ref_floor,
                    CompareStats* scratch, CompareStats& result, cudaStream_t stream) {
  CompareStats init;
  cudaError_t e = cudaMemcpyAsync(scratch, &init, sizeof init, cudaMemcpyHostToDevice, stream);
  if (e != cudaSuccess) return e;
  compare_kernel<<<blocks_for(n, 2048), kThreads, 0, stream>>>(out, dtype, ref, n, bad_rel, ref_floor, scratch);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  if ((e = cudaMemcpyAsync(&result, scratch, sizeof result, cudaMemcpyDeviceToHost, stream)) != cudaSuccess) return e;
  return cudaStreamSynchronize(stream);
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
