// GemmLauncher: launches one gemm configuration's kernels on caller buffers
// (geometry, split-K workspace, repacked operands, TMA tensor maps, cluster
// grids). The harness and libktune_runtime both launch through it.
#pragma once

#include <map>
#include <set>
#include <span>
#include <tuple>

#include <cuda_runtime_api.h>

#include "kernels_templated/gemm/gemm_family.hpp"
#include "kernels_templated/gemm/gpu/growing_device_buffer.hpp"
#include "kernels_templated/gemm/gpu/tma_map.hpp"

namespace ktune {

/// The operands of one call, in device memory (bias may be null without a bias epilogue).
struct GemmOperands {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  const void* bias = nullptr;
};

/// What one operand's tensor map is encoded for: the stored matrix (rows x cols, `ld` apart) and
/// the box of one TMA load.
struct TmaOperandKey {
  const void* base = nullptr;
  long long rows = 0, cols = 0, ld = 0;
  int tma_type = 0;       ///< CUtensorMapDataType (gemm_wgmma_types.hpp)
  int element_bytes = 0;  ///< bytes per element
  int box_rows = 0, box_cols = 0;
  bool operator==(const TmaOperandKey&) const = default;
};

/// The tensor map operand A (or B) of a wgmma configuration needs, stored at `base` with the
/// leading dimension the kernel reads (GemmGeometry::kernel_lda/ldb). K-major (A stored M x K, B
/// N x K, or a tf32 operand's K-major copy): boxes of the tile's rows (its share, half of them,
/// when a cluster pair shares the tile) by one 128-byte row of K-elements. MN-major (A stored K x
/// M, B K x N): boxes of BLOCK_K K-rows (half of them when shared) by 64 M or N elements, one per
/// 64 columns of the tile.
TmaOperandKey wgmma_operand_map(const GemmProblem& p, const GemmKnobs& k, const GemmGeometry& g,
                                bool operand_b, const void* base);

/// Not thread-safe: one launcher per stream (its workspace is in use until
/// the stream's work is done). Buffers grow on the first call of a larger
/// shape and are reused after: once a shape has been launched, launching it
/// again allocates nothing (CUDA graph capture is then possible).
class GemmLauncher {
 public:
  /// `sm_count` caps persistent wgmma grids.
  explicit GemmLauncher(int sm_count = 0) : sm_count_(sm_count) {}
  void set_sm_count(int sm_count) { sm_count_ = sm_count; }
  /// The caller keeps every kernel it passes loaded while this launcher
  /// lives: kernel attributes are then set once per kernel, not per launch.
  void set_kernels_stable(bool stable) { kernels_stable_ = stable; }

  /// Launches `kernels` (in GemmFamily::source order) for a normalized problem.
  /// Returns the first CUDA error; cudaErrorInvalidValue when the kernel count
  /// does not match the configuration or a tensor map cannot be encoded.
  cudaError_t launch(const GemmProblem& p, const GemmKnobs& knobs, const GemmOperands& io,
                     std::span<const cudaKernel_t> kernels, cudaStream_t stream);

  /// Split-K partial sums and repacked operands (the harness poisons them).
  const GrowingDeviceBuffer<float>& workspace() const { return workspace_; }
  const GrowingDeviceBuffer<unsigned char>& pack() const { return pack_; }
  void release_buffers();

 private:
  int sm_count_ = 0;
  bool kernels_stable_ = false;
  std::set<std::pair<const void*, int>>
      smem_set_;                          ///< (kernel, bytes) already set (kernels_stable_)
  GrowingDeviceBuffer<float> workspace_;  ///< split-K partial sums
  GrowingDeviceBuffer<unsigned char>
      pack_;  ///< REPACK: aligned copies of A (at 0) and B (256-byte aligned after A)
  /// A and B's tensor maps of the wgmma path, each encoded for one stored operand and box and
  /// reused while they stay the same (encoding on every timed launch would stall the stream).
  struct OperandMap {
    CUtensorMap map{};
    TmaOperandKey key{};
    bool valid = false;
    /// Encodes `k` unless it is the map's already; the map is invalid after a failure.
    cudaError_t encode(const TmaOperandKey& k);
  };
  OperandMap map_a_, map_b_;
  /// STAGE_C's TMA stores of C: encoded for the C buffer, shape and ldc in maps_c_key_.
  CUtensorMap map_c_{};
  std::tuple<const void*, long long, long long, long long, int> maps_c_key_{};
  bool maps_c_valid_ = false;
  /// Blocks of a persistent cluster grid that fit at once, per (shared memory, threads, cluster
  /// size).
  std::map<std::tuple<int, int, int>, int> resident_blocks_;
};

}  // namespace ktune
