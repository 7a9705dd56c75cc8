// Device helpers of the gemm harness: seeded fills, poison, reference epilogue.
#include "kernels_templated/gemm/gpu/gemm_harness_kernels.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace ktune::gemm_gpu {
namespace {

__device__ float load_as_float(const void* p, long long i, Elem e) {
  if (e == Elem::bf16) return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
  if (e == Elem::fp16) return __half2float(static_cast<const __half*>(p)[i]);
  if (e == Elem::e4m3) return static_cast<float>(static_cast<const __nv_fp8_e4m3*>(p)[i]);
  if (e == Elem::e5m2) return static_cast<float>(static_cast<const __nv_fp8_e5m2*>(p)[i]);
  return static_cast<const float*>(p)[i];
}

/// Rounds to nearest; fp8 saturates to its largest finite value.
__device__ void store_as(void* p, long long i, Elem e, float v) {
  if (e == Elem::bf16)
    static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(v);
  else if (e == Elem::fp16)
    static_cast<__half*>(p)[i] = __float2half_rn(v);
  else if (e == Elem::e4m3)
    static_cast<__nv_fp8_e4m3*>(p)[i] = __nv_fp8_e4m3(v);
  else if (e == Elem::e5m2)
    static_cast<__nv_fp8_e5m2*>(p)[i] = __nv_fp8_e5m2(v);
  else
    static_cast<float*>(p)[i] = v;
}

__device__ std::uint64_t mix(std::uint64_t x) {  // splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

__global__ void fill_uniform_kernel(void* data, std::size_t count, Elem e, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * 256ULL + threadIdx.x; i < count; i += gridDim.x * 256ULL) {
    const float u = static_cast<float>(mix(seed ^ mix(i)) >> 40) * (1.0f / 16777216.0f);  // [0, 1)
    store_as(data, static_cast<long long>(i), e, 2.f * u - 1.f);
  }
}

__global__ void fill_pattern_kernel(void* data, std::size_t count, int bytes, std::uint32_t bits) {
  for (std::size_t i = blockIdx.x * 256ULL + threadIdx.x; i < count; i += gridDim.x * 256ULL) {
    if (bytes == 1)
      static_cast<unsigned char*>(data)[i] = static_cast<unsigned char>(bits);
    else if (bytes == 2)
      static_cast<unsigned short*>(data)[i] = static_cast<unsigned short>(bits);
    else
      static_cast<std::uint32_t*>(data)[i] = bits;
  }
}

__global__ void epilogue_kernel(float* ref, const void* c0, const void* bias, int m, int n, long long ldc, Elem out,
                                float alpha, float beta, int epi) {
  const long long mn = static_cast<long long>(m) * n;
  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < mn; i += gridDim.x * 256LL) {
    const long long row = i / n, col = i % n;
    float v = alpha * ref[i];
    if (beta != 0.f) v += beta * load_as_float(c0, row * ldc + col, out);
    if (epi != 0) v += load_as_float(bias, col, out);
    if (epi == 2) v = v > 0.f ? v : 0.f;
    if (epi == 3) v = 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
    ref[i] = v;
  }
}

__global__ void convert_kernel(void* dst, Elem de, const void* src, Elem se, std::size_t count) {
  for (std::size_t i = blockIdx.x * 256ULL + threadIdx.x; i < count; i += gridDim.x * 256ULL)
    store_as(dst, static_cast<long long>(i), de, load_as_float(src, static_cast<long long>(i), se));
}

__global__ void abs_kernel(void* dst, const void* src, std::size_t count, Elem e) {
  for (std::size_t i = blockIdx.x * 256ULL + threadIdx.x; i < count; i += gridDim.x * 256ULL)
    store_as(dst, static_cast<long long>(i), e, fabsf(load_as_float(src, static_cast<long long>(i), e)));
}

__global__ void magnitude_kernel(float* mag, const void* c0, const void* bias, int m, int n, long long ldc, Elem out,
                                 float alpha, float beta, int epi) {
  const long long mn = static_cast<long long>(m) * n;
  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < mn; i += gridDim.x * 256LL) {
    const long long row = i / n, col = i % n;
    float v = fabsf(alpha) * mag[i];
    if (beta != 0.f) v += fabsf(beta) * fabsf(load_as_float(c0, row * ldc + col, out));
    if (epi != 0) v += fabsf(load_as_float(bias, col, out));
    mag[i] = v;
  }
}

__global__ void edge_rows_kernel(void* dst, const void* src, std::size_t count, long long ld, bool transposed, Elem e,
                                 float large) {
  for (std::size_t i = blockIdx.x * 256ULL + threadIdx.x; i < count; i += gridDim.x * 256ULL) {
    const long long idx = static_cast<long long>(i);
    const long long row = transposed ? idx % ld : idx / ld;
    const float scale = row % 3 == 0 ? 0.f : row % 3 == 1 ? large : 1.f;
    store_as(dst, idx, e, scale * load_as_float(src, idx, e));
  }
}

unsigned grid_for(long long count) {
  const long long blocks = (count + 255) / 256;
  return static_cast<unsigned>(blocks < 8192 ? (blocks > 0 ? blocks : 1) : 8192);
}

}  // namespace

cudaError_t fill_uniform(void* data, std::size_t count, Elem elem, std::uint64_t seed, cudaStream_t stream) {
  fill_uniform_kernel<<<grid_for(static_cast<long long>(count)), 256, 0, stream>>>(data, count, elem, seed);
  return cudaGetLastError();
}

cudaError_t fill_pattern(void* data, std::size_t count, Elem elem, std::uint32_t bits,
                         cudaStream_t stream) {
  fill_pattern_kernel<<<grid_for(static_cast<long long>(count)), 256, 0, stream>>>(
      data, count, elem_bytes(elem), bits);
  return cudaGetLastError();
}

cudaError_t convert_copy(void* dst, Elem dst_elem, const void* src, Elem src_elem,
                         std::size_t count, cudaStream_t stream) {
  convert_kernel<<<grid_for(static_cast<long long>(count)), 256, 0, stream>>>(dst, dst_elem, src,
                                                                              src_elem, count);
  return cudaGetLastError();
}

cudaError_t reference_epilogue(float* ref, const void* c0, const void* bias, int m, int n, long long ldc, Elem out,
                               float alpha, float beta, int epilogue, cudaStream_t stream) {
  epilogue_kernel<<<grid_for(static_cast<long long>(m) * n), 256, 0, stream>>>(ref, c0, bias, m, n, ldc, out, alpha,
                                                                              beta, epilogue);
  return cudaGetLastError();
}

cudaError_t abs_copy(void* dst, const void* src, std::size_t count, Elem elem, cudaStream_t stream) {
  abs_kernel<<<grid_for(static_cast<long long>(count)), 256, 0, stream>>>(dst, src, count, elem);
  return cudaGetLastError();
}

cudaError_t magnitude_epilogue(float* mag, const void* c0, const void* bias, int m, int n, long long ldc, Elem out,
                               float alpha, float beta, int epilogue, cudaStream_t stream) {
  magnitude_kernel<<<grid_for(static_cast<long long>(m) * n), 256, 0, stream>>>(mag, c0, bias, m, n, ldc, out, alpha,
                                                                               beta, epilogue);
  return cudaGetLastError();
}

cudaError_t edge_rows(void* dst, const void* src, std::size_t count, long long ld, bool transposed, Elem elem,
                      int large_exp, cudaStream_t stream) {
  edge_rows_kernel<<<grid_for(static_cast<long long>(count)), 256, 0, stream>>>(dst, src, count, ld, transposed, elem,
                                                                               ldexpf(1.f, large_exp));
  return cudaGetLastError();
}

}  // namespace ktune::gemm_gpu
