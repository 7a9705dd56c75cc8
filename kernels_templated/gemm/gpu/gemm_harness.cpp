// GemmHarness implementation: inputs, cuBLAS reference, poison, launch, verify.
#include "kernels_templated/gemm/gpu/gemm_harness.hpp"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "kernels_templated/gemm/gpu/gemm_harness_kernels.hpp"
#include "kernels_templated/gpu/cluster_launch.hpp"

namespace ktune {
namespace {

using gemm_gpu::Elem;

// NaN bit patterns that mark unwritten outputs (distinct from a computed NaN).
constexpr std::uint32_t kPoison32 = 0x7FC0DEADu;
constexpr std::uint32_t kPoisonBf16 = 0x7FDEu;
constexpr std::uint32_t kPoisonFp16 = 0x7E5Au;

/// Host mirror of ktune_gemm::RepackParams (gemm_repack.cuh).
struct HostRepackParams {
  const void* src;
  void* dst;
  long long ld_src, ld_dst;
  long long rows;
  int cols;
};
constexpr int kRepackThreads = 256;   // gemm_repack.cuh: kRepackThreads
constexpr int kRepackWarpSpan = 256;  // gemm_repack.cuh: 32 lanes x kRepackPerLane

/// Launches the repack kernel for one stored operand: a block per 8 warp
/// items, at most 16 blocks per SM (the warps stride over the rest).
cudaError_t launch_repack(cudaKernel_t kernel, const void* src, void* dst, const GemmOperand& o, long long ld_dst,
                          int sm_count, cudaStream_t stream) {
  HostRepackParams r{src, dst, o.ld, ld_dst, o.rows, static_cast<int>(o.cols)};
  void* args[] = {&r};
  const long long items = o.rows * ((o.cols + kRepackWarpSpan - 1) / kRepackWarpSpan);
  const long long blocks = std::min<long long>((items + 7) / 8, 16LL * std::max(sm_count, 1));
  return cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(static_cast<unsigned>(blocks)),
                          dim3(kRepackThreads), args, 0, stream);
}

/// Host mirror of ktune_gemm::GemmParams (gemm_common.cuh): same members, same order.
struct HostGemmParams {
  const void* A;
  const void* B;
  void* C;
  const void* bias;
  float* workspace;
  int M, N, K;
  long long lda, ldb, ldc;
  float alpha, beta;
  int k_per_split;
};

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("gemm harness: ") + what + ": " + cudaGetErrorString(e));
}
void check_blas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("gemm harness: ") + what + ": cuBLAS status " + std::to_string(s));
}

Elem in_elem(const GemmProblem& p) {
  return p.dtype == "bf16" ? Elem::bf16 : p.dtype == "fp16" ? Elem::fp16 : Elem::fp32;
}
Elem out_elem(const GemmProblem& p) { return p.out_fp32() ? Elem::fp32 : in_elem(p); }
cudaDataType_t blas_type(Elem e) {
  return e == Elem::bf16 ? CUDA_R_16BF : e == Elem::fp16 ? CUDA_R_16F : CUDA_R_32F;
}
std::uint32_t poison_of(Elem e) { return e == Elem::bf16 ? kPoisonBf16 : e == Elem::fp16 ? kPoisonFp16 : kPoison32; }
int epilogue_code(const std::string& e) {
  return e == "bias" ? 1 : e == "bias_relu" ? 2 : e == "bias_gelu" ? 3 : 0;
}

float bits_to_float(const unsigned char* p, Elem e, std::uint32_t* bits_out) {
  if (e == Elem::fp32) {
    std::uint32_t b;
    std::memcpy(&b, p, 4);
    *bits_out = b;
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  std::uint16_t h;
  std::memcpy(&h, p, 2);
  *bits_out = h;
  if (e == Elem::bf16) {
    const std::uint32_t b = static_cast<std::uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  __half_raw raw;
  raw.x = h;
  return __half2float(__half(raw));
}

}  // namespace

GemmHarness::GemmHarness() {
  cublasHandle_t h = nullptr;
  check_blas(cublasCreate(&h), "cublasCreate");
  cublas_ = h;
}

GemmHarness::~GemmHarness() {
  release();
  if (cublas_) cublasDestroy(static_cast<cublasHandle_t>(cublas_));
}

void GemmHarness::release() {
  for (void** p : {&a_, &b_, &c_, &c0_, &bias_}) {
    if (*p) cudaFree(*p);
    *p = nullptr;
  }
  workspace_.reset();
  pack_.reset();
}

double GemmHarness::tolerance(const GemmProblem& p) {
  // Rounding of the output type dominates when it is 16-bit; otherwise the
  // inputs' precision (tf32: 10-bit mantissa) or fp32 summation-order
  // differences, which grow like sqrt(K).
  const double k_growth = std::max(1.0, std::sqrt(static_cast<double>(p.k)) / 64.0);
  if (p.dtype == "fp32") return 1e-5 * k_growth;
  if (p.dtype == "tf32") return 2e-3;
  if (!p.out_fp32()) return p.dtype == "bf16" ? 1e-2 : 5e-3;
  return 1e-4 * k_growth;
}

void GemmHarness::prepare(const Problem& raw, std::uint64_t seed) {
  release();
  maps_box_m_ = maps_box_n_ = 0;  // new buffers: the tensor maps point at the old ones
  maps_a_ = maps_b_ = nullptr;
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device), "reading the SM count");
  problem_ = GemmProblem::from(gemm_family().normalize(raw));
  const GemmProblem& p = problem_;
  const Elem in = in_elem(p), out = out_elem(p);
  const int ib = p.in_bytes(), ob = p.out_bytes();
  a_elems_ = static_cast<std::size_t>(p.a_t() ? p.k : p.m) * p.lda;
  b_elems_ = static_cast<std::size_t>(p.b_t() ? p.n : p.k) * p.ldb;
  c_elems_ = static_cast<std::size_t>(p.m) * p.ldc;
  check(cudaMalloc(&a_, a_elems_ * ib), "allocating A");
  check(cudaMalloc(&b_, b_elems_ * ib), "allocating B");
  check(cudaMalloc(&c_, c_elems_ * ob), "allocating C");
  check(cudaMalloc(&c0_, c_elems_ * ob), "allocating C0");
  check(cudaMalloc(&bias_, static_cast<std::size_t>(p.n) * ob), "allocating bias");
  float* ref = nullptr;
  const std::size_t mn = static_cast<std::size_t>(p.m) * p.n;
  check(cudaMalloc(reinterpret_cast<void**>(&ref), mn * sizeof(float)), "allocating the reference");

  cudaStream_t s = nullptr;
  check(gemm_gpu::fill_uniform(a_, a_elems_, in, seed * 4 + 1, s), "filling A");
  check(gemm_gpu::fill_uniform(b_, b_elems_, in, seed * 4 + 2, s), "filling B");
  check(gemm_gpu::fill_uniform(c0_, c_elems_, out, seed * 4 + 3, s), "filling C0");
  check(gemm_gpu::fill_uniform(bias_, p.n, out, seed * 4 + 4, s), "filling bias");
  check(cudaMemcpy(c_, c0_, c_elems_ * ob, cudaMemcpyDeviceToDevice), "copying C0");

  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the
  // operands; each row-major operand read column-major is already transposed.
  auto h = static_cast<cublasHandle_t>(cublas_);
  check_blas(cublasSetStream(h, s), "cublasSetStream");
  const float one = 1.f, zero = 0.f;
  const cublasComputeType_t compute = ib == 4 ? CUBLAS_COMPUTE_32F_PEDANTIC : CUBLAS_COMPUTE_32F;
  check_blas(cublasGemmEx(h, p.b_t() ? CUBLAS_OP_T : CUBLAS_OP_N, p.a_t() ? CUBLAS_OP_T : CUBLAS_OP_N,
                          static_cast<int>(p.n), static_cast<int>(p.m), static_cast<int>(p.k), &one, b_,
                          blas_type(in), static_cast<int>(p.ldb), a_, blas_type(in), static_cast<int>(p.lda), &zero,
                          ref, CUDA_R_32F, static_cast<int>(p.n), compute, CUBLAS_GEMM_DEFAULT),
             "cublasGemmEx (reference)");
  check(gemm_gpu::reference_epilogue(ref, c0_, bias_, static_cast<int>(p.m), static_cast<int>(p.n), p.ldc, out,
                                     static_cast<float>(p.alpha), static_cast<float>(p.beta),
                                     epilogue_code(p.epilogue), s),
        "reference epilogue");
  reference_.resize(mn);
  check(cudaMemcpy(reference_.data(), ref, mn * sizeof(float), cudaMemcpyDeviceToHost), "copying the reference");
  cudaFree(ref);
  double sq = 0;
  for (float v : reference_) sq += static_cast<double>(v) * v;
  reference_rms_ = std::sqrt(sq / static_cast<double>(std::max<std::size_t>(mn, 1)));
}

cudaError_t GemmHarness::launch(const Config& config, std::span<const cudaKernel_t> kernels, cudaStream_t stream) {
  const GemmProblem& p = problem_;
  GemmKnobs knobs;
  GemmGeometry g;
  try {
    knobs = GemmKnobs::from(config);
    g = GemmFamily::geometry(p, knobs, sm_count_);
  } catch (const std::exception&) {
    return cudaErrorInvalidValue;
  }
  // Launch order (GemmFamily::source): [repack], [prescale], main, [reduce].
  std::size_t next = 0;
  const bool repacks = g.repack_a || g.repack_b;
  const std::size_t expected = 1 + (repacks ? 1 : 0) + (g.has_reduce || g.has_prescale ? 1 : 0);
  if (kernels.size() != expected) return cudaErrorInvalidValue;
  const cudaKernel_t repack_kernel = repacks ? kernels[next++] : nullptr;
  const cudaKernel_t prescale_kernel = g.has_prescale ? kernels[next++] : nullptr;
  const void* main_kernel = reinterpret_cast<const void*>(kernels[next++]);
  const cudaKernel_t reduce_kernel = g.has_reduce ? kernels[next++] : nullptr;
  // Set on every launch (cheap): a handle may be reused by a later library once
  // an earlier one is unloaded, so remembering handles would be wrong.
  if (g.smem_bytes > 48 * 1024) {
    if (cudaError_t e = cudaFuncSetAttribute(main_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, g.smem_bytes);
        e != cudaSuccess)
      return e;
  }
  const int cluster = knobs.cluster();
  if (knobs.persistent && cluster > 1) {
    // A persistent grid of clusters: as many blocks as fit at once, which can
    // be fewer than the SMs (a cluster's blocks share a GPC).
    const auto key = std::make_tuple(g.smem_bytes, g.threads, cluster);
    auto it = resident_blocks_.find(key);
    if (it == resident_blocks_.end()) {
      const ClusterLaunch query(dim3(static_cast<unsigned>(cluster * 64)), dim3(g.threads),
                                static_cast<std::size_t>(g.smem_bytes), stream, cluster);
      int clusters = 0;
      if (cudaError_t e = query.max_active_clusters(main_kernel, &clusters); e != cudaSuccess) return e;
      it = resident_blocks_.emplace(key, std::max(1, clusters) * cluster).first;
    }
    g = GemmFamily::geometry(p, knobs, it->second);
  }
  if (g.workspace_floats > 0 && workspace_.size() < static_cast<std::size_t>(g.workspace_floats)) {
    if (cudaError_t e = workspace_.grow_to(static_cast<std::size_t>(g.workspace_floats)); e != cudaSuccess) return e;
    // Fresh memory reads as NaN until a split writes it.
    if (cudaError_t e = cudaMemsetAsync(workspace_.data(), 0xFF, workspace_.bytes(), stream); e != cudaSuccess)
      return e;
  }
  // REPACK: misaligned operands are copied to the pack buffer (aligned rows)
  // and the main kernel reads the copies.
  const void* kernel_a = a_;
  const void* kernel_b = b_;
  if (repacks) {
    const std::size_t e = static_cast<std::size_t>(p.in_bytes());
    const std::size_t b_offset = (g.packed_a_elems * e + 255) / 256 * 256;
    const std::size_t bytes = b_offset + g.packed_b_elems * e;
    if (cudaError_t e2 = pack_.grow_to(bytes); e2 != cudaSuccess) return e2;
    unsigned char* base = pack_.data();
    if (g.repack_a) {
      kernel_a = base;
      if (cudaError_t e2 = launch_repack(repack_kernel, a_, base, p.a_stored(), g.kernel_lda, sm_count_, stream); e2 != cudaSuccess)
        return e2;
    }
    if (g.repack_b) {
      kernel_b = base + b_offset;
      if (cudaError_t e2 = launch_repack(repack_kernel, b_, base + b_offset, p.b_stored(), g.kernel_ldb, sm_count_,
                                            stream);
          e2 != cudaSuccess)
        return e2;
    }
  }
  HostGemmParams params{kernel_a, kernel_b, c_, bias_, workspace_.data(), static_cast<int>(p.m), static_cast<int>(p.n),
                        static_cast<int>(p.k), g.kernel_lda, g.kernel_ldb, p.ldc, static_cast<float>(p.alpha),
                        static_cast<float>(p.beta), g.k_per_split};
  void* args[] = {&params};
  void* wgmma_args[] = {&map_a_, &map_b_, &map_c_, &params};
  if (knobs.wgmma) {
    // A is M x K and B is N x K, both row-major (layout nt): boxes of 64
    // K-elements; each block of a cluster loads its share of the tile it
    // shares (B along M, A along N).
    const int box_m = knobs.block_m / knobs.cluster_n;
    const int box_n = knobs.block_n / knobs.cluster_m;
    if (maps_box_m_ != box_m || maps_box_n_ != box_n || maps_a_ != kernel_a || maps_b_ != kernel_b) {
      const bool bf16 = p.dtype == "bf16";
      maps_box_m_ = 0;  // stale until both are encoded
      if (cudaError_t e = encode_tma_map_2d(&map_a_, kernel_a, bf16, p.m, p.k, g.kernel_lda, box_m, knobs.block_k);
          e != cudaSuccess)
        return e;
      if (cudaError_t e = encode_tma_map_2d(&map_b_, kernel_b, bf16, p.n, p.k, g.kernel_ldb, box_n, knobs.block_k);
          e != cudaSuccess)
        return e;
      maps_box_m_ = box_m;
      maps_box_n_ = box_n;
      maps_a_ = kernel_a;
      maps_b_ = kernel_b;
    }
    // C in 16 rows x 128 bytes boxes. The kernel stores through the map only where C's rows are 16-byte
    // aligned (c_rows_aligned, the map's own requirement); there the map must encode, and elsewhere it is
    // left zeroed and never read.
    const int out_bytes = static_cast<int>(p.out_bytes());
    const auto c_key = std::make_tuple(static_cast<const void*>(c_), p.m, p.n, p.ldc, out_bytes);
    if (knobs.stage_c && c_key != maps_c_key_) {
      const CUtensorMapDataType type = out_bytes == 4        ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                       : p.dtype == "bf16" ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                           : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
      const bool rows_aligned =
          (p.ldc * out_bytes) % 16 == 0 && reinterpret_cast<std::uintptr_t>(c_) % 16 == 0;
      maps_c_key_ = {};  // stale until encoded
      if (encode_tma_map_2d(&map_c_, c_, type, out_bytes, p.m, p.n, p.ldc, 16, 128 / out_bytes) != cudaSuccess) {
        if (rows_aligned) return cudaErrorInvalidValue;
        map_c_ = CUtensorMap{};
      }
      maps_c_key_ = c_key;
    }
  }
  const dim3 aux_grid(static_cast<unsigned>(std::max<long long>(g.aux_blocks, 1)));
  if (g.has_prescale) {
    if (cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(prescale_kernel), aux_grid, dim3(256), args, 0,
                                         stream);
        e != cudaSuccess)
      return e;
  }
  const dim3 grid(static_cast<unsigned>(g.grid_x), 1, static_cast<unsigned>(g.split_k));
  void** main_args = knobs.wgmma ? wgmma_args : args;
  // A cluster of 1 is an ordinary launch (ClusterLaunch attaches no attribute).
  const ClusterLaunch main_launch(grid, dim3(g.threads), static_cast<std::size_t>(g.smem_bytes), stream, cluster);
  if (cudaError_t e = main_launch.launch(main_kernel, main_args); e != cudaSuccess) return e;
  if (g.has_reduce) {
    if (cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(reduce_kernel), aux_grid, dim3(256), args, 0,
                                         stream);
        e != cudaSuccess)
      return e;
  }
  return cudaGetLastError();
}

void GemmHarness::poison_outputs(cudaStream_t stream) {
  const GemmProblem& p = problem_;
  const Elem out = out_elem(p);
  if (p.beta == 0) {
    // C is not read: every element must be written, so poison is detectable.
    check(gemm_gpu::fill_pattern(c_, c_elems_, out, poison_of(out), stream), "poisoning C");
  } else {
    // C is an input: restore C0 (an unwritten element then keeps C0 and misses the reference).
    check(cudaMemcpyAsync(c_, c0_, c_elems_ * p.out_bytes(), cudaMemcpyDeviceToDevice, stream), "restoring C0");
  }
  if (workspace_.data())
    check(gemm_gpu::fill_pattern(workspace_.data(), workspace_.size(), Elem::fp32, kPoison32, stream),
          "poisoning the workspace");
  // Repacked operands are rewritten by every launch: poison makes a skipped repack fail verification.
  if (pack_.data())
    check(cudaMemsetAsync(pack_.data(), 0xFF, pack_.bytes(), stream), "poisoning the repacked operands");
}

Verification GemmHarness::verify(const Config& config, cudaStream_t stream) {
  Verification v;
  const GemmProblem& p = problem_;
  v.tolerance = tolerance(p);
  if (cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) {
    v.detail = std::string("synchronize failed: ") + cudaGetErrorString(e);
    return v;
  }
  const Elem out = out_elem(p);
  const int ob = p.out_bytes();
  std::vector<unsigned char> host(c_elems_ * ob);
  if (cudaError_t e = cudaMemcpy(host.data(), c_, host.size(), cudaMemcpyDeviceToHost); e != cudaSuccess) {
    v.detail = std::string("copying C back failed: ") + cudaGetErrorString(e);
    return v;
  }
  const std::uint32_t poison = poison_of(out);
  double diff_sq = 0, ref_sq = 0;
  std::int64_t bad_elements = 0;
  std::ostringstream first;
  // Elementwise bound too: one wrong row in a large C barely moves the L2 error.
  const double elem_tol = 4.0 * v.tolerance;
  for (long long m = 0; m < p.m; ++m) {
    for (long long n = 0; n < p.n; ++n) {
      std::uint32_t bits = 0;
      const float got = bits_to_float(host.data() + (m * p.ldc + n) * ob, out, &bits);
      const float want = reference_[m * p.n + n];
      if (bits == poison && p.beta == 0) {
        if (v.unwritten++ == 0 && bad_elements == 0) first << "unwritten C[" << m << "][" << n << "]";
        continue;
      }
      if (!std::isfinite(got)) {
        if (v.nan_or_inf++ == 0 && bad_elements == 0 && v.unwritten == 0)
          first << "non-finite C[" << m << "][" << n << "] = " << got << " (want " << want << ")";
        continue;
      }
      const double d = static_cast<double>(got) - want;
      diff_sq += d * d;
      ref_sq += static_cast<double>(want) * want;
      v.max_abs_error = std::max(v.max_abs_error, std::abs(d));
      if (std::abs(d) > elem_tol * std::max<double>(std::abs(want), reference_rms_) + 1e-30) {
        if (bad_elements++ == 0 && v.unwritten == 0 && v.nan_or_inf == 0)
          first << "C[" << m << "][" << n << "] = " << got << ", want " << want;
      }
    }
  }
  v.rel_l2_error = ref_sq > 0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);
  v.passed = v.unwritten == 0 && v.nan_or_inf == 0 && bad_elements == 0 && v.rel_l2_error <= v.tolerance;
  std::ostringstream detail;
  if (!v.passed) {
    detail << "rel_l2 " << v.rel_l2_error << " (tol " << v.tolerance << "), " << bad_elements
           << " elements off, " << v.unwritten << " unwritten, " << v.nan_or_inf << " non-finite; first: "
           << first.str();
  }
  if (!GemmFamily::deterministic(config)) detail << (detail.tellp() > 0 ? "; " : "") << "non-deterministic (atomic split-K)";
  v.detail = detail.str();
  return v;
}

std::pair<const void*, std::size_t> GemmHarness::output_region() const {
  return {c_, c_elems_ * static_cast<std::size_t>(problem_.out_bytes())};
}

cudaError_t GemmHarness::launch_cublas(cudaStream_t stream) {
  const GemmProblem& p = problem_;
  auto h = static_cast<cublasHandle_t>(cublas_);
  if (cublasSetStream(h, stream) != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
  const float alpha = static_cast<float>(p.alpha), beta = static_cast<float>(p.beta);
  const Elem in = in_elem(p), out = out_elem(p);
  const cublasComputeType_t compute = p.dtype == "tf32" ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const cublasStatus_t s =
      cublasGemmEx(h, p.b_t() ? CUBLAS_OP_T : CUBLAS_OP_N, p.a_t() ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(p.n),
                   static_cast<int>(p.m), static_cast<int>(p.k), &alpha, b_, blas_type(in), static_cast<int>(p.ldb), a_,
                   blas_type(in), static_cast<int>(p.lda), &beta, c_, blas_type(out), static_cast<int>(p.ldc), compute,
                   CUBLAS_GEMM_DEFAULT);
  return s == CUBLAS_STATUS_SUCCESS ? cudaGetLastError() : cudaErrorUnknown;
}

}  // namespace ktune
