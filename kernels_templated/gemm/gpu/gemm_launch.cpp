// GemmLauncher: the launch sequence of a gemm configuration ([repack],
// [prescale], main, [reduce]) with its geometry, workspaces and tensor maps.
#include "kernels_templated/gemm/gpu/gemm_launch.hpp"

#include <algorithm>
#include <cstdint>

#include "kernels_templated/gpu/cluster_launch.hpp"

namespace ktune {
namespace {

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

constexpr int kTransposeTile = 32;  // gemm_repack.cuh: kTransposeTile
constexpr int kTransposeThreads = 256;

/// Launches the transposing copy of one stored operand into its K-major copy
/// (ld_dst apart): at most 16 blocks per SM, striding over the 32 x 32 tiles.
cudaError_t launch_transpose(cudaKernel_t kernel, const void* src, void* dst, const GemmOperand& o,
                             long long ld_dst, int sm_count, cudaStream_t stream) {
  HostRepackParams r{src, dst, o.ld, ld_dst, o.rows, static_cast<int>(o.cols)};
  void* args[] = {&r};
  const long long tiles = ((o.rows + kTransposeTile - 1) / kTransposeTile) *
                          ((o.cols + kTransposeTile - 1) / kTransposeTile);
  const long long blocks = std::min<long long>(tiles, 16LL * std::max(sm_count, 1));
  return cudaLaunchKernel(reinterpret_cast<const void*>(kernel),
                          dim3(static_cast<unsigned>(blocks)), dim3(kTransposeThreads), args, 0,
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

}  // namespace

TmaOperandKey wgmma_operand_map(const GemmProblem& p, const GemmKnobs& k, const GemmGeometry& g,
                                bool operand_b, const void* base) {
  const long long ld = operand_b ? g.kernel_ldb : g.kernel_lda;
  // A tf32 operand stored M- or N-major is read from its K-major copy (M x K, or N x K).
  const bool transposed = operand_b ? g.transpose_b : g.transpose_a;
  const GemmOperand o = transposed  ? GemmOperand{operand_b ? p.n : p.m, p.k, ld}
                        : operand_b ? p.b_stored()
                                    : p.a_stored();
  const bool k_major = transposed || (operand_b ? p.b_t() : !p.a_t());
  // B is shared along M (CLUSTER_M), A along N (CLUSTER_N).
  const int sharers = operand_b ? k.cluster_m : k.cluster_n;
  const int tile_rows = operand_b ? k.block_n : k.block_m;
  const ktune_gemm::WgmmaTypeTraits t = wgmma_operand_traits(p.dtype);
  TmaOperandKey key{base, o.rows, o.cols, ld, t.tma_type, t.bytes, 0, 0};
  key.box_rows = k_major ? tile_rows / sharers : k.block_k / sharers;
  key.box_cols = k_major ? k.block_k : t.row_elems;
  return key;
}

cudaError_t GemmLauncher::OperandMap::encode(const TmaOperandKey& k) {
  if (valid && k == key) return cudaSuccess;
  valid = false;  // stale until encoded
  if (cudaError_t e = encode_tma_map_2d(&map, k.base, static_cast<CUtensorMapDataType>(k.tma_type),
                                        k.element_bytes, static_cast<std::uint64_t>(k.rows),
                                        static_cast<std::uint64_t>(k.cols),
                                        static_cast<std::uint64_t>(k.ld), k.box_rows, k.box_cols);
      e != cudaSuccess)
    return e;
  key = k;
  valid = true;
  return cudaSuccess;
}

void GemmLauncher::release_buffers() {
  workspace_.reset();
  pack_.reset();
  map_a_.valid = map_b_.valid = maps_c_valid_ = false;
}

cudaError_t GemmLauncher::launch(const GemmProblem& p, const GemmKnobs& knobs,
                                 const GemmOperands& io, std::span<const cudaKernel_t> kernels,
                                 cudaStream_t stream) {
  GemmGeometry g;
  try {
    g = GemmFamily::geometry(p, knobs, sm_count_);
  } catch (const std::exception&) {
    return cudaErrorInvalidValue;
  }
  // Launch order (GemmFamily::source): [repack], [transpose], [prescale], main, [reduce].
  std::size_t next = 0;
  const bool repacks = g.repack_a || g.repack_b;
  const bool transposes = g.transpose_a || g.transpose_b;
  const std::size_t expected =
      1 + (repacks ? 1 : 0) + (transposes ? 1 : 0) + (g.has_reduce || g.has_prescale ? 1 : 0);
  if (kernels.size() != expected) return cudaErrorInvalidValue;
  const cudaKernel_t repack_kernel = repacks ? kernels[next++] : nullptr;
  const cudaKernel_t transpose_kernel = transposes ? kernels[next++] : nullptr;
  const cudaKernel_t prescale_kernel = g.has_prescale ? kernels[next++] : nullptr;
  const void* main_kernel = reinterpret_cast<const void*>(kernels[next++]);
  const cudaKernel_t reduce_kernel = g.has_reduce ? kernels[next++] : nullptr;
  // Set on every launch (cheap): a handle may be reused by a later library once
  // an earlier one is unloaded, so remembering handles would be wrong -- unless
  // the caller keeps every kernel loaded while this launcher lives (the runtime).
  if (g.smem_bytes > 48 * 1024 &&
      !(kernels_stable_ && smem_set_.count({main_kernel, g.smem_bytes}))) {
    if (cudaError_t e = cudaFuncSetAttribute(
            main_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, g.smem_bytes);
        e != cudaSuccess)
      return e;
    if (kernels_stable_) smem_set_.insert({main_kernel, g.smem_bytes});
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
  // REPACK: misaligned operands are copied to the pack buffer (aligned rows),
  // transposed ones (wgmma tf32) to their K-major form; the main kernel reads the copies.
  const void* kernel_a = io.a;
  const void* kernel_b = io.b;
  if (repacks || transposes) {
    const std::size_t e = static_cast<std::size_t>(p.in_bytes());
    const std::size_t b_offset = (g.packed_a_elems * e + 255) / 256 * 256;
    const std::size_t bytes = b_offset + g.packed_b_elems * e;
    if (cudaError_t e2 = pack_.grow_to(bytes); e2 != cudaSuccess) return e2;
    unsigned char* base = pack_.data();
    if (g.repack_a || g.transpose_a) {
      kernel_a = base;
      if (cudaError_t e2 = g.transpose_a
                               ? launch_transpose(transpose_kernel, io.a, base, p.a_stored(),
                                                  g.kernel_lda, sm_count_, stream)
                               : launch_repack(repack_kernel, io.a, base, p.a_stored(),
                                               g.kernel_lda, sm_count_, stream);
          e2 != cudaSuccess)
        return e2;
    }
    if (g.repack_b || g.transpose_b) {
      kernel_b = base + b_offset;
      if (cudaError_t e2 = g.transpose_b
                               ? launch_transpose(transpose_kernel, io.b, base + b_offset,
                                                  p.b_stored(), g.kernel_ldb, sm_count_, stream)
                               : launch_repack(repack_kernel, io.b, base + b_offset, p.b_stored(),
                                               g.kernel_ldb, sm_count_, stream);
          e2 != cudaSuccess)
        return e2;
    }
  }
  HostGemmParams params{kernel_a,
                        kernel_b,
                        io.c,
                        io.bias,
                        workspace_.data(),
                        static_cast<int>(p.m),
                        static_cast<int>(p.n),
                        static_cast<int>(p.k),
                        g.kernel_lda,
                        g.kernel_ldb,
                        p.ldc,
                        static_cast<float>(p.kernel_alpha()),  // fp8 scales folded in
                        static_cast<float>(p.kernel_beta()),
                        g.k_per_split};
  void* args[] = {&params};
  void* wgmma_args[] = {&map_a_.map, &map_b_.map, &map_c_, &params};
  if (knobs.wgmma) {
    // Each operand's map as it is stored, or as its K-major copy (wgmma_operand_map).
    const TmaOperandKey a_key = wgmma_operand_map(p, knobs, g, false, kernel_a);
    const TmaOperandKey b_key = wgmma_operand_map(p, knobs, g, true, kernel_b);
    if (cudaError_t e = map_a_.encode(a_key); e != cudaSuccess) return e;
    if (cudaError_t e = map_b_.encode(b_key); e != cudaSuccess) return e;
    // C in 16 rows x 128 bytes boxes. The kernel stores through the map only where C's rows are
    // 16-byte aligned (c_rows_aligned, the map's own requirement); there the map must encode, and
    // elsewhere it is left zeroed and never read.
    const int out_bytes = static_cast<int>(p.out_bytes());
    const auto c_key = std::make_tuple(static_cast<const void*>(io.c), p.m, p.n, p.ldc, out_bytes);
    if (knobs.stage_c && (!maps_c_valid_ || c_key != maps_c_key_)) {
      const CUtensorMapDataType type = out_bytes == 4            ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                       : p.out_dtype() == "bf16" ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                                 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
      const bool rows_aligned =
          (p.ldc * out_bytes) % 16 == 0 && reinterpret_cast<std::uintptr_t>(io.c) % 16 == 0;
      maps_c_valid_ = false;  // stale until encoded
      if (encode_tma_map_2d(&map_c_, io.c, type, out_bytes, p.m, p.n, p.ldc, 16, 128 / out_bytes) !=
          cudaSuccess) {
        if (rows_aligned) return cudaErrorInvalidValue;
        map_c_ = CUtensorMap{};
      }
      maps_c_key_ = c_key;
      maps_c_valid_ = true;
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

}  // namespace ktune
