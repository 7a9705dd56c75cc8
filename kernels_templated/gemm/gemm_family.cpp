// GemmFamily: problem keys and normalization, shape classes and their
// probes, dispatch conditions, work, and the NVRTC source of a configuration.
// The space is in gemm_space.cpp (gemm_wgmma_space.cpp for the Hopper path),
// resources, geometry and the work estimate in gemm_resources.cpp.
#include "kernels_templated/gemm/gemm_family.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "kernels_templated/gemm/gemm_family_detail.hpp"

namespace ktune {
using gemm_detail::ceil_div;
using gemm_detail::split_mode;

namespace {

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

std::string GemmFamily::shape_group(const Problem& p) const {
  const auto floor_log2 = [](long long v) {
    int l = 0;
    while (v > 1) v >>= 1, ++l;
    return std::to_string(l);
  };
  return shape_class(p) + ".m" + floor_log2(p.integer("m")) + ".n" + floor_log2(p.integer("n")) +
         ".k" + floor_log2(p.integer("k"));
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

const KernelFamily& gemm_descriptor() { return gemm_family(); }

}  // namespace ktune
