// GemmFamily implementation: problem normalization, the two paths' spaces and
// constraints, the work estimate and the NVRTC source of a configuration.
#include "kernels_templated/gemm/gemm_family.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ktune {
namespace {

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

/// register_estimate of a configuration with no thread: more than any budget.
constexpr int kNoRegisterBudget = 1 << 20;

int in_bytes_of(const std::string& dtype) {
  if (dtype == "e4m3" || dtype == "e5m2") return 1;
  return dtype == "bf16" || dtype == "fp16" ? 2 : 4;
}

/// Largest power of two (<= cap) dividing v.
long long pow2_divisor(long long v, long long cap) {
  long long d = 1;
  while (d < cap && v % (2 * d) == 0) d *= 2;
  return d;
}

/// The shape class's alignment: the widest access (bytes, <= 16) every
/// leading dimension allows.
long long class_alignment(const GemmProblem& p) {
  return std::min({pow2_divisor(p.lda * p.in_bytes(), 16), pow2_divisor(p.ldb * p.in_bytes(), 16),
                   pow2_divisor(p.ldc * p.out_bytes(), 16)});
}

const char* cuda_type(const std::string& dtype) {
  if (dtype == "bf16") return "__nv_bfloat16";
  if (dtype == "fp16") return "__half";
  if (dtype == "e4m3") return "__nv_fp8_e4m3";
  if (dtype == "e5m2") return "__nv_fp8_e5m2";
  return "float";
}

int epilogue_code(const std::string& e) {
  if (e == "bias") return 1;
  if (e == "bias_relu") return 2;
  if (e == "bias_gelu") return 3;
  return 0;
}

int split_mode(const GemmKnobs& k) {
  if (k.split_k <= 1) return 0;
  return k.reduce == "atomic" ? 2 : 1;
}

/// Shared-memory tile elements (rows x padded stride) of the tensor-core path,
/// mirroring SmemTile in gemm_smem_layout.cuh.
long long tc_tile_elems(int rows, int cols, bool swizzle, int elem_bytes) {
  const int chunk = 16 / elem_bytes;
  return static_cast<long long>(rows) * (swizzle ? cols : cols + chunk);
}

// SIMT lane grid: 4 x 8 lanes, or 8 x 4 when the warp tile is taller than wide
// (mirrors gemm_simt.cuh).
int simt_thread_m(int wm, int wn) { return wm / (wm > wn ? 8 : 4); }
int simt_thread_n(int wm, int wn) { return wn / (wm > wn ? 4 : 8); }

constexpr const char* kHelp =
    "m,n,k>=1; dtype=fp32|tf32|bf16|fp16|e4m3|e5m2 (default bf16; e4m3/e5m2 are fp8: sm_90 "
    "wgmma path, layout nt); layout=nn|nt|tn|tt (default nn: first letter A, second B; 'n' = A "
    "stored MxK / B stored KxN, 't' = A stored KxM / B stored NxK, all row-major; C is MxN "
    "row-major); lda,ldb,ldc>= the tight value (default tight); out=same|fp32 (default same; fp8: "
    "out=bf16|fp16, default bf16); epilogue=none|bias|bias_relu|bias_gelu (default none); alpha "
    "(default 1), beta (default 0); fp8 only: scale_a, scale_b, scale_d (finite, non-zero, default "
    "1: C = scale_d*(alpha*scale_a*scale_b*A*B + beta*C), scale_d = 1 with a bias epilogue); "
    "path=auto|mma|wgmma (default auto: the Hopper wgmma path where the device and the problem "
    "allow it, else mma.sync)";

}  // namespace

GemmProblem GemmProblem::from(const Problem& p) {
  GemmProblem g;
  try {
    g.m = p.integer("m");
    g.n = p.integer("n");
    g.k = p.integer("k");
    g.lda = p.integer("lda");
    g.ldb = p.integer("ldb");
    g.ldc = p.integer("ldc");
    g.dtype = p.text("dtype");
    g.layout = p.text("layout");
    g.out = p.text("out");
    g.epilogue = p.text("epilogue");
    g.alpha = p.real("alpha");
    g.beta = p.real("beta");
    g.path = p.text_or("path", "auto");
    if (g.fp8()) {
      g.scale_a = p.real("scale_a");
      g.scale_b = p.real("scale_b");
      g.scale_d = p.real("scale_d");
    }
  } catch (const std::exception& e) {
    throw ProblemError(std::string("gemm problem is not normalized: ") + e.what());
  }
  return g;
}

GemmKnobs GemmKnobs::from(const Config& c) {
  GemmKnobs k;
  // Knobs every path names.
  k.block_m = static_cast<int>(c.integer("BLOCK_M"));
  k.block_n = static_cast<int>(c.integer("BLOCK_N"));
  k.warp_m = static_cast<int>(c.integer("WARP_M"));
  k.group_m = static_cast<int>(c.integer("GROUP_M"));
  k.split_k = static_cast<int>(c.integer("SPLIT_K"));
  k.reduce = c.text("REDUCE");
  k.repack = c.contains("REPACK") && c.boolean("REPACK");
  if (c.text_or("PATH", "mma") == "wgmma") {
    // The rest is implied by the kernel (see the struct's comment).
    k.wgmma = true;
    k.block_k = static_cast<int>(c.integer_or("BLOCK_K", 64));
    k.warp_n = k.block_n;
    k.stages = static_cast<int>(c.integer("STAGES"));
    k.vec = 8;
    k.smem = "xor";
    k.predicated = true;
    k.persistent = c.contains("PERSISTENT") && c.boolean("PERSISTENT");
    k.pingpong = c.contains("PINGPONG") && c.boolean("PINGPONG");  // absent in results stored before the knob
    k.cluster_m = static_cast<int>(c.integer_or("CLUSTER_M", 1));
    k.cluster_n = static_cast<int>(c.integer_or("CLUSTER_N", 1));  // absent before the knob
    k.stage_c = c.contains("STAGE_C") && c.boolean("STAGE_C");  // absent before the knob
    return k;
  }
  k.block_k = static_cast<int>(c.integer("BLOCK_K"));
  k.warp_n = static_cast<int>(c.integer("WARP_N"));
  k.stages = static_cast<int>(c.integer_or("STAGES", 2));
  k.vec = static_cast<int>(c.integer("VEC"));
  k.smem = c.text("SMEM");
  k.predicated = c.boolean("PREDICATED");
  k.min_blocks = static_cast<int>(c.integer_or("MIN_BLOCKS", 1));  // absent in results stored before the knob
  k.stage_c = c.contains("STAGE_C") && c.boolean("STAGE_C");  // mma.sync; absent before the knob
  return k;
}

std::string_view GemmFamily::description() const {
  return "C = alpha*op(A)*op(B) + beta*C (+bias, ReLU/GELU): fp32 on CUDA cores (register tiling, "
         "double-buffered shared memory), tf32/bf16/fp16 on tensor cores (mma.sync, ldmatrix, cp.async "
         "multistage) and, on sm_90, wgmma fed by TMA (warp-specialized, optionally persistent), split-K";
}

std::vector<std::string> GemmFamily::template_files() const {
  return {"gemm/gemm_common.cuh",      "gemm/gemm_block_work.cuh", "gemm/gemm_smem_layout.cuh",
          "gemm/gemm_tile.cuh",        "gemm/gemm_tc.cuh",         "gemm/gemm_simt.cuh",
          "gemm/gemm_splitk.cuh",      "gemm/gemm_wgmma.cuh",      "gemm/gemm_wgmma_ops.cuh",
          "gemm/gemm_wgmma_types.hpp", "gemm/gemm_repack.cuh"};
}

std::vector<std::string> GemmFamily::template_files_for(const Problem& normalized, const DeviceSpec& d) const {
  // The files the path's source() text includes, directly or through its
  // headers; split-K and repack kernels can be launched by every path.
  const GemmProblem p = GemmProblem::from(normalized);
  if (uses_wgmma(p, d))
    return {"gemm/gemm_common.cuh",    "gemm/gemm_splitk.cuh",      "gemm/gemm_wgmma.cuh",
            "gemm/gemm_wgmma_ops.cuh", "gemm/gemm_wgmma_types.hpp", "gemm/gemm_repack.cuh"};
  if (p.simt())
    return {"gemm/gemm_common.cuh", "gemm/gemm_block_work.cuh", "gemm/gemm_simt.cuh", "gemm/gemm_splitk.cuh",
            "gemm/gemm_repack.cuh"};
  return {"gemm/gemm_common.cuh", "gemm/gemm_block_work.cuh", "gemm/gemm_smem_layout.cuh", "gemm/gemm_tile.cuh",
          "gemm/gemm_tc.cuh",     "gemm/gemm_splitk.cuh",       "gemm/gemm_repack.cuh"};
}

std::string_view GemmFamily::problem_help() const { return kHelp; }

Problem GemmFamily::normalize(const Problem& raw) const {
  static const std::vector<std::string> known = {
      "m",   "n",        "k",     "dtype", "layout", "lda",     "ldb",     "ldc",
      "out", "epilogue", "alpha", "beta",  "path",   "scale_a", "scale_b", "scale_d"};
  for (const auto& [key, value] : raw)
    if (std::find(known.begin(), known.end(), key) == known.end())
      throw ProblemError("gemm: unknown problem key '" + key + "' (" + kHelp + ")");
  auto positive = [&](const char* key) {
    if (!raw.contains(key)) throw ProblemError(std::string("gemm: missing problem key '") + key + "' (" + kHelp + ")");
    std::int64_t v;
    try {
      v = raw.integer(key);
    } catch (const std::exception&) {
      throw ProblemError(std::string("gemm: '") + key + "' must be an integer");
    }
    if (v < 1) throw ProblemError(std::string("gemm: '") + key + "' must be >= 1, got " + std::to_string(v));
    if (v > (1LL << 31) - 1) throw ProblemError(std::string("gemm: '") + key + "' must fit in 31 bits");
    return v;
  };
  auto choice = [&](const char* key, std::vector<std::string> allowed, std::string fallback) {
    const std::string v = raw.contains(key) ? to_text(raw.at(key)) : fallback;
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
      throw ProblemError(std::string("gemm: '") + key + "=" + v + "' is not accepted (" + kHelp + ")");
    return v;
  };
  auto real = [&](const char* key, double fallback) {
    if (!raw.contains(key)) return fallback;
    try {
      return raw.real(key);
    } catch (const std::exception&) {
      throw ProblemError(std::string("gemm: '") + key + "' must be a number");
    }
  };

  Problem p;
  const std::int64_t m = positive("m"), n = positive("n"), k = positive("k");
  const std::string dtype =
      choice("dtype", {"fp32", "tf32", "bf16", "fp16", "e4m3", "e5m2"}, "bf16");
  const std::string layout = choice("layout", {"nn", "nt", "tn", "tt"}, "nn");
  const bool fp8 = in_bytes_of(dtype) == 1;
  // fp8 inputs have no fp8 output here: C is bf16 or fp16, named explicitly.
  std::string out =
      fp8 ? choice("out", {"bf16", "fp16"}, "bf16") : choice("out", {"same", "fp32"}, "same");
  if (in_bytes_of(dtype) == 4) out = "same";  // fp32 in, fp32 out: one canonical spelling
  const std::string epilogue =
      choice("epilogue", {"none", "bias", "bias_relu", "bias_gelu"}, "none");
  // cuBLASLt's per-tensor scales of fp8 operands (A, B) and of the result (D).
  auto scale = [&](const char* key) {
    if (!fp8) {
      if (raw.contains(key))
        throw ProblemError(std::string("gemm: '") + key +
                           "' applies to fp8 inputs (dtype=e4m3|e5m2), not dtype=" + dtype);
      return 1.0;
    }
    const double v = real(key, 1.0);
    if (!std::isfinite(v) || v == 0)
      throw ProblemError(std::string("gemm: '") + key + "' must be a finite, non-zero number");
    return v;
  };
  const double scale_a = scale("scale_a"), scale_b = scale("scale_b"), scale_d = scale("scale_d");
  // scale_d multiplies the finished value; with a bias or an activation it no
  // longer folds into alpha and beta, which is all the kernels apply.
  if (scale_d != 1.0 && epilogue != "none")
    throw ProblemError("gemm: scale_d other than 1 needs epilogue=none (got epilogue=" + epilogue +
                       ")");
  const std::int64_t tight_a = layout[0] == 't' ? m : k;
  const std::int64_t tight_b = layout[1] == 't' ? k : n;
  auto leading = [&](const char* key, std::int64_t tight) {
    if (!raw.contains(key)) return tight;
    const std::int64_t v = positive(key);
    if (v < tight)
      throw ProblemError(std::string("gemm: '") + key + "=" + std::to_string(v) + "' is below the tight value " +
                         std::to_string(tight) + " for layout " + layout);
    return v;
  };
  p.set("m", m);
  p.set("n", n);
  p.set("k", k);
  p.set("dtype", dtype);
  p.set("layout", layout);
  p.set("out", out);
  p.set("epilogue", epilogue);
  p.set("lda", leading("lda", tight_a));
  p.set("ldb", leading("ldb", tight_b));
  p.set("ldc", leading("ldc", n));
  p.set("alpha", real("alpha", 1.0));
  p.set("beta", real("beta", 0.0));
  // Absent means auto, so problems written before the key existed keep their key.
  const std::string path = choice("path", {"auto", "mma", "wgmma"}, "auto");
  if (path != "auto") p.set("path", path);
  if (fp8) {
    p.set("scale_a", scale_a);
    p.set("scale_b", scale_b);
    p.set("scale_d", scale_d);
  }
  return p;
}

int GemmFamily::max_vector(const GemmProblem& p) {
  const int e = p.in_bytes();
  const long long bytes = std::min(pow2_divisor(p.lda * e, 16), pow2_divisor(p.ldb * e, 16));
  return static_cast<int>(std::max<long long>(1, bytes / e));
}

long long GemmFamily::kernel_ld(const GemmProblem& p, const GemmOperand& o, bool repack) {
  // ld < 0: a copy with no leading dimension of its own yet (a transposed operand) gets aligned
  // rows.
  if (!repack || (o.ld >= 0 && !p.misaligned(o.ld))) return o.ld;
  const long long chunk = 16 / p.in_bytes();
  return ceil_div(o.cols, chunk) * chunk;
}

std::string GemmFamily::shape_class(const Problem& raw) const {
  const GemmProblem p = GemmProblem::from(normalize(raw));
  const long long align = class_alignment(p);
  // A problem that names its path (mma, wgmma) has another space than one
  // that leaves it to the device: its configurations must not answer the other.
  const std::string path = p.path == "auto" ? "" : ",path=" + p.path;
  return "dtype=" + p.dtype + ",layout=" + p.layout + ",out=" + p.out + ",epilogue=" + p.epilogue +
         ",align=" + std::to_string(align) + path;
}

int GemmFamily::smem_bytes(const GemmProblem& p, const GemmKnobs& k) {
  if (k.wgmma) {
    // The ring, full/empty barriers, 1 KB to align the ring; STAGE_C: two 2 KB
    // staging buffers per consumer warp, 1024-byte aligned (gemm_wgmma.cuh).
    const int ring = k.stages * (k.block_m + k.block_n) * k.block_k * p.in_bytes() + 2 * k.stages * 8 + 1024;
    return ring + (k.stage_c ? 1024 + k.consumers() * 4 * 4096 : 0);
  }
  if (p.simt()) {
    const int pad = k.smem == "pad" ? 4 : 0;
    return 2 * k.block_k * (k.block_m + pad + k.block_n + pad) * 4;
  }
  const int e = p.in_bytes();
  const bool sw = k.smem == "xor";
  const long long a = p.a_t() ? tc_tile_elems(k.block_k, k.block_m, sw, e) : tc_tile_elems(k.block_m, k.block_k, sw, e);
  const long long b = p.b_t() ? tc_tile_elems(k.block_n, k.block_k, sw, e) : tc_tile_elems(k.block_k, k.block_n, sw, e);
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
    const int staged = static_cast<int>(ceil_div(static_cast<long long>(k.block_m + k.block_n) * k.block_k, threads));
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
  const long long copies = ceil_div(static_cast<long long>(k.block_m + k.block_n) * k.block_k / k.vec, threads);
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

void GemmFamily::describe_main_loop(WorkEstimate& w, const GemmProblem& p, const GemmKnobs& k, const GemmGeometry& g) {
  const long long iterations = ceil_div(ceil_div(p.k, k.block_k), g.split_k);
  w.loop_blocks = g.tiles_m * g.tiles_n * g.split_k;
  w.loop_iterations = static_cast<int>(iterations);
  // The tensor-core path keeps STAGES tiles in flight (cp.async); SIMT double-buffers.
  w.pipeline_stages = p.simt() ? 2 : k.stages;
  // Each thread copies ceil(tile elements / VEC / threads) vectors per stage;
  // one warp-level copy instruction serves 32 of them.
  const long long tile_vectors = static_cast<long long>(k.block_m + k.block_n) * k.block_k / std::max(1, k.vec);
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

void GemmFamily::add_split_constraints(Space& s, const GemmProblem& p) {
  s.require("every K split gets at least one K tile", {"SPLIT_K", "BLOCK_K", "k"}, [](const Assignment& a) {
    const long long k_tiles = ceil_div(a.i("k"), a.i("BLOCK_K"));
    const long long per_split = ceil_div(k_tiles, a.i("SPLIT_K"));
    return (a.i("SPLIT_K") - 1) * per_split < k_tiles;
  });
  const bool atomic_ok = p.out_fp32() && (p.epilogue == "none" || p.epilogue == "bias");
  s.require(atomic_ok ? "one split needs no reduction (REDUCE=workspace)"
                      : "atomic split-K needs fp32 output and no activation; one split needs no reduction",
            {"SPLIT_K", "REDUCE"}, [atomic_ok](const Assignment& a) {
              if (a.s("REDUCE") != "atomic") return true;
              return atomic_ok && a.i("SPLIT_K") > 1;
            });
}

Space GemmFamily::space(const Problem& raw, const DeviceSpec& d) const {
  const GemmProblem p = GemmProblem::from(normalize(raw));
  if (p.path == "wgmma" && !uses_wgmma(p, d))
    throw ProblemError("gemm: path=wgmma is not possible here: " + wgmma_unavailable_reason(p, d));
  if (uses_wgmma(p, d)) return wgmma_space(p, d);
  // fp8 has no mma.sync or SIMT kernel: the wgmma path or nothing.
  if (p.fp8())
    throw ProblemError(
        "gemm: dtype=" + p.dtype + " runs only on the wgmma path, not possible here: " +
        (p.path == "mma" ? std::string("path=mma was asked for") : wgmma_unavailable_reason(p, d)));
  ValueMap constants;
  constants.set("m", p.m);
  constants.set("n", p.n);
  constants.set("k", p.k);
  constants.set("lda", p.lda);
  constants.set("ldb", p.ldb);
  constants.set("smem_max", static_cast<std::int64_t>(d.smem_per_block_optin));
  constants.set("max_threads", static_cast<std::int64_t>(d.max_threads_per_block));
  Space s(constants);
  const bool simt = p.simt();
  const int e = p.in_bytes();

  s.add(Parameter::pow2_range("BLOCK_M", 32, 256, simt ? 128 : 128, "rows of C per block"));
  s.add(Parameter::pow2_range("BLOCK_N", 32, 256, 128, "columns of C per block"));
  if (simt)
    s.add(Parameter::list("BLOCK_K", {std::int64_t{8}, std::int64_t{16}, std::int64_t{32}}, std::int64_t{8},
                          "K per shared-memory tile"));
  else
    s.add(Parameter::list("BLOCK_K", {std::int64_t{16}, std::int64_t{32}, std::int64_t{64}}, std::int64_t{32},
                          "K per shared-memory stage"));
  if (simt) {
    s.add(Parameter::list("WARP_M", {std::int64_t{16}, std::int64_t{32}, std::int64_t{64}}, std::int64_t{32},
                          "rows of C per warp"));
    s.add(Parameter::list("WARP_N", {std::int64_t{16}, std::int64_t{32}, std::int64_t{64}}, std::int64_t{64},
                          "columns of C per warp"));
  } else {
    s.add(Parameter::list("WARP_M", {std::int64_t{16}, std::int64_t{32}, std::int64_t{64}, std::int64_t{128}},
                          std::int64_t{64}, "rows of C per warp (m16 mma tiles)"));
    s.add(Parameter::list("WARP_N", {std::int64_t{16}, std::int64_t{32}, std::int64_t{64}, std::int64_t{128}},
                          std::int64_t{64}, "columns of C per warp (pairs of n8 mma tiles)"));
    s.add(Parameter::int_range("STAGES", 1, 6, 1, 3, "cp.async pipeline stages in shared memory"));
  }
  std::vector<Value> vecs;
  for (int v = 1; v * e <= 16; v *= 2) vecs.emplace_back(std::int64_t{v});
  s.add(Parameter::list("VEC", vecs, vecs.back(), "elements per global load (16 bytes at most)"));
  if (simt)
    s.add(Parameter::categorical("SMEM", {"none", "pad"}, "pad", "shared rows padded by 16 bytes or not"));
  else
    s.add(Parameter::categorical("SMEM", {"pad", "xor"}, "xor", "shared tile layout: padded rows or XOR swizzle"));
  s.add(Parameter::list("GROUP_M", {std::int64_t{1}, std::int64_t{4}, std::int64_t{8}, std::int64_t{16}},
                        std::int64_t{8}, "block rasterization: tile rows visited together"));
  s.add(Parameter::list("SPLIT_K", {std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{8}, std::int64_t{16}},
                        std::int64_t{1}, "K splits (partials reduced by REDUCE)"));
  s.add(Parameter::categorical("REDUCE", {"workspace", "atomic"}, "workspace",
                               "split-K reduction: fp32 workspace + kernel (deterministic) or atomics"));
  s.add(Parameter::boolean("PREDICATED", true, "bounds-checked path (else the aligned fast path)"));
  s.add(Parameter::list("MIN_BLOCKS", {std::int64_t{1}, std::int64_t{2}}, std::int64_t{1},
                        "blocks per SM the compiler must leave registers for (__launch_bounds__): 2 caps "
                        "registers at half the per-block budget for twice the resident warps"));
  if (!simt)
    s.add(Parameter::boolean("STAGE_C", false,
                             "C leaves through shared memory in whole rows (16-byte segments where its rows are "
                             "aligned; beta = 0 only) instead of straight from the mma fragments"));
  const bool misaligned = p.operands_misaligned();
  if (misaligned)
    s.add(Parameter::boolean("REPACK", false,
                             "copy operands whose leading dimension breaks 16-byte alignment to an aligned "
                             "workspace first (one extra read and write; then 16-byte loads)"));

  s.require("warp tile divides the block tile", {"BLOCK_M", "BLOCK_N", "WARP_M", "WARP_N"},
            [](const Assignment& a) {
              return a.i("BLOCK_M") % a.i("WARP_M") == 0 && a.i("BLOCK_N") % a.i("WARP_N") == 0;
            });
  s.require("threads per block (32 x warps) within the device limit",
            {"BLOCK_M", "BLOCK_N", "WARP_M", "WARP_N", "max_threads"}, [](const Assignment& a) {
              const long long threads = (a.i("BLOCK_M") / a.i("WARP_M")) * (a.i("BLOCK_N") / a.i("WARP_N")) * 32;
              return threads <= a.i("max_threads") && threads <= 1024;
            });
  if (simt)
    s.require("SIMT lane tile is 4 or 8 on each side (4x8 lane grid, 8x4 when WARP_M > WARP_N)",
              {"WARP_M", "WARP_N"}, [](const Assignment& a) {
                const int tm = simt_thread_m(static_cast<int>(a.i("WARP_M")), static_cast<int>(a.i("WARP_N")));
                const int tn = simt_thread_n(static_cast<int>(a.i("WARP_M")), static_cast<int>(a.i("WARP_N")));
                return (tm == 4 || tm == 8) && (tn == 4 || tn == 8);
              });
  std::vector<std::string> all_knobs = {"BLOCK_M", "BLOCK_N", "BLOCK_K", "WARP_M", "WARP_N", "VEC", "SMEM"};
  std::vector<std::string> register_knobs = all_knobs;
  register_knobs.push_back("MIN_BLOCKS");
  if (!simt) {
    all_knobs.push_back("STAGES");
    register_knobs.push_back("STAGES");
  }
  auto knobs_of = [simt](const Assignment& a) {
    GemmKnobs k;
    k.block_m = static_cast<int>(a.i("BLOCK_M"));
    k.block_n = static_cast<int>(a.i("BLOCK_N"));
    k.block_k = static_cast<int>(a.i("BLOCK_K"));
    k.warp_m = static_cast<int>(a.i("WARP_M"));
    k.warp_n = static_cast<int>(a.i("WARP_N"));
    k.stages = simt ? 2 : static_cast<int>(a.i("STAGES"));
    k.vec = static_cast<int>(a.i("VEC"));
    k.smem = a.s("SMEM");
    return k;
  };
  std::vector<std::string> smem_names = all_knobs;
  smem_names.push_back("smem_max");
  s.require("stages x (A + B tiles) fit the opt-in shared memory", smem_names, [p, knobs_of](const Assignment& a) {
    return smem_bytes(p, knobs_of(a)) <= a.i("smem_max");
  });
  const DeviceSpec device = d;
  s.require("register estimate within the per-thread budget of this block size and MIN_BLOCKS", register_knobs,
            [p, knobs_of, device](const Assignment& a) {
              const GemmKnobs k = knobs_of(a);
              return register_estimate(p, k) <= register_cap(k.threads() * static_cast<int>(a.i("MIN_BLOCKS")), device);
            });
  if (misaligned) {
    // The leading dimensions the kernel reads, without and with REPACK (once, not per check).
    const long long lda_repacked = kernel_ld(p, p.a_stored(), true), ldb_repacked = kernel_ld(p, p.b_stored(), true);
    const long long lda = p.lda, ldb = p.ldb;
    s.require("vector width divides the leading dimensions the kernel reads (lda, ldb; after REPACK aligned ones)",
              {"VEC", "REPACK"}, [=](const Assignment& a) {
                const bool repack = a.b("REPACK");
                return (repack ? lda_repacked : lda) % a.i("VEC") == 0 && (repack ? ldb_repacked : ldb) % a.i("VEC") == 0;
              });
  } else {
    s.require("vector width divides lda and ldb (alignment of every row)", {"VEC", "lda", "ldb"},
              [](const Assignment& a) { return a.i("lda") % a.i("VEC") == 0 && a.i("ldb") % a.i("VEC") == 0; });
  }
  s.require("aligned fast path only when the tiles divide M, N and each split's K",
            {"PREDICATED", "BLOCK_M", "BLOCK_N", "BLOCK_K", "SPLIT_K", "m", "n", "k"}, [](const Assignment& a) {
              if (a.b("PREDICATED")) return true;
              return a.i("m") % a.i("BLOCK_M") == 0 && a.i("n") % a.i("BLOCK_N") == 0 &&
                     a.i("k") % (a.i("BLOCK_K") * a.i("SPLIT_K")) == 0;
            });
  if (!simt) {
    std::vector<std::string> staged_names = all_knobs;
    staged_names.push_back("STAGE_C");
    staged_names.push_back("SPLIT_K");
    s.require("a staged C tile (rows padded by 16 bytes) fits in the ring and needs no K split", staged_names,
              [p, knobs_of](const Assignment& a) {
                if (!a.b("STAGE_C")) return true;
                const GemmKnobs k = knobs_of(a);
                const long long staged = static_cast<long long>(k.block_m) * (k.block_n * p.out_bytes() + 16);
                return a.i("SPLIT_K") == 1 && staged <= smem_bytes(p, k);
              });
  }
  add_split_constraints(s, p);
  return s;
}

Config GemmFamily::default_config(const Problem& raw, const DeviceSpec& d) const {
  const Problem norm = normalize(raw);
  const GemmProblem p = GemmProblem::from(norm);
  if (uses_wgmma(p, d)) return wgmma_default_config(p);
  Config c;
  // Safe everywhere: the predicated path, no split, a vector the leading
  // dimensions allow, and tiles whose shared memory fits 48 KB (no opt-in needed).
  if (p.simt()) {
    c.set("BLOCK_M", std::int64_t{128});
    c.set("BLOCK_N", std::int64_t{128});
    c.set("BLOCK_K", std::int64_t{8});
    c.set("WARP_M", std::int64_t{32});
    c.set("WARP_N", std::int64_t{64});
    c.set("SMEM", std::string("pad"));
  } else {
    c.set("BLOCK_M", std::int64_t{128});
    c.set("BLOCK_N", std::int64_t{128});
    c.set("BLOCK_K", std::int64_t{32});
    c.set("WARP_M", std::int64_t{64});
    c.set("WARP_N", std::int64_t{64});
    c.set("STAGES", std::int64_t{p.in_bytes() == 2 ? 3 : 2});
    c.set("SMEM", std::string("xor"));
    if (p.in_bytes() == 4) c.set("BLOCK_K", std::int64_t{16});
  }
  c.set("VEC", std::int64_t{max_vector(p)});
  c.set("GROUP_M", std::int64_t{8});
  c.set("SPLIT_K", std::int64_t{1});
  c.set("REDUCE", std::string("workspace"));
  c.set("PREDICATED", true);
  c.set("MIN_BLOCKS", std::int64_t{1});
  if (!p.simt()) c.set("STAGE_C", false);
  const Space s = space(norm, d);
  if (s.is_valid(c)) return c;
  if (auto repaired = s.repair(c)) return *repaired;
  return c;
}

std::vector<Problem> GemmFamily::class_probes(const Problem& raw) const {
  const Problem norm = normalize(raw);
  const GemmProblem p = GemmProblem::from(norm);
  const long long align = class_alignment(p);
  if (align >= 16) return {norm};
  std::vector<Problem> probes;
  // Each leading dimension either 16-byte aligned or off by the class's
  // alignment; at least one off, so every probe stays in the class.
  const struct {
    const char* key;
    long long ld;
    int bytes;
  } lds[] = {
      {"lda", p.lda, p.in_bytes()}, {"ldb", p.ldb, p.in_bytes()}, {"ldc", p.ldc, p.out_bytes()}};
  for (int mask = 1; mask < 8; ++mask) {
    Problem q = norm;
    for (int i = 0; i < 3; ++i) {
      const long long chunk = 16 / lds[i].bytes;
      const long long aligned = ceil_div(lds[i].ld, chunk) * chunk;
      const long long off = std::max<long long>(1, align / lds[i].bytes);
      q.set(lds[i].key, static_cast<std::int64_t>((mask >> i) & 1 ? aligned + off : aligned));
    }
    if (shape_class(q) == shape_class(norm)) probes.push_back(std::move(q));
  }
  if (probes.empty()) probes.push_back(norm);
  return probes;
}

std::string GemmFamily::dispatch_condition(const Problem& measured, const Config& c) const {
  const GemmProblem p = GemmProblem::from(measured);
  const GemmKnobs k = GemmKnobs::from(c);
  // The shape class fixes dtype, layout and the narrowest alignment of lda,
  // ldb and ldc, not each one. Below 16 bytes it cannot tell whether lda or
  // ldb is misaligned, which decides the space's knobs (REPACK) and vector
  // widths: no configuration is known to fit another problem of the class.
  if (class_alignment(p) < 16) return "false";
  std::vector<std::string> terms;
  const std::string bk = std::to_string(k.block_k), sk = std::to_string(k.split_k);
  if (!k.predicated)
    terms.push_back("std::fmod(m, " + std::to_string(k.block_m) + ") == 0 && std::fmod(n, " +
                    std::to_string(k.block_n) + ") == 0 && std::fmod(k, " + std::to_string(k.block_k * k.split_k) +
                    ") == 0");
  if (k.split_k > 1)
    terms.push_back("(" + std::to_string(k.split_k - 1) + " * std::ceil(std::ceil(k / " + bk + ") / " + sk +
                    ") < std::ceil(k / " + bk + "))");
  std::string out;
  for (const auto& t : terms) out += (out.empty() ? "" : " && ") + t;
  return out.empty() ? "true" : out;
}

double GemmFamily::flops(const Problem& raw) const {
  const GemmProblem p = GemmProblem::from(raw);
  return 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
}

double GemmFamily::min_bytes(const Problem& raw) const {
  const GemmProblem p = GemmProblem::from(raw);
  const double mn = static_cast<double>(p.m) * static_cast<double>(p.n);
  double bytes = static_cast<double>(p.m * p.k + p.k * p.n) * p.in_bytes() + mn * p.out_bytes();
  if (p.beta != 0) bytes += mn * p.out_bytes();
  if (p.epilogue != "none") bytes += static_cast<double>(p.n) * p.out_bytes();
  return bytes;
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
  int per_sm = std::max(1, std::min({d.max_threads_per_sm / std::max(g.threads, 1),
                                     g.smem_bytes > 0 ? d.smem_per_sm / std::max(g.smem_bytes, 1) : 32,
                                     d.regs_per_sm / std::max(1, w.regs_per_thread * g.threads),
                                     d.max_blocks_per_sm}));
  const long long wave = std::max<long long>(1, static_cast<long long>(std::max(d.sm_count, 1)) * per_sm);
  const double a_bytes = static_cast<double>(p.m) * p.k * p.in_bytes();
  const double b_bytes = static_cast<double>(p.k) * p.n * p.in_bytes();
  const double c_bytes = static_cast<double>(p.m) * p.n * p.out_bytes() * (p.beta != 0 ? 2 : 1);
  double ab;
  if (d.l2_bytes > 0 && a_bytes + b_bytes < 0.5 * static_cast<double>(d.l2_bytes)) {
    ab = a_bytes + b_bytes;  // both operands stay in L2
  } else {
    const long long blocks_per_split = tiles;
    const long long waves = ceil_div(blocks_per_split * g.split_k, wave);
    const long long rows = k.group_m > 1 ? std::min<long long>(k.group_m, g.tiles_m)
                                         : std::min<long long>(g.tiles_m, ceil_div(wave, g.tiles_n) + 1);
    const long long cols = std::min<long long>(g.tiles_n, ceil_div(wave, rows));
    const double k_span = static_cast<double>(std::min<long long>(p.k, g.k_per_split));
    ab = static_cast<double>(waves) * (rows * k.block_m + cols * k.block_n) * k_span * p.in_bytes();
    ab = std::clamp(ab, a_bytes + b_bytes, a_bytes * g.tiles_n + b_bytes * g.tiles_m);
  }
  w.dram_bytes = ab + c_bytes + (p.epilogue != "none" ? static_cast<double>(p.n) * p.out_bytes() : 0.0);
  if (g.has_reduce) w.extra_bytes = 2.0 * static_cast<double>(g.workspace_floats) * 4;
  if (g.has_prescale)
    w.extra_bytes = static_cast<double>(p.m) * p.n * 4 * (2.0 + g.split_k);  // prescale + atomic adds in L2
  w.extra_bytes += static_cast<double>(g.repack_bytes);
  if (!k.wgmma) describe_main_loop(w, p, k, g);
  return w;
}

KernelSource GemmFamily::source(const Problem& raw, const Config& c) const {
  const GemmProblem p = GemmProblem::from(raw);
  const GemmKnobs k = GemmKnobs::from(c);
  const int mode = split_mode(k);
  const int epi = epilogue_code(p.epilogue);
  const char* tin = cuda_type(p.dtype);
  const char* tout = cuda_type(p.out_dtype());
  auto b = [](bool v) { return v ? "true" : "false"; };
  std::ostringstream main;
  if (k.wgmma) {
    // Layout nt keeps its own kernel (and so the cubins of its stored results);
    // the others name how A and B are stored (gemm_wgmma.cuh). A tf32 operand
    // stored M- or N-major is read from its K-major copy (geometry).
    const bool mn_major = wgmma_operand_traits(p.dtype).mn_major;
    const bool a_m_major = mn_major && p.a_t(), b_n_major = mn_major && !p.b_t();
    const bool nt = !a_m_major && !b_n_major;
    main << (nt ? "ktune_gemm::gemm_wgmma<" : "ktune_gemm::gemm_wgmma_layout<") << tin << ", "
         << tout << ", " << k.block_m << ", " << k.block_n << ", " << k.warp_m << ", " << k.stages
         << ", " << k.cluster_m << ", " << k.cluster_n << ", " << k.group_m << ", " << mode << ", "
         << epi << ", " << b(k.pingpong) << ", " << b(k.stage_c);
    if (!nt) main << ", " << b(a_m_major) << ", " << b(b_n_major);
    main << ">";
  } else if (p.simt()) {
    main << "ktune_gemm::gemm_simt<" << k.block_m << ", " << k.block_n << ", " << k.block_k << ", " << k.warp_m
         << ", " << k.warp_n << ", " << k.vec << ", " << b(k.smem == "pad") << ", " << b(p.a_t()) << ", "
         << b(p.b_t()) << ", " << k.group_m << ", " << mode << ", " << b(k.predicated) << ", " << epi << ", "
         << k.min_blocks << ">";
  } else {
    main << "ktune_gemm::gemm_tc<" << tin << ", " << tout << ", " << k.block_m << ", " << k.block_n << ", "
         << k.block_k << ", " << k.warp_m << ", " << k.warp_n << ", " << k.stages << ", " << k.vec << ", "
         << b(p.a_t()) << ", " << b(p.b_t()) << ", " << b(k.smem == "xor") << ", " << k.group_m << ", " << mode
         << ", " << b(k.predicated) << ", " << epi << ", " << k.min_blocks << ", " << b(k.stage_c) << ">";
  }
  KernelSource s;
  s.program_name = k.wgmma ? "gemm_wgmma.cu" : p.simt() ? "gemm_simt.cu" : "gemm_tc.cu";
  s.needs_arch_specific = k.wgmma;
  s.source = std::string("// ktune gemm: ") + c.key() + "\n" +
             (k.wgmma    ? "#include \"kernels_templated/gemm/gemm_wgmma.cuh\"\n"
              : p.simt() ? "#include \"kernels_templated/gemm/gemm_simt.cuh\"\n"
                         : "#include \"kernels_templated/gemm/gemm_tc.cuh\"\n") +
             (mode != 0 ? "#include \"kernels_templated/gemm/gemm_splitk.cuh\"\n" : "");
  // One repack kernel serves both operands (launched once per repacked one).
  const GemmGeometry g = geometry(p, k);
  if (g.repack_a || g.repack_b || g.transpose_a || g.transpose_b)
    s.source += "#include \"kernels_templated/gemm/gemm_repack.cuh\"\n";
  if (g.repack_a || g.repack_b)
    s.kernels.push_back(std::string("ktune_gemm::repack_rows<") + tin + ">");
  // wgmma tf32 with an M- or N-major operand: its K-major copy (once per transposed operand).
  if (g.transpose_a || g.transpose_b)
    s.kernels.push_back(std::string("ktune_gemm::repack_transpose<") + tin + ">");
  if (mode == 2) s.kernels.push_back("ktune_gemm::splitk_prescale<" + std::to_string(epi) + ">");
  s.kernels.push_back(main.str());
  if (mode == 1)
    s.kernels.push_back(std::string("ktune_gemm::splitk_reduce<") + tout + ", " + std::to_string(epi) + ", " +
                        std::to_string(k.split_k) + ">");
  return s;
}

const GemmFamily& gemm_family() {
  static const GemmFamily family;
  return family;
}

}  // namespace ktune
