// gemm_wgmma_types.hpp: what the wgmma path needs to know about each operand type (bytes,
// instruction K, K per 128-byte swizzle row, PTX type, TMA data type). Plain C++ without includes:
// the descriptor, the launcher and the NVRTC-compiled kernel read this one table, and
// tools/gen_wgmma_ops.py parses it.
#pragma once

namespace ktune_gemm {

/// The operand types the wgmma path serves (problem dtypes bf16, fp16, tf32, e4m3, e5m2).
enum class WgmmaType : int { bf16, fp16, tf32, e4m3, e5m2 };

struct WgmmaTypeTraits {
  int bytes;        ///< bytes per element in memory
  int instr_k;      ///< K of one wgmma instruction: always 32 bytes of K
  int row_elems;    ///< elements per 128-byte swizzle row: the ring's K per stage (BLOCK_K)
  const char* ptx;  ///< PTX operand type of wgmma.mma_async
  int tma_type;     ///< CUtensorMapDataType of its tensor maps
  bool mn_major;    ///< wgmma can read the operand MN-major (transposed); only 16-bit types can
};

/// One row per type. tf32 operands are fp32 words in memory: the tensor maps copy them as FLOAT32
/// (7) and wgmma reads the top 19 bits of each word (truncation: docs/gemm-dtypes.md states the
/// verification bound). fp8 has no tensor-map type of its own; UINT8 (0) copies the bytes. BFLOAT16
/// is 9, FLOAT16 6.
constexpr WgmmaTypeTraits wgmma_traits(WgmmaType t) {
  switch (t) {
    case WgmmaType::bf16:
      return {2, 16, 64, "bf16", 9, true};
    case WgmmaType::fp16:
      return {2, 16, 64, "f16", 6, true};
    case WgmmaType::tf32:
      return {4, 8, 32, "tf32", 7, false};
    case WgmmaType::e4m3:
      return {1, 32, 128, "e4m3", 0, false};
    case WgmmaType::e5m2:
      return {1, 32, 128, "e5m2", 0, false};
  }
  return {0, 0, 0, "", 0, false};
}

}  // namespace ktune_gemm
