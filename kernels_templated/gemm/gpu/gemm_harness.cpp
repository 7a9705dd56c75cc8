// GemmHarness implementation: inputs, cuBLAS reference, poison, launch, verify.
#include "kernels_templated/gemm/gpu/gemm_harness.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "kernels_templated/gemm/gpu/gemm_harness_kernels.hpp"
#include "kernels_templated/gemm/gpu/gemm_output_check.hpp"

namespace ktune {
namespace {

using gemm_gpu::Elem;

// NaN bit patterns that mark unwritten outputs (distinct from a computed NaN).
constexpr std::uint32_t kPoison32 = 0x7FC0DEADu;
constexpr std::uint32_t kPoisonBf16 = 0x7FDEu;
constexpr std::uint32_t kPoisonFp16 = 0x7E5Au;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("gemm harness: ") + what + ": " + cudaGetErrorString(e));
}
void check_blas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("gemm harness: ") + what + ": cuBLAS status " +
                             std::to_string(s));
}

Elem elem_of(const std::string& dtype) {
  if (dtype == "bf16") return Elem::bf16;
  if (dtype == "fp16") return Elem::fp16;
  if (dtype == "e4m3") return Elem::e4m3;
  if (dtype == "e5m2") return Elem::e5m2;
  return Elem::fp32;
}
Elem in_elem(const GemmProblem& p) { return elem_of(p.dtype); }
Elem out_elem(const GemmProblem& p) { return elem_of(p.out_dtype()); }
/// The verification formats of a problem's inputs and output (fp8 dtypes are fp8_e4m3 / fp8_e5m2
/// there).
verify::Precision precision_of(const std::string& dtype) {
  return verify::precision_from_name(dtype == "e4m3" || dtype == "e5m2" ? "fp8_" + dtype : dtype);
}
cudaDataType_t blas_type(Elem e) {
  return e == Elem::bf16 ? CUDA_R_16BF : e == Elem::fp16 ? CUDA_R_16F : CUDA_R_32F;
}
std::uint32_t poison_of(Elem e) {
  return e == Elem::bf16 ? kPoisonBf16 : e == Elem::fp16 ? kPoisonFp16 : kPoison32;
}
int epilogue_code(const std::string& e) {
  return e == "bias" ? 1 : e == "bias_relu" ? 2 : e == "bias_gelu" ? 3 : 0;
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
  launcher_.release_buffers();
  fp8_baseline_.reset();
}

double GemmHarness::tolerance(const GemmProblem& p) {
  return verify::gemm_rel_l2(precision_of(p.dtype), precision_of(p.out_dtype()), p.k);
}

verify::Tolerances GemmHarness::tolerances(const GemmProblem& p) {
  using verify::Precision;
  const Precision in = precision_of(p.dtype);
  const Precision out = precision_of(p.out_dtype());
  // GELU's slope peaks at 1.13; relu's and the identity's at 1.
  const double lipschitz = p.epilogue == "bias_gelu" ? 1.13 : 1.0;
  return {verify::gemm_bound(in, out, p.k, lipschitz), tolerance(p), 0};
}

int GemmHarness::edge_scale_exponent(const GemmProblem& p) {
  // fp16 inputs hold 2^15 at most, e4m3 448 (2^8 of an input <= 1), e5m2
  // 57344; an fp16 output must hold K * 2^e times the fp8 scales (every
  // |a||b| <= 2^e), so e <= log2(16384 / (K |scales|)). bf16, tf32, fp32:
  // 2^40 leaves K * 2^40 far inside the range.
  int e = p.dtype == "fp16" || p.dtype == "e5m2" ? 15 : p.dtype == "e4m3" ? 8 : 40;
  if (p.out_dtype() == "fp16") {
    const double scale = std::fabs(p.scale_a * p.scale_b * p.scale_d);  // 1 but for fp8
    e = std::min(
        e, static_cast<int>(std::floor(std::log2(16384.0 / (static_cast<double>(p.k) * scale)))));
  }
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
  // fp8 operands are widened to bf16, which holds every fp8 value exactly:
  // cuBLAS's bf16 GEMM with fp32 accumulation is then their fp32 reference.
  const Elem in = p.fp8() ? Elem::bf16 : in_elem(p), out = out_elem(p);
  const int ib = gemm_gpu::elem_bytes(in);
  const std::size_t mn = static_cast<std::size_t>(p.m) * p.n;
  cudaStream_t s = nullptr;
  auto h = static_cast<cublasHandle_t>(cublas_);
  check_blas(cublasSetStream(h, s), "cublasSetStream");
  float* ref = nullptr;
  void *abs_a = nullptr, *abs_b = nullptr, *wide_a = nullptr, *wide_b = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&ref), mn * sizeof(float)), "allocating the reference");
  struct Free {  // on every exit, errors included
    void** ptrs[5];
    ~Free() {
      for (void** q : ptrs)
        if (*q) cudaFree(*q);
    }
  } free_all{{reinterpret_cast<void**>(&ref), &abs_a, &abs_b, &wide_a, &wide_b}};
  const void* b = b_;
  if (p.fp8()) {
    check(cudaMalloc(&wide_a, a_elems_ * ib), "allocating A in bf16");
    check(cudaMalloc(&wide_b, b_elems_ * ib), "allocating B in bf16");
    check(gemm_gpu::convert_copy(wide_a, in, a, in_elem(p), a_elems_, s), "widening A");
    check(gemm_gpu::convert_copy(wide_b, in, b_, in_elem(p), b_elems_, s), "widening B");
    a = wide_a;
    b = wide_b;
  }
  // cuBLASLt's fp8 definition, D = scale_d (alpha scale_a scale_b A B + beta C)
  // (scales are 1 for the other dtypes; scale_d = 1 whenever a bias is added).
  const float alpha = static_cast<float>(p.scale_d * (p.alpha * p.scale_a * p.scale_b));
  const float beta = static_cast<float>(p.scale_d * p.beta);
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
  gemm(a, b, "cublasGemmEx (reference)");
  check(gemm_gpu::reference_epilogue(ref, c0_, bias_, static_cast<int>(p.m), static_cast<int>(p.n),
                                     p.ldc, out, alpha, beta, epilogue_code(p.epilogue), s),
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
  check(gemm_gpu::abs_copy(abs_b, b, b_elems_, in, s), "|B|");
  gemm(abs_a, abs_b, "cublasGemmEx (|A||B|)");
  check(gemm_gpu::magnitude_epilogue(ref, c0_, bias_, static_cast<int>(p.m), static_cast<int>(p.n),
                                     p.ldc, out, alpha, beta, epilogue_code(p.epilogue), s),
        "magnitude epilogue");
  mag_out.resize(mn);
  check(cudaMemcpy(mag_out.data(), ref, mn * sizeof(float), cudaMemcpyDeviceToHost),
        "copying the magnitude");
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

cudaError_t GemmHarness::launch(const Config& config, std::span<const cudaKernel_t> kernels, cudaStream_t stream) {
  GemmKnobs knobs;
  try {
    knobs = GemmKnobs::from(config);
  } catch (const std::exception&) {
    return cudaErrorInvalidValue;
  }
  return launcher_.launch(problem_, knobs, {active_a(), b_, c_, bias_}, kernels, stream);
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
  const float* reference = reference_[active_].data();
  const float* magnitude = magnitude_[active_].data();
  const gemm_gpu::HostOutput c{host.data(), out, p.m, p.n, p.ldc, poison_of(out), p.beta == 0};
  v.stats = gemm_gpu::check_gemm_output(c, reference, magnitude, v.tolerances.element);
  std::ostringstream detail;
  detail << conclude(v);
  if (!v.passed) {
    // Where the bad elements gather names the cause (one tile of a cluster
    // pair, one column block of a tile, one edge).
    const auto blocks = gemm_gpu::bad_blocks(c, reference, magnitude, v.tolerances.element);
    if (!blocks.empty()) detail << "; bad per 64x64 block (row, col):";
    int shown = 0;
    for (const auto& [block, count] : blocks) {
      if (++shown > 12) {
        detail << " ... (" << blocks.size() << " blocks)";
        break;
      }
      detail << " (" << block.first << "," << block.second << ")x" << count;
    }
  }
  if (!v.passed && v.stats.first_bad >= 0) {
    const long long i = v.stats.first_bad, m = i / p.n, n = i % p.n;
    std::uint32_t bits = 0;
    const float got = gemm_gpu::output_element(c, m, n, &bits);
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
  if (p.fp8()) {
    if (!fp8_baseline_) {
      try {
        fp8_baseline_ = std::make_unique<Fp8Baseline>(p);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "gemm harness: no cuBLASLt baseline: %s\n", e.what());
        return cudaErrorNotSupported;
      }
    }
    return fp8_baseline_->run(active_a(), b_, c_, stream);
  }
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

std::unique_ptr<FamilyHarness> make_gemm_harness() { return std::make_unique<GemmHarness>(); }

}  // namespace ktune
