// The gemm family's Hopper path: when it applies, its space, its default
// configuration (the kernel is gemm_wgmma.cuh).
#include "kernels_templated/gemm/gemm_family.hpp"

namespace ktune {
namespace {

/// Accumulators one consumer thread may hold: beyond this, ptxas spills under
/// the 232-register budget that setmaxnreg gives two consumers.
constexpr int kMaxAccumulators = 128;

std::int64_t i64(int v) { return v; }

/// Whether an operand the kernel reads as stored (not transposed first, which
/// writes aligned rows anyway) has rows TMA cannot address: then REPACK=true.
bool kernel_reads_misaligned(const GemmProblem& p) {
  const bool tf32 = p.dtype == "tf32";
  return (p.misaligned(p.lda) && !(tf32 && p.a_t())) ||
         (p.misaligned(p.ldb) && !(tf32 && !p.b_t()));
}

/// K per stage: one 128-byte swizzle row of the problem's elements (gemm_wgmma.cuh).
int wgmma_block_k(const GemmProblem& p) { return wgmma_operand_traits(p.dtype).row_elems; }

}  // namespace

ktune_gemm::WgmmaTypeTraits wgmma_operand_traits(const std::string& dtype) {
  using ktune_gemm::WgmmaType;
  const WgmmaType t = dtype == "bf16"   ? WgmmaType::bf16
                      : dtype == "fp16" ? WgmmaType::fp16
                      : dtype == "tf32" ? WgmmaType::tf32
                      : dtype == "e4m3" ? WgmmaType::e4m3
                                        : WgmmaType::e5m2;
  return ktune_gemm::wgmma_traits(t);
}

std::string GemmFamily::wgmma_unavailable_reason(const GemmProblem& p, const DeviceSpec& d) {
  if (d.cc_major != 9 || d.cc_minor != 0) return "wgmma needs an sm_90 device, this is " + d.arch();
  if (p.simt()) return "fp32 runs on CUDA cores (dtype=tf32 multiplies fp32 data on tensor cores)";
  // 16-bit operands are read K-major or MN-major as they are stored; tf32 ones
  // stored M- or N-major are transposed to K-major first (geometry).
  if (p.layout != "nt" && p.fp8())
    return "wgmma reads fp8 operands K-major only (layout nt), not layout " + p.layout;
  // Leading dimensions TMA cannot address (strides not multiples of 16 bytes)
  // are served by repacking (REPACK=true in the space).
  return "";
}

bool GemmFamily::uses_wgmma(const GemmProblem& p, const DeviceSpec& d) {
  return p.path != "mma" && wgmma_unavailable_reason(p, d).empty();
}

Space GemmFamily::wgmma_space(const GemmProblem& p, const DeviceSpec& d) {
  ValueMap constants;
  constants.set("m", p.m);
  constants.set("n", p.n);
  constants.set("k", p.k);
  constants.set("smem_max", static_cast<std::int64_t>(d.smem_per_block_optin));
  Space s(constants);
  s.add(Parameter::categorical("PATH", {"wgmma"}, "wgmma", "tensor-core path: Hopper wgmma fed by TMA"));
  s.add(Parameter::list("BLOCK_M", {i64(64), i64(128), i64(256)}, i64(128), "rows of C per block"));
  std::vector<Value> widths;
  // A K-major B (stored N x K: layouts nt, tt, or a tf32 operand's K-major
  // copy) takes every width wgmma takes (steps of 8): widths like 168 fit the
  // tile count to the SMs (512 x 11008 in 128 x 168 tiles is exactly 2 waves
  // of 132, as cuBLAS's kernel there runs; in 128 x 176 tiles 1.9, in 128 x
  // 128 ones 2.6). A 16-bit N-major B (stored K x N: layouts nn, tn) lies in
  // shared memory as column blocks of 64 N-elements, the 128-byte swizzle atom
  // of an MN-major operand, and a wgmma reads whole atoms: steps of 64.
  // (BLOCK_M's values are all multiples of 64.)
  const bool b_n_major = !p.b_t() && wgmma_operand_traits(p.dtype).mn_major;
  const int width_step = b_n_major ? 64 : 8;
  for (int n = 64; n <= 256; n += width_step) widths.emplace_back(i64(n));
  s.add(Parameter::list(
      "BLOCK_N", widths, i64(128),
      b_n_major ? "columns of C per block (the wgmma N; whole 64-column swizzle atoms of B)"
                : "columns of C per block (the wgmma N)"));
  const int block_k = wgmma_block_k(p);
  s.add(Parameter::list(
      "BLOCK_K", {i64(block_k)}, i64(block_k),
      "K per stage (one 128-byte swizzled row: 64 16-bit, 32 tf32 or 128 fp8 elements)"));
  s.add(Parameter::list("WARP_M", {i64(64), i64(128)}, i64(64),
                        "rows of C per consumer warpgroup (m64 blocks)"));
  // Up to 16: small tiles want deep rings (cuBLAS's kernel for 128 x 4096 x 4096 keeps
  // 13 stages of 64 x 64); the shared-memory constraint below bounds the rest.
  s.add(Parameter::int_range("STAGES", 2, 16, 1, 4, "TMA ring stages in shared memory"));
  s.add(Parameter::list("GROUP_M", {i64(1), i64(4), i64(8), i64(16)}, i64(8),
                        "tile order: GROUP_M tile rows visited together"));
  s.add(Parameter::boolean("PERSISTENT", false, "one block per SM looping over tiles (else one block per tile)"));
  s.add(Parameter::boolean("PINGPONG", false,
                            "two consumer warpgroups on alternate whole tiles, one's epilogue overlapping the "
                            "other's main loop (persistent grid, WARP_M = BLOCK_M)"));
  s.add(Parameter::boolean("STAGE_C", false,
                            "epilogue through shared memory: C leaves as 16-byte row segments (whole sectors) "
                            "instead of pairs straight from the accumulators; costs 8 KB per consumer"));
  s.add(Parameter::list(
      "CLUSTER_M", {i64(1), i64(2)}, i64(1),
      "blocks per cluster along M; 2 multicasts each B tile to both (TMA multicast)"));
  // cuBLAS's kernels for the M = 512 shapes pair tiles along N: the search may try it too.
  s.add(Parameter::list(
      "CLUSTER_N", {i64(1), i64(2)}, i64(1),
      "blocks per cluster along N; 2 multicasts each A tile to both (TMA multicast)"));
  s.add(Parameter::list("SPLIT_K", {i64(1), i64(2), i64(4), i64(8), i64(16)}, i64(1),
                        "K splits (partials reduced by REDUCE)"));
  s.add(Parameter::categorical("REDUCE", {"workspace", "atomic"}, "workspace",
                               "split-K reduction: fp32 workspace + kernel (deterministic) or atomics"));
  // TMA strides are multiples of 16 bytes: a misaligned operand is always repacked.
  if (kernel_reads_misaligned(p)) {
    s.add(Parameter::boolean(
        "REPACK", true,
        "copy operands whose leading dimension breaks 16-byte alignment to an aligned "
        "workspace first"));
    s.require("TMA needs 16-byte aligned rows: misaligned operands are repacked (REPACK=true)",
              {"REPACK"}, [](const Assignment& a) { return a.b("REPACK"); });
  }

  s.require("one or two consumer warpgroups (BLOCK_M / WARP_M)", {"BLOCK_M", "WARP_M"}, [](const Assignment& a) {
    return a.i("BLOCK_M") % a.i("WARP_M") == 0 && a.i("BLOCK_M") / a.i("WARP_M") <= 2;
  });
  s.require("pingpong consumers own whole tiles of a persistent grid (WARP_M = BLOCK_M, PERSISTENT)",
            {"PINGPONG", "BLOCK_M", "WARP_M", "PERSISTENT"}, [](const Assignment& a) {
              return !a.b("PINGPONG") || (a.i("WARP_M") == a.i("BLOCK_M") && a.b("PERSISTENT"));
            });
  s.require("clusters of at most two blocks (CLUSTER_M x CLUSTER_N)", {"CLUSTER_M", "CLUSTER_N"},
            [](const Assignment& a) { return a.i("CLUSTER_M") * a.i("CLUSTER_N") <= 2; });
  // Each block loads and multicasts half of the shared tile; a half must start
  // on an 8-row swizzle atom (1024 bytes), so B's half-width is a multiple of 8.
  s.require("a B tile shared along M splits into 8-row halves (BLOCK_N a multiple of 16 when CLUSTER_M = 2)",
            {"CLUSTER_M", "BLOCK_N"}, [](const Assignment& a) { return a.i("BLOCK_N") % (8 * a.i("CLUSTER_M")) == 0; });
  s.require("accumulators per consumer thread (WARP_M/64 x BLOCK_N/2) at most 128", {"WARP_M", "BLOCK_N"},
            [](const Assignment& a) { return (a.i("WARP_M") / 64) * (a.i("BLOCK_N") / 2) <= kMaxAccumulators; });
  s.require("a staged epilogue writes finished C, not split-K partials (SPLIT_K = 1)", {"STAGE_C", "SPLIT_K"},
            [](const Assignment& a) { return !a.b("STAGE_C") || a.i("SPLIT_K") == 1; });
  const GemmProblem problem = p;
  s.require("stages x (A + B tiles), plus the C staging buffers, fit the opt-in shared memory",
            {"BLOCK_M", "BLOCK_N", "WARP_M", "STAGES", "PINGPONG", "STAGE_C", "smem_max"},
            [problem, block_k](const Assignment& a) {
              GemmKnobs k;
              k.wgmma = true;
              k.block_m = static_cast<int>(a.i("BLOCK_M"));
              k.block_n = static_cast<int>(a.i("BLOCK_N"));
              k.warp_m = static_cast<int>(a.i("WARP_M"));
              k.block_k = block_k;
              k.stages = static_cast<int>(a.i("STAGES"));
              k.pingpong = a.b("PINGPONG");
              k.stage_c = a.b("STAGE_C");
              return smem_bytes(problem, k) <= a.i("smem_max");
            });
  add_split_constraints(s, p);
  return s;
}

Config GemmFamily::wgmma_default_config(const GemmProblem& p) {
  // Two consumers of 64 x 128, four stages (129 KB): valid for every problem
  // the path serves, and a reasonable start at any size.
  Config c;
  c.set("PATH", std::string("wgmma"));
  c.set("BLOCK_M", i64(128));
  c.set("BLOCK_N", i64(128));
  c.set("BLOCK_K", i64(wgmma_block_k(p)));
  c.set("WARP_M", i64(64));
  c.set("STAGES", i64(4));
  c.set("GROUP_M", i64(8));
  c.set("PERSISTENT", false);
  c.set("PINGPONG", false);
  c.set("STAGE_C", false);
  c.set("CLUSTER_M", i64(1));
  c.set("CLUSTER_N", i64(1));
  c.set("SPLIT_K", i64(1));
  c.set("REDUCE", std::string("workspace"));
  if (kernel_reads_misaligned(p)) c.set("REPACK", true);
  return c;
}

}  // namespace ktune
