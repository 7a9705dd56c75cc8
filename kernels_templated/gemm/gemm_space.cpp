// The gemm family's mma.sync and SIMT space: knobs, constraints and the
// default configuration, and how a configuration's knobs are read
// (GemmKnobs::from, every path).
#include "kernels_templated/gemm/gemm_family.hpp"

#include <string_view>

#include "kernels_templated/gemm/gemm_family_detail.hpp"

namespace ktune {
using gemm_detail::ceil_div;
using gemm_detail::simt_thread_m;
using gemm_detail::simt_thread_n;

namespace {

/// The knobs that size an mma.sync or SIMT block (tiles, pipeline, loads:
/// what its shared memory and registers depend on), read one way from a
/// stored configuration (GemmKnobs::from) and from a constraint's assignment
/// (the space's checks). `integer` and `text` read a knob by name; `stages` is
/// STAGES, or 2 on the SIMT path, which has no such knob.
template <class Integer, class Text>
GemmKnobs tile_knobs(const Integer& integer, const Text& text, int stages) {
  GemmKnobs k;
  k.block_m = static_cast<int>(integer("BLOCK_M"));
  k.block_n = static_cast<int>(integer("BLOCK_N"));
  k.block_k = static_cast<int>(integer("BLOCK_K"));
  k.warp_m = static_cast<int>(integer("WARP_M"));
  k.warp_n = static_cast<int>(integer("WARP_N"));
  k.stages = stages;
  k.vec = static_cast<int>(integer("VEC"));
  k.smem = text("SMEM");
  return k;
}

}  // namespace

GemmKnobs GemmKnobs::from(const Config& c) {
  GemmKnobs k;
  if (c.text_or("PATH", "mma") == "wgmma") {
    // The rest is implied by the kernel (see the struct's comment).
    k.wgmma = true;
    k.block_m = static_cast<int>(c.integer("BLOCK_M"));
    k.block_n = static_cast<int>(c.integer("BLOCK_N"));
    k.warp_m = static_cast<int>(c.integer("WARP_M"));
    k.block_k = static_cast<int>(c.integer_or("BLOCK_K", 64));
    k.warp_n = k.block_n;
    k.stages = static_cast<int>(c.integer("STAGES"));
    k.vec = 8;
    k.smem = "xor";
    k.predicated = true;
    k.persistent = c.contains("PERSISTENT") && c.boolean("PERSISTENT");
    k.pingpong = c.contains("PINGPONG") &&
                 c.boolean("PINGPONG");  // absent in results stored before the knob
    k.cluster_m = static_cast<int>(c.integer_or("CLUSTER_M", 1));
    k.cluster_n = static_cast<int>(c.integer_or("CLUSTER_N", 1));  // absent before the knob
    k.stage_c = c.contains("STAGE_C") && c.boolean("STAGE_C");     // absent before the knob
  } else {
    k = tile_knobs([&c](std::string_view name) { return c.integer(name); },
                   [&c](std::string_view name) -> const std::string& { return c.text(name); },
                   static_cast<int>(c.integer_or("STAGES", 2)));
    k.predicated = c.boolean("PREDICATED");
    k.min_blocks = static_cast<int>(
        c.integer_or("MIN_BLOCKS", 1));  // absent in results stored before the knob
    k.stage_c = c.contains("STAGE_C") && c.boolean("STAGE_C");  // mma.sync; absent before the knob
  }
  // Knobs every path names.
  k.group_m = static_cast<int>(c.integer("GROUP_M"));
  k.split_k = static_cast<int>(c.integer("SPLIT_K"));
  k.reduce = c.text("REDUCE");
  k.repack = c.contains("REPACK") && c.boolean("REPACK");
  return k;
}

void GemmFamily::add_split_constraints(Space& s, const GemmProblem& p) {
  s.require("every K split gets at least one K tile", {"SPLIT_K", "BLOCK_K", "k"},
            [](const Assignment& a) {
              const long long k_tiles = ceil_div(a.i("k"), a.i("BLOCK_K"));
              const long long per_split = ceil_div(k_tiles, a.i("SPLIT_K"));
              return (a.i("SPLIT_K") - 1) * per_split < k_tiles;
            });
  const bool atomic_ok = p.out_fp32() && (p.epilogue == "none" || p.epilogue == "bias");
  s.require(
      atomic_ok
          ? "one split needs no reduction (REDUCE=workspace)"
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
    s.add(Parameter::list("BLOCK_K", {std::int64_t{8}, std::int64_t{16}, std::int64_t{32}},
                          std::int64_t{8}, "K per shared-memory tile"));
  else
    s.add(Parameter::list("BLOCK_K", {std::int64_t{16}, std::int64_t{32}, std::int64_t{64}},
                          std::int64_t{32}, "K per shared-memory stage"));
  if (simt) {
    s.add(Parameter::list("WARP_M", {std::int64_t{16}, std::int64_t{32}, std::int64_t{64}},
                          std::int64_t{32}, "rows of C per warp"));
    s.add(Parameter::list("WARP_N", {std::int64_t{16}, std::int64_t{32}, std::int64_t{64}},
                          std::int64_t{64}, "columns of C per warp"));
  } else {
    s.add(Parameter::list("WARP_M",
                          {std::int64_t{16}, std::int64_t{32}, std::int64_t{64}, std::int64_t{128}},
                          std::int64_t{64}, "rows of C per warp (m16 mma tiles)"));
    s.add(Parameter::list("WARP_N",
                          {std::int64_t{16}, std::int64_t{32}, std::int64_t{64}, std::int64_t{128}},
                          std::int64_t{64}, "columns of C per warp (pairs of n8 mma tiles)"));
    s.add(Parameter::int_range("STAGES", 1, 6, 1, 3, "cp.async pipeline stages in shared memory"));
  }
  std::vector<Value> vecs;
  for (int v = 1; v * e <= 16; v *= 2) vecs.emplace_back(std::int64_t{v});
  s.add(Parameter::list("VEC", vecs, vecs.back(), "elements per global load (16 bytes at most)"));
  if (simt)
    s.add(Parameter::categorical("SMEM", {"none", "pad"}, "pad",
                                 "shared rows padded by 16 bytes or not"));
  else
    s.add(Parameter::categorical("SMEM", {"pad", "xor"}, "xor",
                                 "shared tile layout: padded rows or XOR swizzle"));
  s.add(Parameter::list("GROUP_M",
                        {std::int64_t{1}, std::int64_t{4}, std::int64_t{8}, std::int64_t{16}},
                        std::int64_t{8}, "block rasterization: tile rows visited together"));
  s.add(Parameter::list(
      "SPLIT_K",
      {std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{8}, std::int64_t{16}},
      std::int64_t{1}, "K splits (partials reduced by REDUCE)"));
  s.add(Parameter::categorical(
      "REDUCE", {"workspace", "atomic"}, "workspace",
      "split-K reduction: fp32 workspace + kernel (deterministic) or atomics"));
  s.add(Parameter::boolean("PREDICATED", true, "bounds-checked path (else the aligned fast path)"));
  s.add(Parameter::list(
      "MIN_BLOCKS", {std::int64_t{1}, std::int64_t{2}}, std::int64_t{1},
      "blocks per SM the compiler must leave registers for (__launch_bounds__): 2 caps "
      "registers at half the per-block budget for twice the resident warps"));
  if (!simt)
    s.add(Parameter::boolean(
        "STAGE_C", false,
        "C leaves through shared memory in whole rows (16-byte segments where its rows are "
        "aligned; beta = 0 only) instead of straight from the mma fragments"));
  const bool misaligned = p.operands_misaligned();
  if (misaligned)
    s.add(Parameter::boolean(
        "REPACK", false,
        "copy operands whose leading dimension breaks 16-byte alignment to an aligned "
        "workspace first (one extra read and write; then 16-byte loads)"));

  s.require("warp tile divides the block tile", {"BLOCK_M", "BLOCK_N", "WARP_M", "WARP_N"},
            [](const Assignment& a) {
              return a.i("BLOCK_M") % a.i("WARP_M") == 0 && a.i("BLOCK_N") % a.i("WARP_N") == 0;
            });
  s.require("threads per block (32 x warps) within the device limit",
            {"BLOCK_M", "BLOCK_N", "WARP_M", "WARP_N", "max_threads"}, [](const Assignment& a) {
              const long long threads =
                  (a.i("BLOCK_M") / a.i("WARP_M")) * (a.i("BLOCK_N") / a.i("WARP_N")) * 32;
              return threads <= a.i("max_threads") && threads <= 1024;
            });
  if (simt)
    s.require("SIMT lane tile is 4 or 8 on each side (4x8 lane grid, 8x4 when WARP_M > WARP_N)",
              {"WARP_M", "WARP_N"}, [](const Assignment& a) {
                const int tm =
                    simt_thread_m(static_cast<int>(a.i("WARP_M")), static_cast<int>(a.i("WARP_N")));
                const int tn =
                    simt_thread_n(static_cast<int>(a.i("WARP_M")), static_cast<int>(a.i("WARP_N")));
                return (tm == 4 || tm == 8) && (tn == 4 || tn == 8);
              });
  std::vector<std::string> all_knobs = {"BLOCK_M", "BLOCK_N", "BLOCK_K", "WARP_M",
                                        "WARP_N",  "VEC",     "SMEM"};
  std::vector<std::string> register_knobs = all_knobs;
  register_knobs.push_back("MIN_BLOCKS");
  if (!simt) {
    all_knobs.push_back("STAGES");
    register_knobs.push_back("STAGES");
  }
  auto knobs_of = [simt](const Assignment& a) {
    return tile_knobs([&a](std::string_view name) { return a.i(name); },
                      [&a](std::string_view name) -> const std::string& { return a.s(name); },
                      simt ? 2 : static_cast<int>(a.i("STAGES")));
  };
  std::vector<std::string> smem_names = all_knobs;
  smem_names.push_back("smem_max");
  s.require(
      "stages x (A + B tiles) fit the opt-in shared memory", smem_names,
      [p, knobs_of](const Assignment& a) { return smem_bytes(p, knobs_of(a)) <= a.i("smem_max"); });
  const DeviceSpec device = d;
  s.require("register estimate within the per-thread budget of this block size and MIN_BLOCKS",
            register_knobs, [p, knobs_of, device](const Assignment& a) {
              const GemmKnobs k = knobs_of(a);
              return register_estimate(p, k) <=
                     register_cap(k.threads() * static_cast<int>(a.i("MIN_BLOCKS")), device);
            });
  if (misaligned) {
    // The leading dimensions the kernel reads, without and with REPACK (once, not per check).
    const long long lda_repacked = kernel_ld(p, p.a_stored(), true),
                    ldb_repacked = kernel_ld(p, p.b_stored(), true);
    const long long lda = p.lda, ldb = p.ldb;
    s.require(
        "vector width divides the leading dimensions the kernel reads (lda, ldb; after REPACK "
        "aligned ones)",
        {"VEC", "REPACK"}, [=](const Assignment& a) {
          const bool repack = a.b("REPACK");
          return (repack ? lda_repacked : lda) % a.i("VEC") == 0 &&
                 (repack ? ldb_repacked : ldb) % a.i("VEC") == 0;
        });
  } else {
    s.require("vector width divides lda and ldb (alignment of every row)", {"VEC", "lda", "ldb"},
              [](const Assignment& a) {
                return a.i("lda") % a.i("VEC") == 0 && a.i("ldb") % a.i("VEC") == 0;
              });
  }
  s.require("aligned fast path only when the tiles divide M, N and each split's K",
            {"PREDICATED", "BLOCK_M", "BLOCK_N", "BLOCK_K", "SPLIT_K", "m", "n", "k"},
            [](const Assignment& a) {
              if (a.b("PREDICATED")) return true;
              return a.i("m") % a.i("BLOCK_M") == 0 && a.i("n") % a.i("BLOCK_N") == 0 &&
                     a.i("k") % (a.i("BLOCK_K") * a.i("SPLIT_K")) == 0;
            });
  if (!simt) {
    std::vector<std::string> staged_names = all_knobs;
    staged_names.push_back("STAGE_C");
    staged_names.push_back("SPLIT_K");
    s.require("a staged C tile (rows padded by 16 bytes) fits in the ring and needs no K split",
              staged_names, [p, knobs_of](const Assignment& a) {
                if (!a.b("STAGE_C")) return true;
                const GemmKnobs k = knobs_of(a);
                const long long staged =
                    static_cast<long long>(k.block_m) * (k.block_n * p.out_bytes() + 16);
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

}  // namespace ktune
