// Fp8Baseline implementation: one cuBLASLt matmul plan per problem, reused by every timed call.
#include "kernels_templated/gemm/gpu/gemm_fp8_baseline.hpp"

#include <cublasLt.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace ktune {
namespace {

void check_lt(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("fp8 baseline: ") + what + ": cuBLAS status " +
                             std::to_string(s));
}

/// cuBLAS's fp8 kernels take up to this much workspace.
constexpr std::size_t kWorkspaceBytes = 32u << 20;

/// The two scales lie this many floats apart, each as aligned as cudaMalloc's
/// pointers: with B's scale 4 bytes after A's, cuBLASLt 13.1 chose an
/// algorithm and then refused the matmul (CUBLAS_STATUS_NOT_SUPPORTED, H100).
constexpr std::size_t kScaleStride = 64;

/// Algorithms asked of the heuristic: the first that runs is kept.
constexpr int kCandidateAlgos = 8;

}  // namespace

struct Fp8Baseline::Plan {
  cublasLtHandle_t lt = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  std::vector<cublasLtMatmulAlgo_t> algos;  ///< the heuristic's, best first
  std::size_t algo = 0;                     ///< the one in use
  float* scales = nullptr;  ///< device: scale of cuBLAS's A (our B), then of cuBLAS's B (our A)
  void* workspace = nullptr;
  float alpha = 1, beta = 0;

  ~Plan() {
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
    if (lt) cublasLtDestroy(lt);
    if (scales) cudaFree(scales);
    if (workspace) cudaFree(workspace);
  }
};

Fp8Baseline::Fp8Baseline(const GemmProblem& p) : plan_(std::make_unique<Plan>()) {
  if (!p.fp8() || p.layout != "nt")
    throw std::runtime_error("fp8 baseline: needs an fp8 problem in layout nt, got dtype=" +
                             p.dtype + ", layout=" + p.layout);
  Plan& q = *plan_;
  const cudaDataType_t in = p.dtype == "e4m3" ? CUDA_R_8F_E4M3 : CUDA_R_8F_E5M2;
  const cudaDataType_t out = p.out == "bf16" ? CUDA_R_16BF : CUDA_R_16F;
  check_lt(cublasLtCreate(&q.lt), "cublasLtCreate");
  check_lt(cublasLtMatmulDescCreate(&q.op, CUBLAS_COMPUTE_32F, CUDA_R_32F),
           "cublasLtMatmulDescCreate");
  // Row-major C = A B^T is column-major C^T = B A^T: cuBLAS's A is our B (N x K row-major = K x N
  // column-major, transposed), its B our A (K x M column-major): the "TN" form fp8 matmuls require.
  const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
  check_lt(
      cublasLtMatmulDescSetAttribute(q.op, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof(transa)),
      "TRANSA");
  check_lt(
      cublasLtMatmulDescSetAttribute(q.op, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof(transb)),
      "TRANSB");
  // Our kernel accumulates in the tensor core across all of K; so does fast accumulation.
  const std::int8_t fast = 1;
  check_lt(
      cublasLtMatmulDescSetAttribute(q.op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof(fast)),
      "FAST_ACCUM");
  if (cudaMalloc(reinterpret_cast<void**>(&q.scales), 2 * kScaleStride * sizeof(float)) !=
      cudaSuccess)
    throw std::runtime_error("fp8 baseline: allocating the scales");
  float host_scales[2 * kScaleStride] = {};
  host_scales[0] = static_cast<float>(p.scale_b);
  host_scales[kScaleStride] = static_cast<float>(p.scale_a);
  if (cudaMemcpy(q.scales, host_scales, sizeof(host_scales), cudaMemcpyHostToDevice) != cudaSuccess)
    throw std::runtime_error("fp8 baseline: copying the scales");
  const float* scale_a = q.scales;                 // cuBLAS's A: our B
  const float* scale_b = q.scales + kScaleStride;  // cuBLAS's B: our A
  check_lt(cublasLtMatmulDescSetAttribute(q.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_a,
                                          sizeof(scale_a)),
           "A_SCALE_POINTER");
  check_lt(cublasLtMatmulDescSetAttribute(q.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_b,
                                          sizeof(scale_b)),
           "B_SCALE_POINTER");
  // D is bf16/fp16, not fp8: its scale is applied through alpha and beta (the same product).
  q.alpha = static_cast<float>(p.scale_d * p.alpha);
  q.beta = static_cast<float>(p.scale_d * p.beta);
  check_lt(cublasLtMatrixLayoutCreate(&q.a, in, p.k, p.n, p.ldb), "layout of B");
  check_lt(cublasLtMatrixLayoutCreate(&q.b, in, p.k, p.m, p.lda), "layout of A");
  check_lt(cublasLtMatrixLayoutCreate(&q.c, out, p.n, p.m, p.ldc), "layout of C");
  if (cudaMalloc(&q.workspace, kWorkspaceBytes) != cudaSuccess)
    throw std::runtime_error("fp8 baseline: allocating the workspace");
  cublasLtMatmulPreference_t pref = nullptr;
  check_lt(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
  const std::size_t ws = kWorkspaceBytes;
  cublasLtMatmulHeuristicResult_t results[kCandidateAlgos] = {};
  int found = 0;
  const cublasStatus_t s = cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
  const cublasStatus_t h = s == CUBLAS_STATUS_SUCCESS ? cublasLtMatmulAlgoGetHeuristic(
                                                            q.lt, q.op, q.a, q.b, q.c, q.c, pref,
                                                            kCandidateAlgos, results, &found)
                                                      : s;
  cublasLtMatmulPreferenceDestroy(pref);
  check_lt(h, "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0)
    throw std::runtime_error("fp8 baseline: cuBLASLt has no algorithm for this problem");
  for (int i = 0; i < found; ++i) q.algos.push_back(results[i].algo);
}

Fp8Baseline::~Fp8Baseline() = default;

cudaError_t Fp8Baseline::run(const void* a, const void* b, void* c, cudaStream_t stream) {
  Plan& q = *plan_;
  // An algorithm the heuristic offered may still be refused at the call:
  // the next one is tried, and the first that runs serves every later call.
  cublasStatus_t s = CUBLAS_STATUS_NOT_SUPPORTED;
  for (; q.algo < q.algos.size(); ++q.algo) {
    s = cublasLtMatmul(q.lt, q.op, &q.alpha, b, q.a, a, q.b, &q.beta, c, q.c, c, q.c,
                       &q.algos[q.algo], q.workspace, kWorkspaceBytes, stream);
    if (s != CUBLAS_STATUS_NOT_SUPPORTED) break;
  }
  if (s == CUBLAS_STATUS_SUCCESS) {
    if (q.algo > 0 && !fallback_reported_) {
      fallback_reported_ = true;
      std::fprintf(stderr,
                   "fp8 baseline: cuBLASLt's algorithm %zu of %zu runs (the first refused)\n",
                   q.algo + 1, q.algos.size());
    }
    return cudaGetLastError();
  }
  if (!refusal_reported_) {
    refusal_reported_ = true;
    std::fprintf(stderr, "fp8 baseline: cublasLtMatmul refused: %s (status %d)\n",
                 cublasGetStatusName(s), static_cast<int>(s));
  }
  return cudaErrorUnknown;
}

}  // namespace ktune
