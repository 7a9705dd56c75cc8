// The cuBLAS and cuBLASLt functions ktune calls (the GEMM references), each
// forwarded to the library opened on first use (lazy_library.hpp).
#include <cublasLt.h>
#include <cublas_v2.h>

#include "cuda_libs/lazy_library.hpp"

namespace {

ktune::LazyLibrary& cublas() {
  static ktune::LazyLibrary library("cuBLAS", KTUNE_CUBLAS_FILE, KTUNE_CUDA_LIBRARY_DIR);
  return library;
}

ktune::LazyLibrary& cublas_lt() {
  static ktune::LazyLibrary library("cuBLASLt", KTUNE_CUBLASLT_FILE, KTUNE_CUDA_LIBRARY_DIR);
  return library;
}

}  // namespace

using ktune::forward_call;

// cublas_v2.h names these cublasCreate, cublasDestroy and cublasSetStream.
cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  return forward_call<&cublasCreate_v2>(cublas(), "cublasCreate_v2", handle);
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  return forward_call<&cublasDestroy_v2>(cublas(), "cublasDestroy_v2", handle);
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  return forward_call<&cublasSetStream_v2>(cublas(), "cublasSetStream_v2", handle, stream);
}

const char* cublasGetStatusName(cublasStatus_t status) {
  return forward_call<&cublasGetStatusName>(cublas(), "cublasGetStatusName", status);
}

// cublas_api.h also has an inline cublasGemmEx taking the compute type as a
// cudaDataType: this names the library's one, which the forwarder below defines.
using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                  int, const void*, const void*, cudaDataType, int, const void*,
                                  cudaDataType, int, const void*, void*, cudaDataType, int,
                                  cublasComputeType_t, cublasGemmAlgo_t);
constexpr GemmEx kGemmEx = &cublasGemmEx;

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const void* alpha,
                            const void* A, cudaDataType Atype, int lda, const void* B,
                            cudaDataType Btype, int ldb, const void* beta, void* C,
                            cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                            cublasGemmAlgo_t algo) {
  return forward_call<kGemmEx>(cublas(), "cublasGemmEx", handle, transa, transb, m, n, k, alpha, A,
                               Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, computeType, algo);
}

cublasStatus_t cublasLtCreate(cublasLtHandle_t* handle) {
  return forward_call<&cublasLtCreate>(cublas_lt(), "cublasLtCreate", handle);
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  return forward_call<&cublasLtDestroy>(cublas_lt(), "cublasLtDestroy", handle);
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void* alpha,
                              const void* A, cublasLtMatrixLayout_t Adesc, const void* B,
                              cublasLtMatrixLayout_t Bdesc, const void* beta, const void* C,
                              cublasLtMatrixLayout_t Cdesc, void* D, cublasLtMatrixLayout_t Ddesc,
                              const cublasLtMatmulAlgo_t* algo, void* workspace,
                              size_t workspace_bytes, cudaStream_t stream) {
  return forward_call<&cublasLtMatmul>(cublas_lt(), "cublasLtMatmul", handle, desc, alpha, A, Adesc,
                                       B, Bdesc, beta, C, Cdesc, D, Ddesc, algo, workspace,
                                       workspace_bytes, stream);
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t Adesc,
    cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
    cublasLtMatmulPreference_t preference, int requested, cublasLtMatmulHeuristicResult_t results[],
    int* returned) {
  return forward_call<&cublasLtMatmulAlgoGetHeuristic>(
      cublas_lt(), "cublasLtMatmulAlgoGetHeuristic", handle, desc, Adesc, Bdesc, Cdesc, Ddesc,
      preference, requested, results, returned);
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc,
                                        cublasComputeType_t compute_type,
                                        cudaDataType_t scale_type) {
  return forward_call<&cublasLtMatmulDescCreate>(cublas_lt(), "cublasLtMatmulDescCreate", desc,
                                                 compute_type, scale_type);
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  return forward_call<&cublasLtMatmulDescDestroy>(cublas_lt(), "cublasLtMatmulDescDestroy", desc);
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                              cublasLtMatmulDescAttributes_t attr, const void* buf,
                                              size_t bytes) {
  return forward_call<&cublasLtMatmulDescSetAttribute>(
      cublas_lt(), "cublasLtMatmulDescSetAttribute", desc, attr, buf, bytes);
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* pref) {
  return forward_call<&cublasLtMatmulPreferenceCreate>(cublas_lt(),
                                                       "cublasLtMatmulPreferenceCreate", pref);
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
  return forward_call<&cublasLtMatmulPreferenceDestroy>(cublas_lt(),
                                                        "cublasLtMatmulPreferenceDestroy", pref);
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    const void* buf, size_t bytes) {
  return forward_call<&cublasLtMatmulPreferenceSetAttribute>(
      cublas_lt(), "cublasLtMatmulPreferenceSetAttribute", pref, attr, buf, bytes);
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld) {
  return forward_call<&cublasLtMatrixLayoutCreate>(cublas_lt(), "cublasLtMatrixLayoutCreate",
                                                   layout, type, rows, cols, ld);
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  return forward_call<&cublasLtMatrixLayoutDestroy>(cublas_lt(), "cublasLtMatrixLayoutDestroy",
                                                    layout);
}
