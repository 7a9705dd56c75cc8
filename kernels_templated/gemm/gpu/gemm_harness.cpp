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
cudaError_t launch_repack(cudaKernel_t kernel, const void* src, void* dst, const GemmOperand& o,
                          long long ld_dst, int sm_count, cudaStream_t stream) {
  HostRepackParams r{src, dst, o.ld, ld_dst, o.rows, static_cast<int>(o.cols)};
  void* args[] = {&r};
  const long long items = o.rows * ((o.cols + kRepackWarpSpan - 1) / kRepackWarpSpan);
  const long long blocks = std::min<long long>((items + 7) / 8, 16LL * std::max(sm_count, 1));
  return cudaLaunchKernel(reinterpret_cast<const void*>(kernel),
                          dim3(static_cast<unsigned>(blocks)), dim3(kRepackThreads), args, 0,
                          stream);
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
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("gemm harness: ") + what + ": " + cudaGetErrorString(e));
}
void check_blas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("gemm harness: ") + what + ": cuBLAS status " +
                             std::to_string(s));
}

Elem in_elem(const GemmProblem& p) {
  return p.dtype == "bf16" ? Elem::bf16 : p.dtype == "fp16" ? Elem::fp16 : Elem::fp32;
}
Elem out_elem(const GemmProblem& p) { return p.out_fp32() ? Elem::fp32 : in_elem(p); }
cudaDataType_t blas_type(Elem e) {
  return e == Elem::bf16 ? CUDA_R_16BF : e == Elem::fp16 ? CUDA_R_16F : CUDA_R_32F;
}
std::uint32_t poison_of(Elem e) {
  return e == Elem::bf16 ? kPoisonBf16 : e == Elem::fp16 ? kPoisonFp16 : kPoison32;
}
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
  for (void** p : {&a_, &a_edge_, &b_, &c_, &c0_, &bias_}) {
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

verify::Tolerances GemmHarness::tolerances(const GemmProblem& p) {
  using verify::Precision;
  const Precision in = verify::precision_from_name(p.dtype);
  const Precision out = p.out_fp32() ? Precision::fp32 : in;
  // GELU's slope peaks at 1.13; relu's and the identity's at 1.
  const double lipschitz = p.epilogue == "bias_gelu" ? 1.13 : 1.0;
  return {verify::gemm_bound(in, out, p.k, lipschitz), tolerance(p), 0};
}

int GemmHarness::edge_scale_exponent(const GemmProblem& p) {
  // fp16 inputs hold 2^15 at most; an fp16 output must hold K * 2^e (every
  // |a||b| <= 2^e), so e <= log2(16384 / K). bf16, tf32, fp32: 2^40 leaves
  // K * 2^40 far inside the range.
  int e = p.dtype == "fp16" ? 15 : 40;
  if (!p.out_fp32() && p.dtype == "fp16")
    e = std::min(e, static_cast<int>(std::floor(std::log2(16384.0 / static_cast<double>(p.k)))));
  return std::max(e, 0);
}

void GemmHarness::select_inputs(int set) {
  if (set < 0 || set >= input_sets())
    throw std::invalid_argument("gemm harness: no input set " + std::to_string(set));
  active_ = set;
}

bool GemmHarness::deterministic_by_design(const Config& config) const {
  try {
    return GemmFamily::deterministic(config);
  } catch (const std::exception&) {
    return true;
  }
}

void GemmHarness::compute_reference(const void* a, std::vector<float>& ref_out,
                                    std::vector<float>& mag_out) {
  const GemmProblem& p = problem_;
  const Elem in = in_elem(p), out = out_elem(p);
  const int ib = p.in_bytes();
  const std::size_t mn = static_cast<std::size_t>(p.m) * p.n;
  cudaStream_t s = nullptr;
  auto h = static_cast<cublasHandle_t>(cublas_);
  check_blas(cublasSetStream(h, s), "cublasSetStream");
  float* ref = nullptr;
  void *abs_a = nullptr, *abs_b = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&ref), mn * sizeof(float)), "allocating the reference");
  struct Free {  // on every exit, errors included
    void** ptrs[3];
    ~Free() {
      for (void** q : ptrs)
        if (*q) cudaFree(*q);
    }
  } free_all{{reinterpret_cast<void**>(&ref), &abs_a, &abs_b}};
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the
  // operands; each row-major operand read column-major is already transposed.
  const float one = 1.f, zero = 0.f;
  const cublasComputeType_t compute = ib == 4 ? CUBLAS_COMPUTE_32F_PEDANTIC : CUBLAS_COMPUTE_32F;
  auto gemm = [&](const void* a_op, const void* b_op, const char* what) {
    check_blas(
        cublasGemmEx(h, p.b_t() ? CUBLAS_OP_T : CUBLAS_OP_N, p.a_t() ? CUBLAS_OP_T : CUBLAS_OP_N,
                     static_cast<int>(p.n), static_cast<int>(p.m), static_cast<int>(p.k), &one,
                     b_op, blas_type(in), static_cast<int>(p.ldb), a_op, blas_type(in),
                     static_cast<int>(p.lda), &zero, ref, CUDA_R_32F, static_cast<int>(p.n),
                     compute, CUBLAS_GEMM_DEFAULT),
        what);
  };
  gemm(a, b_, "cublasGemmEx (reference)");
  check(gemm_gpu::reference_epilogue(ref, c0_, bias_, static_cast<int>(p.m), static_cast<int>(p.n),
                                     p.ldc, out, static_cast<float>(p.alpha),
                                     static_cast<float>(p.beta), epilogue_code(p.epilogue), s),
        "reference epilogue");
  ref_out.resize(mn);
  check(cudaMemcpy(ref_out.data(), ref, mn * sizeof(float), cudaMemcpyDeviceToHost),
        "copying the reference");
  // |A||B| by cuBLAS on absolute copies: every term is positive, so the fp32
  // product is within gamma_K of the exact magnitude, and one more GEMM costs
  // little next to any shape's host-side alternative.
  check(cudaMalloc(&abs_a, a_elems_ * ib), "allocating |A|");
  check(cudaMalloc(&abs_b, b_elems_ * ib), "allocating |B|");
  check(gemm_gpu::abs_copy(abs_a, a, a_elems_, in, s), "|A|");
  check(gemm_gpu::abs_copy(abs_b, b_, b_elems_, in, s), "|B|");
  gemm(abs_a, abs_b, "cublasGemmEx (|A||B|)");
  check(gemm_gpu::magnitude_epilogue(ref, c0_, bias_, static_cast<int>(p.m), static_cast<int>(p.n),
                                     p.ldc, out, static_cast<float>(p.alpha),
                                     static_cast<float>(p.beta), epilogue_code(p.epilogue), s),
        "magnitude epilogue");
  mag_out.resize(mn);
  check(cudaMemcpy(mag_out.data(), ref, mn * sizeof(float), cudaMemcpyDeviceToHost),
        "copying the magnitude");
}

void GemmHarness::prepare(const Problem& raw, std::uint64_t seed) {
  release();
  maps_box_m_ = maps_box_n_ = 0;  // new buffers: the tensor maps point at the old ones
  maps_a_ = maps_b_ = nullptr;
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device),
        "reading the SM count");
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
  cudaStream_t s = nullptr;
  check(gemm_gpu::fill_uniform(a_, a_elems_, in, seed * 4 + 1, s), "filling A");
  check(gemm_gpu::fill_uniform(b_, b_elems_, in, seed * 4 + 2, s), "filling B");
  check(gemm_gpu::fill_uniform(c0_, c_elems_, out, seed * 4 + 3, s), "filling C0");
  check(gemm_gpu::fill_uniform(bias_, p.n, out, seed * 4 + 4, s), "filling bias");
  check(cudaMemcpy(c_, c0_, c_elems_ * ob, cudaMemcpyDeviceToDevice), "copying C0");
  check(cudaMalloc(&a_edge_, a_elems_ * ib), "allocating A's edge copy");
  check(gemm_gpu::edge_rows(a_edge_, a_, a_elems_, p.lda, p.a_t(), in, edge_scale_exponent(p), s),
        "edge rows of A");
  active_ = 0;
  compute_reference(a_, reference_[0], magnitude_[0]);
  compute_reference(a_edge_, reference_[1], magnitude_[1]);
}

cudaError_t GemmHarness::launch(const Config& config, std::span<const cudaKernel_t> kernels,
                                cudaStream_t stream) {
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
    if (cudaError_t e = cudaFuncSetAttribute(
            main_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, g.smem_bytes);
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
      if (cudaError_t e = query.max_active_clusters(main_kernel, &clusters); e != cudaSuccess)
        return e;
      it = resident_blocks_.emplace(key, std::max(1, clusters) * cluster).first;
    }
    g = GemmFamily::geometry(p, knobs, it->second);
  }
  if (g.workspace_floats > 0 && workspace_.size() < static_cast<std::size_t>(g.workspace_floats)) {
    if (cudaError_t e = workspace_.grow_to(static_cast<std::size_t>(g.workspace_floats));
        e != cudaSuccess)
      return e;
    // Fresh memory reads as NaN until a split writes it.
    if (cudaError_t e = cudaMemsetAsync(workspace_.data(), 0xFF, workspace_.bytes(), stream);
        e != cudaSuccess)
      return e;
  }
  // REPACK: misaligned operands are copied to the pack buffer (aligned rows)
  // and the main kernel reads the copies.
  const void* kernel_a = active_a();
  const void* kernel_b = b_;
  if (repacks) {
    const std::size_t e = static_cast<std::size_t>(p.in_bytes());
    const std::size_t b_offset = (g.packed_a_elems * e + 255) / 256 * 256;
    const std::size_t bytes = b_offset + g.packed_b_elems * e;
    if (cudaError_t e2 = pack_.grow_to(bytes); e2 != cudaSuccess) return e2;
    unsigned char* base = pack_.data();
    if (g.repack_a) {
      kernel_a = base;
      if (cudaError_t e2 = launch_repack(repack_kernel, active_a(), base, p.a_stored(),
                                         g.kernel_lda, sm_count_, stream);
          e2 != cudaSuccess)
        return e2;
    }
    if (g.repack_b) {
      kernel_b = base + b_offset;
      if (cudaError_t e2 = launch_repack(repack_kernel, b_, base + b_offset, p.b_stored(),
                                         g.kernel_ldb, sm_count_, stream);
          e2 != cudaSuccess)
        return e2;
    }
  }
  HostGemmParams params{kernel_a,
                        kernel_b,
                        c_,
                        bias_,
                        workspace_.data(),
                        static_cast<int>(p.m),
                        static_cast<int>(p.n),
                        static_cast<int>(p.k),
                        g.kernel_lda,
                        g.kernel_ldb,
                        p.ldc,
                        static_cast<float>(p.alpha),
                        static_cast<float>(p.beta),
                        g.k_per_split};
  void* args[] = {&params};
  void* wgmma_args[] = {&map_a_, &map_b_, &map_c_, &params};
  if (knobs.wgmma) {
    // A is M x K and B is N x K, both row-major (layout nt): boxes of 64
    // K-elements; each block of a cluster loads its share of the tile it
    // shares (B along M, A along N).
    const int box_m = knobs.block_m / knobs.cluster_n;
    const int box_n = knobs.block_n / knobs.cluster_m;
    if (maps_box_m_ != box_m || maps_box_n_ != box_n || maps_a_ != kernel_a ||
        maps_b_ != kernel_b) {
      const bool bf16 = p.dtype == "bf16";
      maps_box_m_ = 0;  // stale until both are encoded
      if (cudaError_t e = encode_tma_map_2d(&map_a_, kernel_a, bf16, p.m, p.k, g.kernel_lda, box_m,
                                            knobs.block_k);
          e != cudaSuccess)
        return e;
      if (cudaError_t e = encode_tma_map_2d(&map_b_, kernel_b, bf16, p.n, p.k, g.kernel_ldb, box_n,
                                            knobs.block_k);
          e != cudaSuccess)
        return e;
      maps_box_m_ = box_m;
      maps_box_n_ = box_n;
      maps_a_ = kernel_a;
      maps_b_ = kernel_b;
    }
    // C in 16 rows x 128 bytes boxes. The kernel stores through the map only where C's rows are
    // 16-byte aligned (c_rows_aligned, the map's own requirement); there the map must encode, and
    // elsewhere it is left zeroed and never read.
    const int out_bytes = static_cast<int>(p.out_bytes());
    const auto c_key = std::make_tuple(static_cast<const void*>(c_), p.m, p.n, p.ldc, out_bytes);
    if (knobs.stage_c && c_key != maps_c_key_) {
      const CUtensorMapDataType type = out_bytes == 4      ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                       : p.dtype == "bf16" ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                           : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
      const bool rows_aligned =
          (p.ldc * out_bytes) % 16 == 0 && reinterpret_cast<std::uintptr_t>(c_) % 16 == 0;
      maps_c_key_ = {};  // stale until encoded
      if (encode_tma_map_2d(&map_c_, c_, type, out_bytes, p.m, p.n, p.ldc, 16, 128 / out_bytes) !=
          cudaSuccess) {
        if (rows_aligned) return cudaErrorInvalidValue;
        map_c_ = CUtensorMap{};
      }
      maps_c_key_ = c_key;
    }
  }
  const dim3 aux_grid(static_cast<unsigned>(std::max<long long>(g.aux_blocks, 1)));
  if (g.has_prescale) {
    if (cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(prescale_kernel), aux_grid,
                                         dim3(256), args, 0, stream);
        e != cudaSuccess)
      return e;
  }
  const dim3 grid(static_cast<unsigned>(g.grid_x), 1, static_cast<unsigned>(g.split_k));
  void** main_args = knobs.wgmma ? wgmma_args : args;
  // A cluster of 1 is an ordinary launch (ClusterLaunch attaches no attribute).
  const ClusterLaunch main_launch(grid, dim3(g.threads), static_cast<std::size_t>(g.smem_bytes),
                                  stream, cluster);
  if (cudaError_t e = main_launch.launch(main_kernel, main_args); e != cudaSuccess) return e;
  if (g.has_reduce) {
    if (cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(reduce_kernel), aux_grid,
                                         dim3(256), args, 0, stream);
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
    check(cudaMemcpyAsync(c_, c0_, c_elems_ * p.out_bytes(), cudaMemcpyDeviceToDevice, stream),
          "restoring C0");
  }
  if (workspace_.data())
    check(
        gemm_gpu::fill_pattern(workspace_.data(), workspace_.size(), Elem::fp32, kPoison32, stream),
        "poisoning the workspace");
  // Repacked operands are rewritten by every launch: poison makes a skipped repack fail
  // verification.
  if (pack_.data())
    check(cudaMemsetAsync(pack_.data(), 0xFF, pack_.bytes(), stream),
          "poisoning the repacked operands");
}

Verification GemmHarness::verify(const Config& config, cudaStream_t stream) {
  Verification v;
  const GemmProblem& p = problem_;
  v.tolerances = tolerances(p);
  v.tolerance = v.tolerances.rel_l2;
  if (cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) {
    v.detail = std::string("synchronize failed: ") + cudaGetErrorString(e);
    return v;
  }
  const Elem out = out_elem(p);
  const int ob = p.out_bytes();
  std::vector<unsigned char> host(c_elems_ * ob);
  if (cudaError_t e = cudaMemcpy(host.data(), c_, host.size(), cudaMemcpyDeviceToHost);
      e != cudaSuccess) {
    v.detail = std::string("copying C back failed: ") + cudaGetErrorString(e);
    return v;
  }
  const std::vector<float>& reference = reference_[active_];
  const std::vector<float>& magnitude = magnitude_[active_];
  const std::uint32_t poison = poison_of(out);
  verify::Checker checker(v.tolerances.element);
  for (long long m = 0; m < p.m; ++m) {
    for (long long n = 0; n < p.n; ++n) {
      std::uint32_t bits = 0;
      const float got = bits_to_float(host.data() + (m * p.ldc + n) * ob, out, &bits);
      const long long i = m * p.n + n;
      if (bits == poison && p.beta == 0)
        checker.add_unwritten(i);
      else
        checker.add(i, got, reference[i], magnitude[i]);
    }
  }
  v.stats = checker.finish();
  std::ostringstream detail;
  detail << conclude(v);
  if (!v.passed && v.stats.first_bad >= 0) {
    const long long i = v.stats.first_bad, m = i / p.n, n = i % p.n;
    std::uint32_t bits = 0;
    const float got = bits_to_float(host.data() + (m * p.ldc + n) * ob, out, &bits);
    detail << "; first bad C[" << m << "][" << n << "] = " << got << ", want " << reference[i]
           << " (bound " << verify::allowed_error(v.tolerances.element, reference[i], magnitude[i])
           << ")";
  }
  if (!GemmFamily::deterministic(config))
    detail << (detail.tellp() > 0 ? "; " : "") << "non-deterministic (atomic split-K)";
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
  const cublasComputeType_t compute =
      p.dtype == "tf32" ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const cublasStatus_t s = cublasGemmEx(
      h, p.b_t() ? CUBLAS_OP_T : CUBLAS_OP_N, p.a_t() ? CUBLAS_OP_T : CUBLAS_OP_N,
      static_cast<int>(p.n), static_cast<int>(p.m), static_cast<int>(p.k), &alpha, b_,
      blas_type(in), static_cast<int>(p.ldb), active_a(), blas_type(in), static_cast<int>(p.lda),
      &beta, c_, blas_type(out), static_cast<int>(p.ldc), compute, CUBLAS_GEMM_DEFAULT);
  return s == CUBLAS_STATUS_SUCCESS ? cudaGetLastError() : cudaErrorUnknown;
}

}  // namespace ktune
