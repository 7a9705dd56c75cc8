// gemm_common.cuh: shared pieces of the gemm templates (NVRTC-safe): the
// launch parameters, element conversions, inline PTX wrappers (cp.async,
// ldmatrix, mma.sync), block rasterization and the fused epilogue.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace ktune_gemm {

/// Runtime arguments of every gemm kernel (one struct: one kernel signature).
/// Matrices are addressed in elements; see kernels_templated/gemm/README.md for
/// the layout convention (A is M x K, B is K x N after op(); C is row-major).
struct GemmParams {
  const void* A;
  const void* B;
  void* C;              ///< read when beta != 0, written always
  const void* bias;     ///< N values of C's type, or null
  float* workspace;     ///< split-K partials: split_k x M x N fp32 (tight, ld = N)
  int M, N, K;
  long long lda, ldb, ldc;
  float alpha, beta;
  int k_per_split;      ///< K range of one split, a multiple of BLOCK_K
};

// Epilogue codes (template parameter EPI).
constexpr int kEpiNone = 0;
constexpr int kEpiBias = 1;
constexpr int kEpiBiasRelu = 2;
constexpr int kEpiBiasGelu = 3;

// Split-K modes (template parameter SPLIT_MODE).
constexpr int kSplitNone = 0;       ///< one split: the kernel finishes C itself
constexpr int kSplitWorkspace = 1;  ///< partials to the fp32 workspace; a reduction kernel finishes C
constexpr int kSplitAtomic = 2;     ///< C (fp32) prescaled by a first kernel, splits atomically add

template <typename A, typename B> struct is_same_type { static constexpr bool value = false; };
template <typename A> struct is_same_type<A, A> { static constexpr bool value = true; };

template <typename T> __device__ __forceinline__ float to_float(T v);
template <> __device__ __forceinline__ float to_float<float>(float v) { return v; }
template <> __device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <> __device__ __forceinline__ float to_float<__half>(__half v) { return __half2float(v); }

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }

/// The activation after bias (erf-form GELU, as the reference computes it).
template <int EPI>
__device__ __forceinline__ float activate(float v) {
  if constexpr (EPI == kEpiBiasRelu) return v > 0.f ? v : 0.f;
  else if constexpr (EPI == kEpiBiasGelu) return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
  else return v;
}

/// v + bias[n], then the activation: the end of every element's epilogue.
template <typename TOut, int EPI>
__device__ __forceinline__ float finish_value(const GemmParams& p, float v, int n) {
  if constexpr (EPI != kEpiNone) v += to_float(static_cast<const TOut*>(p.bias)[n]);
  return activate<EPI>(v);
}

/// alpha*acc + beta*C0 + bias[n], then the activation: one element of C.
template <typename TOut, int EPI>
__device__ __forceinline__ float epilogue_value(const GemmParams& p, float acc, float c_old, int n) {
  float v = p.alpha * acc;
  if (p.beta != 0.f) v += p.beta * c_old;
  return finish_value<TOut, EPI>(p, v, n);
}

/// Finishes element (m, n) of C from its accumulated value, for split modes
/// none and workspace-partial / atomic-add.
template <typename TOut, int EPI, int SPLIT_MODE>
__device__ __forceinline__ void store_result(const GemmParams& p, int m, int n, float acc) {
  if constexpr (SPLIT_MODE == kSplitWorkspace) {
    p.workspace[(static_cast<long long>(blockIdx.z) * p.M + m) * p.N + n] = acc;
  } else if constexpr (SPLIT_MODE == kSplitAtomic) {
    atomicAdd(static_cast<float*>(p.C) + static_cast<long long>(m) * p.ldc + n, p.alpha * acc);
  } else {
    TOut* c = static_cast<TOut*>(p.C) + static_cast<long long>(m) * p.ldc + n;
    float old = p.beta != 0.f ? to_float(*c) : 0.f;
    *c = from_float<TOut>(epilogue_value<TOut, EPI>(p, acc, old, n));
  }
}

/// Maps a linear tile index to (tile_m, tile_n), visiting GROUP_M tile rows
/// column by column so that blocks running together share A and B tiles in L2.
template <int GROUP_M>
__device__ __forceinline__ void rasterize_id(int id, int tiles_m, int tiles_n, int& tile_m, int& tile_n) {
  if constexpr (GROUP_M <= 1) {
    tile_m = id / tiles_n;
    tile_n = id % tiles_n;
  } else {
    // v11 variant: GROUP_M tile columns visited together (the transpose of main's order).
    const int per_group = GROUP_M * tiles_m;
    const int group = id / per_group;
    const int first_n = group * GROUP_M;
    const int cols = min(tiles_n - first_n, GROUP_M);
    const int in_group = id - group * per_group;
    tile_n = first_n + in_group % cols;
    tile_m = in_group / cols;
  }
}

/// The tile of this block (one block per tile).
template <int GROUP_M>
__device__ __forceinline__ void rasterize(int tiles_m, int tiles_n, int& tile_m, int& tile_n) {
  rasterize_id<GROUP_M>(blockIdx.x, tiles_m, tiles_n, tile_m, tile_n);
}

// ---- inline PTX (no CUDA-library wrapper exists for these) ----

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// Copies BYTES (4, 8 or 16) from global to shared asynchronously; only
/// src_bytes of them are read, the rest are zero-filled (0 reads nothing).
template <int BYTES>
__device__ __forceinline__ void cp_async(unsigned dst, const void* src, int src_bytes) {
  if constexpr (BYTES == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(BYTES),
                 "r"(src_bytes));
  }
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ __forceinline__ void ldmatrix_x4(unsigned addr, unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned addr, unsigned& r0, unsigned& r1, unsigned& r2,
                                                  unsigned& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
}

/// D += A*B for one m16n8k16 tile with 16-bit inputs (bf16 or fp16), fp32 accumulators.
template <typename T>
__device__ __forceinline__ void mma_16816(float* d, const unsigned* a, const unsigned* b) {
  if constexpr (is_same_type<T, __nv_bfloat16>::value) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
}

/// D += A*B for one m16n8k8 tf32 tile (operands already rounded to tf32).
__device__ __forceinline__ void mma_1688_tf32(float* d, const unsigned* a, const unsigned* b) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ unsigned to_tf32(float v) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(v));
  return r;
}

}  // namespace ktune_gemm
