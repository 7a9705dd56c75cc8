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

namespace ktune {
namespace {

using gemm_gpu::Elem;

// NaN bit patterns that mark unwritten outputs (distinct from a computed NaN).
constexpr std::uint32_t kPoison32 = 0x7FC0DEADu;
constexpr std::uint32_t kPoisonBf16 = 0x7FDEu;
constexpr std::uint32_t kPoisonFp16 = 0x7E5Au;

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
  launcher_.release_buffers();
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
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  int sm_count = 0;
  check(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device), "reading the SM count");
  launcher_.set_sm_count(sm_count);
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
  GemmKnobs knobs;
  try {
    knobs = GemmKnobs::from(config);
  } catch (const std::exception&) {
    return cudaErrorInvalidValue;
  }
  return launcher_.launch(problem_, knobs, {a_, b_, c_, bias_}, kernels, stream);
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
  if (const auto& ws = launcher_.workspace(); ws.data())
    check(gemm_gpu::fill_pattern(ws.data(), ws.size(), Elem::fp32, kPoison32, stream),
          "poisoning the workspace");
  // Repacked operands are rewritten by every launch: poison makes a skipped repack fail verification.
  if (const auto& pack = launcher_.pack(); pack.data())
    check(cudaMemsetAsync(pack.data(), 0xFF, pack.bytes(), stream), "poisoning the repacked operands");
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
