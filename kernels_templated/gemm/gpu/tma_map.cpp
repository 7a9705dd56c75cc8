// encode_tma_map_2d: one 2-D tiled tensor map with the 128-byte swizzle.
#include "kernels_templated/gemm/gpu/tma_map.hpp"

#include <cudaTypedefs.h>

namespace ktune {
namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_entry_point() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      p = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

}  // namespace

cudaError_t encode_tma_map_2d(CUtensorMap* map, const void* base, bool is_bf16, std::uint64_t rows,
                              std::uint64_t cols, std::uint64_t ld, std::uint32_t box_rows, std::uint32_t box_cols) {
  return encode_tma_map_2d(map, base, is_bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,
                           rows, cols, ld, box_rows, box_cols);
}

cudaError_t encode_tma_map_2d(CUtensorMap* map, const void* base, CUtensorMapDataType type, int element_bytes,
                              std::uint64_t rows, std::uint64_t cols, std::uint64_t ld, std::uint32_t box_rows,
                              std::uint32_t box_cols) {
  PFN_cuTensorMapEncodeTiled_v12000 encode = encode_entry_point();
  if (!encode) return cudaErrorInvalidValue;
  const cuuint64_t dims[2] = {cols, rows};                // innermost first
  const cuuint64_t strides[1] = {ld * element_bytes};     // bytes between rows (dimension 0 is contiguous)
  const cuuint32_t box[2] = {box_cols, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encode(map, type, 2, const_cast<void*>(base), dims, strides, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

}  // namespace ktune
