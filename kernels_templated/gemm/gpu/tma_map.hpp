// Tensor maps for the wgmma path: cuTensorMapEncodeTiled reached through the
// runtime's driver entry point: nothing links libcuda, so ktune starts on
// machines without a driver.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace ktune {

/// A row-major matrix of 16-bit elements, rows x cols with `ld` elements per
/// row, read in boxes of box_rows x box_cols (box_cols * 2 = 128 bytes) with
/// the 128-byte swizzle that the wgmma descriptors of gemm_wgmma.cuh expect;
/// reads past the matrix are zero-filled. Returns cudaErrorInvalidValue when
/// the driver rejects the map (alignment, sizes) or the entry point is missing.
cudaError_t encode_tma_map_2d(CUtensorMap* map, const void* base, bool is_bf16, std::uint64_t rows,
                              std::uint64_t cols, std::uint64_t ld, std::uint32_t box_rows, std::uint32_t box_cols);

/// The same for elements of `type` (`element_bytes` wide): box_cols * element_bytes = 128 bytes.
/// The wgmma path's A and B maps use it (the type from gemm_wgmma_types.hpp: 16-bit, fp32 words for
/// tf32, bytes for fp8), and the epilogue's TMA stores of C (16-bit or fp32 C); stores past the
/// matrix are dropped.
cudaError_t encode_tma_map_2d(CUtensorMap* map, const void* base, CUtensorMapDataType type,
                              int element_bytes, std::uint64_t rows, std::uint64_t cols,
                              std::uint64_t ld, std::uint32_t box_rows, std::uint32_t box_cols);

}  // namespace ktune
