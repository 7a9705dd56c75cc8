// GPU test (skips without a device): every gemm path and dtype against cuBLAS (fp8 against cuBLAS
// on its operands widened to bf16)
// on seeded random data and the edge inputs (rows of A zero or scaled by a
// large power of two), with the element bound gamma_K |A||B|, over edge shapes (1x1x1, primes, K=1,
// K=65536, tall-skinny, short-wide, misaligned leading dimensions, every layout), for the default
// configuration, a seeded sample, split-K and fast-path configurations. Each problem's kinds of
// configuration are spread over the test's variants (dtypes, layouts), so every kind is verified in
// every variant and on every shape without compiling every kind for every (shape, variant).
// Compiles go through the on-disk cache (scripts/gpu-precompile fills it without a GPU), one line
// is printed per problem as it is verified.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "compile/compiler.hpp"
#include "compile_queue.hpp"
#include "kernels_templated/gemm/gemm_family.hpp"
#include "kernels_templated/gemm/gpu/gemm_harness.hpp"

namespace ktune {
namespace {

bool have_gpu() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

/// A configuration to verify and its kind: 0 the default, then one number per
/// rule of pick_configs (the same number for the same rule on every problem).
struct Pick {
  int kind = 0;
  Config config;
};

/// Configurations to verify for one problem: the default, a seeded sample,
/// and (where the space has them) split-K workspace, split-K atomic and
/// aligned fast-path configurations.
std::vector<Pick> pick_configs(const Problem& p, const DeviceSpec& d, std::uint64_t seed) {
  const Space s = gemm_family().space(p, d);
  std::vector<Pick> picked = {{0, gemm_family().default_config(p, d)}};
  int kind = 0;
  const auto pool = s.sample(400, seed);
  for (std::size_t i = 0; i < 3; ++i, ++kind)
    if (i < pool.size()) picked.push_back({kind + 1, pool[i]});
  auto first = [&](auto pred) {
    ++kind;
    for (const Config& c : pool)
      if (pred(c)) {
        picked.push_back({kind, c});
        return;
      }
  };
  first(
      [](const Config& c) { return c.integer("SPLIT_K") > 1 && c.text("REDUCE") == "workspace"; });
  first([](const Config& c) { return c.text("REDUCE") == "atomic"; });
  // One-element copies: 16-bit ones go through a register (cp.async needs 4 bytes).
  first([](const Config& c) { return c.integer_or("VEC", 8) == 1; });
  first([](const Config& c) { return c.contains("PREDICATED") && !c.boolean("PREDICATED"); });
  first([](const Config& c) { return c.contains("PERSISTENT") && c.boolean("PERSISTENT"); });
  // mma.sync with C staged through shared memory: at the edges and on the
  // aligned fast path, on C rows 16-byte aligned or not (problems with
  // beta != 0 take the direct stores: the fallback is verified there).
  auto mma_staged = [](bool predicated) {
    return [predicated](const Config& c) {
      return !c.contains("PATH") && c.contains("STAGE_C") && c.boolean("STAGE_C") &&
             c.boolean("PREDICATED") == predicated;
    };
  };
  first(mma_staged(true));
  first(mma_staged(false));
  first([](const Config& c) {
    return c.contains("REPACK") && c.boolean("REPACK") && c.integer_or("VEC", 8) == 8;
  });
  first([](const Config& c) {
    return c.contains("REPACK") && c.boolean("REPACK") && c.contains("PREDICATED") &&
           !c.boolean("PREDICATED");
  });
  // A wgmma configuration derived from the default; picked when the space holds it, else the pool's
  // first match.
  auto derived_or_first = [&](std::initializer_list<std::pair<const char*, Value>> knobs,
                              auto pred) {
    if (picked.front().config.contains("PATH")) {
      Config c = picked.front().config;
      for (const auto& [name, value] : knobs) c.set(name, value);
      if (s.is_valid(c)) {
        picked.push_back({++kind, c});
        return;
      }
    }
    first(pred);
  };
  first(
      [](const Config& c) { return c.integer_or("CLUSTER_M", 1) == 2 && c.boolean("PERSISTENT"); });
  // BLOCK_N an odd multiple of 16: B halves of 104 rows multicast across the pair.
  derived_or_first({{"BLOCK_N", Value(std::int64_t{208})}, {"CLUSTER_M", Value(std::int64_t{2})}},
                   [](const Config& c) {
                     return c.integer_or("CLUSTER_M", 1) == 2 && !c.boolean("PERSISTENT");
                   });
  // A cluster along N (A multicast): cuBLAS's 128 x 128 kernel of the M = 512
  // shapes, and a persistent one whose odd tile count leaves a partner past N.
  derived_or_first({{"CLUSTER_N", Value(std::int64_t{2})}, {"STAGES", Value(std::int64_t{6})}},
                   [](const Config& c) {
                     return c.integer_or("CLUSTER_N", 1) == 2 && !c.boolean("PERSISTENT");
                   });
  first(
      [](const Config& c) { return c.integer_or("CLUSTER_N", 1) == 2 && c.boolean("PERSISTENT"); });
  // BLOCK_N an odd multiple of 8 (168: exactly 2 waves at 512 x 11008), staged.
  derived_or_first(
      {{"BLOCK_N", Value(std::int64_t{168})},
       {"STAGE_C", Value(true)},
       {"PERSISTENT", Value(true)}},
      [](const Config& c) { return c.integer("BLOCK_N") % 16 == 8 && c.boolean("STAGE_C"); });
  // Pingpong consumers: alone and with B multicast across a cluster pair.
  first([](const Config& c) {
    return c.contains("PINGPONG") && c.boolean("PINGPONG") && c.integer("CLUSTER_M") == 1;
  });
  first([](const Config& c) {
    return c.contains("PINGPONG") && c.boolean("PINGPONG") && c.integer("CLUSTER_M") == 2;
  });
  // C staged through shared memory: cooperative and pingpong consumers.
  // Two 64-row consumers staging 176 columns: a partial last pass (48 columns of 16-bit C, 16 of
  // fp32).
  derived_or_first({{"BLOCK_N", Value(std::int64_t{176})},
                    {"STAGE_C", Value(true)},
                    {"PERSISTENT", Value(true)}},
                   [](const Config& c) {
                     return c.contains("PINGPONG") && c.boolean("STAGE_C") &&
                            !c.boolean("PINGPONG");
                   });
  first([](const Config& c) {
    return c.contains("PINGPONG") && c.boolean("STAGE_C") && c.boolean("PINGPONG");
  });
  // Deep rings (more than 8 stages fit only small tiles): a persistent block's
  // ring wraps through many phases, and short K leaves most stages unused.
  derived_or_first(
      {{"BLOCK_M", Value(std::int64_t{64})},
       {"BLOCK_N", Value(std::int64_t{64})},
       {"WARP_M", Value(std::int64_t{64})},
       {"STAGES", Value(std::int64_t{13})},
       {"STAGE_C", Value(true)},
       {"PERSISTENT", Value(true)}},
      [](const Config& c) { return c.integer_or("STAGES", 0) > 8 && !c.boolean("PINGPONG"); });
  first([](const Config& c) {
    return c.integer_or("STAGES", 0) > 8 && c.contains("PINGPONG") && c.boolean("PINGPONG");
  });
  // KTUNE_GEMM_CONFIGS_PER_PROBLEM=N keeps the first N (default, then split-K
  // and fast-path ones come last): for slow runs under compute-sanitizer.
  if (const char* limit = std::getenv("KTUNE_GEMM_CONFIGS_PER_PROBLEM"))
    picked.resize(std::min<std::size_t>(picked.size(), std::max(1, std::atoi(limit))));
  return picked;
}

struct Loaded {
  cudaLibrary_t library = nullptr;
  std::vector<cudaKernel_t> kernels;
};

/// What one test verifies: each problem's configurations, in the order they compile.
struct Plan {
  std::vector<Problem> problems;
  std::vector<Config> configs;
  std::vector<KernelSource> sources;
  std::size_t picked = 0;  ///< configurations pick_configs() offered, before the spreading
};

/// Kinds of configuration are spread over at most this many variants: each
/// (shape, variant) gets the default and every stride-th kind, so each kind is
/// verified on every shape in one variant and in every variant on a
/// stride-th of the shapes; and each kind at least once in every variant (on
/// the first shape whose space holds it), as some exist at a few shapes only.
constexpr std::size_t kMaxStride = 4;

/// pick_configs() of every (variant, shape) problem, spread over the variants.
Plan plan_for(const std::vector<std::string>& shapes, const std::vector<std::string>& variants,
              const DeviceSpec& d) {
  Plan plan;
  const std::size_t stride = std::clamp<std::size_t>(variants.size(), 1, kMaxStride);
  std::uint64_t seed = 1;
  for (std::size_t v = 0; v < variants.size(); ++v) {
    std::set<int> seen;  // kinds already verified in this variant
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      const Problem p = parse_problem(gemm_family(), shapes[s] + "," + variants[v]);
      const std::vector<Pick> picks = pick_configs(p, d, seed++);
      plan.picked += picks.size();
      for (const Pick& pick : picks) {
        const bool first_of_kind = seen.insert(pick.kind).second;
        const bool in_turn = (static_cast<std::size_t>(pick.kind) + s) % stride == v % stride;
        if (pick.kind != 0 && !first_of_kind && !in_turn) continue;
        plan.problems.push_back(p);
        plan.configs.push_back(pick.config);
        plan.sources.push_back(gemm_family().source(p, pick.config));
      }
    }
  }
  return plan;
}

/// Runs every compiled configuration on poisoned outputs and verifies it; one
/// line per problem as soon as its configurations are done, a tally per dtype at the end.
void run_and_verify(const Plan& plan, CompileQueue& compiled) {
  GemmHarness harness;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  std::map<std::string, std::pair<int, int>> tally;  // dtype -> (passed, total)
  std::vector<std::string> failures;
  std::string prepared;
  int problem_passed = 0, problem_total = 0, problem_hits = 0, problems_done = 0;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < plan.sources.size(); ++i) {
    const Problem& problem = plan.problems[i];
    const Config& config = plan.configs[i];
    const std::string what = problem.key() + " | " + config.key();
    auto& t = tally[problem.text("dtype") + "/out=" + problem.text("out")];
    ++t.second;
    ++problem_total;
    const CompileOutput& out = compiled.wait(i);
    problem_hits += out.cache_hit ? 1 : 0;
    bool passed = false, sticky = false;
    if (!out.ok) {
      failures.push_back("compile: " + what + "\n" + out.log.substr(0, 1500));
    } else {
      if (prepared != problem.key()) {
        harness.prepare(problem, 12345 + i);
        prepared = problem.key();
      }
      Loaded l;
      ASSERT_EQ(cudaLibraryLoadData(&l.library, out.cubin.data(), nullptr, nullptr, 0, nullptr,
                                    nullptr, 0),
                cudaSuccess)
          << what;
      for (const auto& r : out.kernels) {
        cudaKernel_t k = nullptr;
        ASSERT_EQ(cudaLibraryGetKernel(&k, l.library, r.lowered_name.c_str()), cudaSuccess) << what;
        l.kernels.push_back(k);
      }
      // Input set 0 (seeded random) and 1 (edge rows of A: zero, 2^e-scaled).
      passed = true;
      for (int set = 0; set < harness.input_sets() && passed; ++set) {
        harness.select_inputs(set);
        harness.poison_outputs(stream);
        const cudaError_t launched = harness.launch(config, l.kernels, stream);
        const cudaError_t synced = cudaStreamSynchronize(stream);
        if (launched != cudaSuccess || synced != cudaSuccess) {
          failures.push_back("launch: " + what + ": " +
                             cudaGetErrorString(launched != cudaSuccess ? launched : synced));
          passed = false;
          sticky = synced != cudaSuccess;
          break;
        }
        const Verification v = harness.verify(config, stream);
        passed = v.passed;
        if (!v.passed)
          failures.push_back(std::string(set == 0 ? "wrong: " : "wrong on edge inputs: ") + what +
                             ": " + v.detail);
      }
      harness.select_inputs(0);
      cudaLibraryUnload(l.library);
    }
    if (passed) {
      ++t.first;
      ++problem_passed;
    }
    const bool last_of_problem =
        i + 1 == plan.sources.size() || plan.problems[i + 1].key() != problem.key();
    if (last_of_problem || sticky) {
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf("gemm verify %s: %d / %d configs passed (%d cached); %d configs done at %.0f s\n",
                  problem.key().c_str(), problem_passed, problem_total, problem_hits,
                  static_cast<int>(i + 1), seconds);
      std::fflush(stdout);
      problem_passed = problem_total = problem_hits = 0;
      ++problems_done;
    }
    if (sticky) break;  // a sticky error: nothing after it is trustworthy
  }
  cudaStreamDestroy(stream);
  for (const auto& [dtype, t] : tally)
    std::printf("gemm verify %-22s %3d / %3d configs passed\n", dtype.c_str(), t.first, t.second);
  for (const auto& f : failures) std::printf("FAIL %s\n", f.c_str());
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << plan.sources.size() << " failed ("
                                << problems_done << " problems done)";
}

/// Compiles, only, what verify_against_cublas would run (KTUNE_GPU_TEST_PRECOMPILE=1
/// without a GPU): the cache then holds it for the lent GPU.
void precompile(const Plan& plan) {
  const Compiler compiler = gpu_test_compiler();
  std::printf("gemm precompile: %zu configs (of %zu picked) into %s\n", plan.sources.size(),
              plan.picked, compiler.options().cache_dir.c_str());
  std::fflush(stdout);
  CompileQueue compiled(compiler, plan.sources);
  int failed = 0, hits = 0;
  for (std::size_t i = 0; i < compiled.size(); ++i) {
    const CompileOutput& out = compiled.wait(i);
    failed += out.ok ? 0 : 1;
    hits += out.cache_hit ? 1 : 0;
  }
  std::printf("gemm precompile: done, %zu configs (%d from the cache, %d failed to compile)\n",
              compiled.size(), hits, failed);
  std::fflush(stdout);
}

/// pick_configs() of every (shape, variant) problem, spread over the variants
/// (plan_for), compiled on every core while the GPU runs each one that is
/// ready on poisoned outputs and verifies it against cuBLAS.
void verify_against_cublas(const std::vector<std::string>& shapes,
                           const std::vector<std::string>& variants) {
  auto device = find_builtin_device("h200");
  ASSERT_TRUE(device.has_value());
  DeviceSpec d = *device;
  if (!have_gpu()) {
    if (!precompile_only())
      GTEST_SKIP() << "no CUDA device (cudaGetDeviceCount failed or found none)";
    // The H200's own figures: the H100 SXM has the same SM count and shared memory.
    precompile(plan_for(shapes, variants, d));
    GTEST_SKIP() << "precompiled only (KTUNE_GPU_TEST_PRECOMPILE=1, no CUDA device)";
  }
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  d.smem_per_block_optin = static_cast<int>(prop.sharedMemPerBlockOptin);
  d.sm_count = prop.multiProcessorCount;
  const Plan plan = plan_for(shapes, variants, d);
  std::printf("gemm verify: %zu configs (of %zu picked) on %s\n", plan.sources.size(), plan.picked,
              prop.name);
  std::fflush(stdout);
  const Compiler compiler = gpu_test_compiler();
  CompileQueue compiled(compiler, plan.sources);
  run_and_verify(plan, compiled);
}

TEST(GemmGpu, EveryPathMatchesCublasOnEdgeShapes) {
  const std::vector<std::string> shapes = {
      "m=1,n=1,k=1",
      "m=127,n=131,k=257",
      "m=200,n=72,k=1",
      "m=64,n=64,k=65536",
      "m=4099,n=16,k=64",
      "m=16,n=4099,k=64",
      "m=129,n=67,k=95,layout=tn,lda=130,ldb=69,ldc=70",
      "m=100,n=120,k=140,lda=141,ldb=121,ldc=123",
      "m=256,n=256,k=512,layout=nt,epilogue=bias_gelu,beta=0.5,alpha=0.75",
      "m=512,n=512,k=512,layout=tt,epilogue=bias_relu",
      "m=384,n=256,k=2048,epilogue=bias,beta=-1",
  };
  // 16-bit and tf32 problems of every layout take the wgmma path on sm_90
  // (the tests below): path=mma keeps these on the mma.sync and SIMT kernels.
  std::vector<std::string> mma;
  for (const auto& s : shapes) mma.push_back(s + ",path=mma");
  verify_against_cublas(mma, {"dtype=bf16", "dtype=fp32", "dtype=fp16,out=fp32", "dtype=tf32",
                              "dtype=bf16,out=fp32"});
}

// The Hopper path with A and B K-major (layout nt); its edges are TMA's zero
// fill and the epilogue's bounds checks; leading dimensions that break 16-byte
// alignment (K = 1, odd lda/ldb, one operand only) go through the repack kernel.
TEST(GemmGpu, WgmmaPathMatchesCublasOnEdgeShapes) {
  const std::vector<std::string> shapes = {
      "m=1,n=1,k=8",
      "m=127,n=131,k=264",
      "m=200,n=72,k=8",
      "m=64,n=64,k=65536",
      "m=4099,n=16,k=64",
      "m=16,n=4099,k=64",
      "m=129,n=67,k=96,lda=104,ldb=112,ldc=70",
      "m=256,n=256,k=512,epilogue=bias_gelu,beta=0.5,alpha=0.75",
      "m=384,n=256,k=2048,epilogue=bias,beta=-1",
      "m=1000,n=1000,k=1000,epilogue=bias_relu",
      "m=2048,n=2048,k=2048",
      "m=1,n=1,k=1",
      "m=200,n=72,k=1",
      "m=129,n=67,k=95,lda=97,ldb=99,ldc=70",
      "m=300,n=260,k=1000,lda=1000,ldb=1003,ldc=261,epilogue=bias,beta=0.5",
      "m=512,n=384,k=4097",
      "m=4096,n=2048,k=200",  // many tiles per persistent block, fewer k-tiles than stages
  };
  std::vector<std::string> nt;
  for (const auto& s : shapes) nt.push_back(s + ",layout=nt,path=wgmma");
  verify_against_cublas(nt,
                        {"dtype=bf16", "dtype=fp16,out=fp32", "dtype=bf16,out=fp32", "dtype=fp16"});
}

// tf32 on the wgmma path in every layout: nt read as stored, the others with
// the M- or N-major operand transposed to K-major first; aligned, odd and
// misaligned shapes (the reference is full fp32: wgmma truncates to tf32).
TEST(GemmGpu, WgmmaTf32MatchesCublasInEveryLayout) {
  const std::vector<std::string> shapes = {
      "m=1,n=1,k=1",
      "m=127,n=131,k=257",
      "m=129,n=67,k=95,lda=130,ldb=133,ldc=70",
      "m=256,n=256,k=512,epilogue=bias_gelu,beta=0.5,alpha=0.75",
      "m=1000,n=1000,k=1000,epilogue=bias_relu",
      "m=2048,n=2048,k=2048",
  };
  verify_against_cublas(shapes,
                        {"layout=nt,path=wgmma,dtype=tf32", "layout=nn,path=wgmma,dtype=tf32",
                         "layout=tn,path=wgmma,dtype=tf32", "layout=tt,path=wgmma,dtype=tf32"});
}

// fp8 (layout nt) against an fp32 reference of the same fp8 values (widened
// to bf16 exactly), with non-unit scales on A, B and D: aligned and odd
// shapes (odd K breaks TMA's 16-byte rows: repacked), bf16 and fp16 C.
TEST(GemmGpu, WgmmaFp8MatchesTheWidenedReference) {
  const std::vector<std::string> shapes = {
      "m=1,n=1,k=16",
      "m=127,n=131,k=257",
      "m=4099,n=16,k=128",
      "m=2048,n=2048,k=2048",
      "m=2048,n=2048,k=2048,scale_d=0.25,beta=0.5",
      "m=127,n=131,k=257,scale_d=4,alpha=0.5",
      "m=384,n=256,k=2048,epilogue=bias,beta=-1",
      "m=1000,n=1000,k=1000,epilogue=bias_relu",
  };
  std::vector<std::string> nt;
  for (const auto& s : shapes) nt.push_back(s + ",layout=nt");
  verify_against_cublas(
      nt, {"dtype=e4m3,scale_a=0.5,scale_b=4", "dtype=e4m3,out=fp16,scale_a=2,scale_b=0.25",
           "dtype=e5m2,scale_a=0.75,scale_b=2"});
}

// The Hopper path with an MN-major operand: A stored K x M (tn, tt), B stored
// K x N (nn, tn), read by the transposing wgmma from column blocks of 64
// elements. Aligned, odd (partial column blocks, zero-filled by TMA), padded
// and misaligned leading dimensions (A, B or both repacked), in bf16 and fp16;
// pick_configs adds persistent, cluster (each block loading half the K-rows of
// the shared operand's column blocks), pingpong and staged-epilogue ones.
TEST(GemmGpu, WgmmaPathMatchesCublasInEveryLayout) {
  // Leading dimensions valid in every layout (>= max(M, K) for A, max(N, K) for B).
  const std::vector<std::string> shapes = {
      "m=512,n=384,k=256",
      "m=509,n=383,k=257",
      "m=384,n=320,k=512,lda=520,ldb=528,epilogue=bias_gelu",
      "m=200,n=136,k=120,lda=203,ldb=203,ldc=139",
      "m=300,n=260,k=1000,lda=1000,ldb=1003,ldc=261,epilogue=bias,beta=0.5",
      "m=300,n=260,k=1000,lda=1001,ldb=1000,out=fp32",
  };
  std::vector<std::string> variants;
  for (const char* dtype : {"dtype=bf16", "dtype=fp16"})
    for (const char* layout : {"nn", "tn", "tt"})
      variants.push_back(std::string(dtype) + ",layout=" + layout + ",path=wgmma");
  verify_against_cublas(shapes, variants);
}

// Two-block clusters in every layout. nn and tn, whose B is read N-major, came
// out wrong with CLUSTER_M = 2 or CLUSTER_N = 2 until an MN-major descriptor's
// start address was masked to its 14 bits (gemm_wgmma.cuh, wgmma_desc_low). The last shape with tn,
// CLUSTER_N = 2 and STAGES = 6 is the configuration that wrote NaN then. One knob changes at a time
// from the default, so a failure pattern names its cause. KTUNE_CLUSTER_LAYOUTS=nn,tn narrows the
// layouts while diagnosing.
TEST(GemmGpu, WgmmaClusterPairsInEveryLayout) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device (cudaGetDeviceCount failed or found none)";
  auto device = find_builtin_device("h200");
  ASSERT_TRUE(device.has_value());
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  DeviceSpec d = *device;
  d.smem_per_block_optin = static_cast<int>(prop.sharedMemPerBlockOptin);
  d.sm_count = prop.multiProcessorCount;
  std::vector<std::string> layouts = {"nt", "nn", "tn", "tt"};
  if (const char* only = std::getenv("KTUNE_CLUSTER_LAYOUTS")) {
    layouts.clear();
    std::string s = only;
    for (std::size_t at = 0; at <= s.size();) {
      const std::size_t comma = std::min(s.find(',', at), s.size());
      layouts.push_back(s.substr(at, comma - at));
      at = comma + 1;
    }
  }
  const std::vector<std::string> shapes = {
      "m=256,n=256,k=64",
      "m=512,n=384,k=256",
      "m=300,n=260,k=1000,lda=1001,out=fp32",
  };
  using Knobs = std::vector<std::pair<const char*, std::int64_t>>;
  const std::vector<Knobs> variants = {
      {{"CLUSTER_M", 2}},
      {{"CLUSTER_N", 2}},
      {{"CLUSTER_M", 2}, {"BLOCK_N", 64}},
      {{"CLUSTER_N", 2}, {"BLOCK_N", 64}},
      {{"CLUSTER_M", 2}, {"BLOCK_M", 64}},
      {{"CLUSTER_N", 2}, {"BLOCK_M", 64}},
      {{"CLUSTER_M", 2}, {"STAGES", 2}},
      {{"CLUSTER_N", 2}, {"STAGES", 6}},
  };
  Plan plan;
  for (const auto& layout : layouts)
    for (const auto& shape : shapes) {
      const Problem p =
          parse_problem(gemm_family(), shape + ",dtype=fp16,layout=" + layout + ",path=wgmma");
      const Space space = gemm_family().space(p, d);
      for (const Knobs& knobs : variants) {
        // Validity is checked without the pair, so a space that withholds
        // pairs from a layout does not hide them from this test.
        Config c = gemm_family().default_config(p, d);
        for (const auto& [name, value] : knobs)
          if (std::string(name).rfind("CLUSTER_", 0) != 0) c.set(name, Value(value));
        std::string why;
        const bool valid = space.is_valid(c, &why);
        for (const auto& [name, value] : knobs) c.set(name, Value(value));
        if (!valid) {
          std::printf("skip %s | %s: %s\n", p.key().c_str(), c.key().c_str(), why.c_str());
          continue;
        }
        plan.problems.push_back(p);
        plan.configs.push_back(c);
        plan.sources.push_back(gemm_family().source(p, c));
      }
    }
  plan.picked = plan.sources.size();
  const Compiler compiler = gpu_test_compiler();
  CompileQueue compiled(compiler, plan.sources);
  run_and_verify(plan, compiled);
}

}  // namespace
}  // namespace ktune
