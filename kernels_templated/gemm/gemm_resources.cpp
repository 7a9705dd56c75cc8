// What a gemm configuration needs and does: shared memory, the register
// estimate and budget, launch geometry, and the work estimate the cost model
// prices.
#include "kernels_templated/gemm/gemm_family.hpp"

#include <algorithm>

#include "kernels_templated/gemm/gemm_family_detail.hpp"

namespace ktune {
using gemm_detail::ceil_div;
using gemm_detail::simt_thread_m;
using gemm_detail::simt_thread_n;
using gemm_detail::split_mode;

namespace {

/// register_estimate of a configuration with no thread: more than any budget.
constexpr int kNoRegisterBudget = 1 << 20;

/// Shared-memory tile elements (rows x padded stride) of the tensor-core path,
/// mirroring SmemTile in gemm_smem_layout.cuh.
long long tc_tile_elems(int rows, int cols, bool swizzle, int elem_bytes) {
  const int chunk = 16 / elem_bytes;
  return static_cast<long long>(rows) * (swizzle ? cols : cols + chunk);
}

}  // namespace

int GemmFamily::smem_bytes(const GemmProblem& p, const GemmKnobs& k) {
  if (k.wgmma) {
    // The ring, full/empty barriers, 1 KB to align the ring; STAGE_C: two 2 KB
    // staging buffers per consumer warp, 1024-byte aligned (gemm_wgmma.cuh).
    const int ring =
        k.stages * (k.block_m + k.block_n) * k.block_k * p.in_bytes() + 2 * k.stages * 8 + 1024;
    return ring + (k.stage_c ? 1024 + k.consumers() * 4 * 4096 : 0);
  }
  if (p.simt()) {
    const int pad = k.smem == "pad" ? 4 : 0;
    return 2 * k.block_k * (k.block_m + pad + k.block_n + pad) * 4;
  }
  const int e = p.in_bytes();
  const bool sw = k.smem == "xor";
  const long long a = p.a_t() ? tc_tile_elems(k.block_k, k.block_m, sw, e)
                              : tc_tile_elems(k.block_m, k.block_k, sw, e);
  const long long b = p.b_t() ? tc_tile_elems(k.block_n, k.block_k, sw, e)
                              : tc_tile_elems(k.block_k, k.block_n, sw, e);
  return static_cast<int>(k.stages * (a + b) * e);
}

int GemmFamily::register_estimate(const GemmProblem& p, const GemmKnobs& k) {
  // wgmma consumers: the accumulators plus addressing and the epilogue.
  if (k.wgmma) return (k.warp_m / 64) * (k.block_n / 2) + 40;
  const int threads = k.threads();
  // A warp tile larger than the block tile leaves no thread: the constraint
  // "warp tile divides the block tile" rejects it, but constraints run in any
  // order (a --require one first), so this one must not divide by zero.
  if (threads <= 0) return kNoRegisterBudget;
  if (p.simt()) {
    const int tm = simt_thread_m(k.warp_m, k.warp_n), tn = simt_thread_n(k.warp_m, k.warp_n);
    // Prefetched values, plus an address and a predicate per vector load:
    // ptxas keeps them all live across the products (VEC=1 with 48 loads per
    // thread spilled on the H200).
    const int staged = static_cast<int>(
        ceil_div(static_cast<long long>(k.block_m + k.block_n) * k.block_k, threads));
    // Scalar loads (VEC=1) cost more: ptxas kept ~5 registers per element live
    // (in the compile test, 40 scalar loads per thread reached 255 and spilled).
    const int per_vector = k.vec == 1 ? 4 : 2;
    return tm * tn + tm + tn + staged + per_vector * static_cast<int>(ceil_div(staged, k.vec)) + 32;
  }
  const int tiles_m = k.warp_m / 16, tiles_n = k.warp_n / 8;
  // Operand fragments of one k-step, double-buffered (gemm_tc.cuh loads the
  // next k-step's while the current one's mma run). Counted one and a half
  // times: a fragment dies after its last mma, so both buffers are never
  // whole at once (ptxas: 128x128x32 with 64x64 warp tiles, 255 registers
  // and no spill; estimate 240, with two whole buffers 256).
  const int one_step = tiles_m * 4 + tiles_n * 2;
  const int fragments = one_step + one_step / 2;
  // ptxas hoists the per-copy address arithmetic out of the K loop: about
  // three registers per copy of a stage (64-bit address, predicate/size),
  // plus the value for register-staged 2-byte copies. Without this term,
  // configs with many small copies spilled hundreds of bytes (on the H200,
  // 64x128x64 VEC=4 with 128 threads spilled 1156 bytes).
  const long long copies =
      ceil_div(static_cast<long long>(k.block_m + k.block_n) * k.block_k / k.vec, threads);
  // Copies under 16 bytes are many and ptxas keeps about one more register
  // per copy live (in the compile test, with double-buffered fragments: 4-
  // and 8-byte copies, 20-24 per thread, 254-255 registers and a few bytes
  // spilled against estimates of 198-200).
  const int staged = static_cast<int>(copies * (k.vec * p.in_bytes() < 16 ? 4 : 3));
  return tiles_m * tiles_n * 4 + fragments + staged + 40;
}

int GemmFamily::register_cap(int threads, const DeviceSpec& d) {
  // ptxas, with __launch_bounds__(threads), leaves each thread regs_per_sm/threads
  // registers rounded down to the allocation granule of 8, at most the ISA's limit.
  const int per_thread = (d.regs_per_sm / std::max(threads, 1)) / 8 * 8;
  return std::min(per_thread, d.max_regs_per_thread);
}

bool GemmFamily::deterministic(const Config& c) {
  return c.integer_or("SPLIT_K", 1) <= 1 || c.text_or("REDUCE", "workspace") != "atomic";
}

bool GemmFamily::predicted_spill_free(const Problem& raw, const Config& c, const DeviceSpec& d) {
  const GemmProblem p = GemmProblem::from(raw);
  const GemmKnobs k = GemmKnobs::from(c);
  // Element-wise copies (SIMT VEC=1, 2-byte tensor-core copies) are where
  // ptxas' choices stray from the estimate (small spills seen at 128
  // registers), so no claim is made for them.
  if (k.vec == 1 && (p.simt() || p.in_bytes() == 2)) return false;
  // SIMT blocks of one or two warps whose threads each prefetch more than 8
  // vectors per stage: ptxas spilled a few bytes there well under the cap (in
  // the compile test, 64x32x16 with one warp, 12 vectors: 168 registers and
  // 12 bytes spilled).
  if (p.simt() && k.threads() < 128 &&
      ceil_div(static_cast<long long>(k.block_m + k.block_n) * k.block_k / k.vec, k.threads()) > 8)
    return false;
  // Tensor-core threads issuing more than 16 copies per stage: with the
  // fragment double buffer ptxas spilled a few bytes under the margin (in the
  // compile test, 64x32x32 with two warps, 24 four-byte copies: 254 registers
  // and 8 bytes spilled at an estimate of 198).
  if (!p.simt() && !k.wgmma &&
      ceil_div(static_cast<long long>(k.block_m + k.block_n) * k.block_k / k.vec, k.threads()) > 16)
    return false;
  // wgmma consumers raise their budget with setmaxnreg (232 with two consumers, 240 with one).
  if (k.wgmma) return register_estimate(p, k) * 5 / 4 <= (k.consumers() == 1 ? 240 : 232);
  // A 25% margin: the estimate counts the live values, ptxas needs room to schedule.
  return register_estimate(p, k) * 5 / 4 <= register_cap(k.threads() * k.min_blocks, d);
}

void GemmFamily::describe_main_loop(WorkEstimate& w, const GemmProblem& p, const GemmKnobs& k,
                                    const GemmGeometry& g) {
  const long long iterations = ceil_div(ceil_div(p.k, k.block_k), g.split_k);
  w.loop_blocks = g.tiles_m * g.tiles_n * g.split_k;
  w.loop_iterations = static_cast<int>(iterations);
  // The tensor-core path keeps STAGES tiles in flight (cp.async); SIMT double-buffers.
  w.pipeline_stages = p.simt() ? 2 : k.stages;
  // Each thread copies ceil(tile elements / VEC / threads) vectors per stage;
  // one warp-level copy instruction serves 32 of them.
  const long long tile_vectors =
      static_cast<long long>(k.block_m + k.block_n) * k.block_k / std::max(1, k.vec);
  w.loads_per_iteration = static_cast<double>(ceil_div(tile_vectors, g.threads) * (g.threads / 32));
  w.predicated_loads = k.predicated;
  // Shared-memory traffic per executed FLOP: the block's A and B tiles are
  // stored once per K element ((BM + BN) elements for 2 BM BN FLOPs); each
  // warp reads its operands once per K element ((WM + WN) elements for
  // 2 WM WN FLOPs through ldmatrix), each SIMT lane its own tm + tn values.
  const double e = p.in_bytes();
  const double executed = 2.0 * static_cast<double>(g.tiles_m * k.block_m) *
                          static_cast<double>(g.tiles_n * k.block_n) *
                          static_cast<double>(iterations * k.block_k * g.split_k);
  double read_per_flop;
  if (p.simt()) {
    const double tm = simt_thread_m(k.warp_m, k.warp_n), tn = simt_thread_n(k.warp_m, k.warp_n);
    read_per_flop = e * (tm + tn) / (2 * tm * tn);
  } else {
    read_per_flop = e * (k.warp_m + k.warp_n) / (2.0 * k.warp_m * k.warp_n);
  }
  const double store_per_flop = e * (k.block_m + k.block_n) / (2.0 * k.block_m * k.block_n);
  w.shared_bytes = executed * (read_per_flop + store_per_flop);
}

GemmGeometry GemmFamily::geometry(const GemmProblem& p, const GemmKnobs& k, int sm_count) {
  GemmGeometry g;
  g.tiles_m = ceil_div(p.m, k.block_m);
  g.tiles_n = ceil_div(p.n, k.block_n);
  g.grid_x = g.tiles_m * g.tiles_n;
  if (k.wgmma) {
    // Clusters cover CLUSTER_M x CLUSTER_N tiles (the last ones may hang past M or N).
    const int cluster = k.cluster();
    g.grid_x = ceil_div(g.tiles_m, k.cluster_m) * ceil_div(g.tiles_n, k.cluster_n) * cluster;
    // Persistent: one block per SM (the ring takes most of its shared memory),
    // whole clusters only.
    if (k.persistent && sm_count >= cluster)
      g.grid_x = std::min<long long>(g.grid_x, sm_count / cluster * cluster);
  }
  g.split_k = std::max(1, k.split_k);
  const long long k_tiles = ceil_div(p.k, k.block_k);
  g.k_per_split = static_cast<int>(ceil_div(k_tiles, g.split_k) * k.block_k);
  g.threads = k.threads();
  g.smem_bytes = smem_bytes(p, k);
  const int mode = split_mode(k);
  g.has_reduce = mode == 1;
  g.has_prescale = mode == 2;
  if (mode != 0) g.aux_blocks = std::min<long long>(ceil_div(p.m * p.n, 256), 132LL * 16);
  if (mode == 1) g.workspace_floats = static_cast<long long>(g.split_k) * p.m * p.n;
  const GemmOperand a = p.a_stored(), b = p.b_stored();
  // wgmma tf32 reads K-major only: an M-major A or N-major B is transposed first.
  const bool tf32_wgmma = k.wgmma && p.dtype == "tf32";
  g.transpose_a = tf32_wgmma && p.a_t();
  g.transpose_b = tf32_wgmma && !p.b_t();
  // A transposed operand is written K-major (rows of K, 16-byte aligned).
  const GemmOperand a_packed = g.transpose_a ? GemmOperand{a.cols, a.rows, -1} : a;
  const GemmOperand b_packed = g.transpose_b ? GemmOperand{b.cols, b.rows, -1} : b;
  g.kernel_lda = kernel_ld(p, a_packed, k.repack || g.transpose_a);
  g.kernel_ldb = kernel_ld(p, b_packed, k.repack || g.transpose_b);
  g.repack_a = !g.transpose_a && g.kernel_lda != p.lda;
  g.repack_b = !g.transpose_b && g.kernel_ldb != p.ldb;
  if (g.repack_a || g.transpose_a) g.packed_a_elems = a_packed.rows * g.kernel_lda;
  if (g.repack_b || g.transpose_b) g.packed_b_elems = b_packed.rows * g.kernel_ldb;
  const bool copy_a = g.repack_a || g.transpose_a, copy_b = g.repack_b || g.transpose_b;
  g.repack_bytes =
      2 * p.in_bytes() * ((copy_a ? a.rows * a.cols : 0) + (copy_b ? b.rows * b.cols : 0));
  return g;
}

WorkEstimate GemmFamily::estimate(const Problem& raw, const Config& c, const DeviceSpec& d) const {
  const GemmProblem p = GemmProblem::from(raw);
  const GemmKnobs k = GemmKnobs::from(c);
  const GemmGeometry g = geometry(p, k, d.sm_count);
  WorkEstimate w;
  w.flops = flops(raw);
  w.min_bytes = min_bytes(raw);
  const double padded_k = static_cast<double>(ceil_div(p.k, k.block_k)) * k.block_k;
  w.executed_flops = 2.0 * static_cast<double>(g.tiles_m * k.block_m) *
                     static_cast<double>(g.tiles_n * k.block_n) * padded_k;
  // fp8 has no compute unit of its own in DeviceSpec yet: priced at the bf16
  // peak (half its real one), so the estimate ranks fp8 configurations but
  // understates their ceiling.
  w.unit = p.dtype == "fp32"   ? ComputeUnit::simt_fp32
           : p.dtype == "tf32" ? ComputeUnit::tensor_tf32
           : p.dtype == "fp16" ? ComputeUnit::tensor_fp16
                               : ComputeUnit::tensor_bf16;
  w.threads_per_block = g.threads;
  w.smem_per_block = g.smem_bytes;
  // ptxas keeps to the launch bounds' budget (MIN_BLOCKS blocks per SM).
  w.regs_per_thread =
      k.wgmma ? register_estimate(p, k)
              : std::min(register_estimate(p, k), register_cap(g.threads * k.min_blocks, d));
  w.kernels = 1 + (g.has_reduce || g.has_prescale ? 1 : 0) + (g.repack_a || g.transpose_a ? 1 : 0) +
              (g.repack_b || g.transpose_b ? 1 : 0);
  const long long tiles = g.tiles_m * g.tiles_n;
  w.blocks = g.grid_x * g.split_k + g.aux_blocks;

  // DRAM traffic with tile reuse: blocks of one wave share A rows and B columns
  // through L2; each wave fetches its distinct A and B panels once.
  int per_sm = std::max(
      1,
      std::min({d.max_threads_per_sm / std::max(g.threads, 1),
                g.smem_bytes > 0 ? d.smem_per_sm / std::max(g.smem_bytes, 1) : 32,
                d.regs_per_sm / std::max(1, w.regs_per_thread * g.threads), d.max_blocks_per_sm}));
  const long long wave =
      std::max<long long>(1, static_cast<long long>(std::max(d.sm_count, 1)) * per_sm);
  const double a_bytes = static_cast<double>(p.m) * p.k * p.in_bytes();
  const double b_bytes = static_cast<double>(p.k) * p.n * p.in_bytes();
  const double c_bytes = static_cast<double>(p.m) * p.n * p.out_bytes() * (p.beta != 0 ? 2 : 1);
  double ab;
  if (d.l2_bytes > 0 && a_bytes + b_bytes < 0.5 * static_cast<double>(d.l2_bytes)) {
    ab = a_bytes + b_bytes;  // both operands stay in L2
  } else {
    const long long blocks_per_split = tiles;
    const long long waves = ceil_div(blocks_per_split * g.split_k, wave);
    const long long rows = k.group_m > 1
                               ? std::min<long long>(k.group_m, g.tiles_m)
                               : std::min<long long>(g.tiles_m, ceil_div(wave, g.tiles_n) + 1);
    const long long cols = std::min<long long>(g.tiles_n, ceil_div(wave, rows));
    const double k_span = static_cast<double>(std::min<long long>(p.k, g.k_per_split));
    ab = static_cast<double>(waves) * (rows * k.block_m + cols * k.block_n) * k_span * p.in_bytes();
    ab = std::clamp(ab, a_bytes + b_bytes, a_bytes * g.tiles_n + b_bytes * g.tiles_m);
  }
  w.dram_bytes =
      ab + c_bytes + (p.epilogue != "none" ? static_cast<double>(p.n) * p.out_bytes() : 0.0);
  if (g.has_reduce) w.extra_bytes = 2.0 * static_cast<double>(g.workspace_floats) * 4;
  if (g.has_prescale)
    w.extra_bytes =
        static_cast<double>(p.m) * p.n * 4 * (2.0 + g.split_k);  // prescale + atomic adds in L2
  w.extra_bytes += static_cast<double>(g.repack_bytes);
  if (!k.wgmma) describe_main_loop(w, p, k, g);
  return w;
}

}  // namespace ktune
