// Tests of the gemm descriptor without a GPU: problem keys, space constraints,
// default configuration, geometry, work estimate and generated source.
#include <gtest/gtest.h>

#include "kernels_templated/gemm/gemm_family.hpp"

namespace ktune {
namespace {

DeviceSpec h200() {
  auto d = find_builtin_device("h200");
  EXPECT_TRUE(d.has_value());
  return *d;
}

// On the H200 16-bit problems of every layout take the wgmma path: the tests
// of the mma.sync path's knobs ask for it with path=mma.
Problem problem(const std::string& text) { return parse_problem(gemm_family(), text); }

TEST(GemmDescriptor, IsRegistered) { EXPECT_EQ(&find_family("gemm"), &gemm_family()); }

TEST(GemmDescriptor, NormalizeFillsTightLeadingDimensionsPerLayout) {
  const Problem nn = problem("m=10,n=20,k=30");
  EXPECT_EQ(nn.integer("lda"), 30);
  EXPECT_EQ(nn.integer("ldb"), 20);
  EXPECT_EQ(nn.integer("ldc"), 20);
  EXPECT_EQ(nn.text("dtype"), "bf16");
  const Problem tt = problem("m=10,n=20,k=30,layout=tt");
  EXPECT_EQ(tt.integer("lda"), 10);  // A stored K x M
  EXPECT_EQ(tt.integer("ldb"), 30);  // B stored N x K
  EXPECT_EQ(problem("m=1,n=1,k=1,dtype=fp32,out=fp32").text("out"), "same");
}

TEST(GemmDescriptor, NormalizeRejectsBadKeysNamingThem) {
  auto message = [](const std::string& text) {
    try {
      problem(text);
    } catch (const ProblemError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("m=0,n=1,k=1").find("'m'"), std::string::npos);
  EXPECT_NE(message("m=4,n=4,k=4,lda=3").find("lda"), std::string::npos);
  EXPECT_NE(message("m=4,n=4,k=4,dtype=int8").find("dtype"), std::string::npos);
  EXPECT_NE(message("m=4,n=4,k=4,layout=nx").find("layout"), std::string::npos);
  EXPECT_NE(message("m=4,n=4,k=4,colour=red").find("colour"), std::string::npos);
  EXPECT_NE(message("n=4,k=4").find("'m'"), std::string::npos);
}

TEST(GemmDescriptor, DefaultConfigIsValidEverywhere) {
  const DeviceSpec d = h200();
  for (const char* text : {"m=1,n=1,k=1", "m=127,n=131,k=257,dtype=fp32", "m=4096,n=4096,k=4096",
                           "m=64,n=64,k=65536,dtype=tf32,layout=tt", "m=100,n=200,k=300,lda=301,ldb=203,ldc=201",
                           "m=33,n=65,k=17,dtype=fp16,out=fp32,epilogue=bias_gelu,beta=0.5"}) {
    const Problem p = problem(text);
    const Space s = gemm_family().space(p, d);
    std::string why;
    EXPECT_TRUE(s.is_valid(gemm_family().default_config(p, d), &why)) << text << ": " << why;
  }
}

TEST(GemmDescriptor, MisalignedLeadingDimensionsLeaveOnlyNarrowVectorsUnlessRepacked) {
  const DeviceSpec d = h200();
  const Problem odd = problem("m=128,n=128,k=128,lda=129,path=mma");
  const Space odd_space = gemm_family().space(odd, d);
  bool saw_repacked_wide = false;
  for (const Config& c : odd_space.sample(400, 3)) {
    if (c.boolean("REPACK")) {
      saw_repacked_wide |= c.integer("VEC") == 8;
    } else {
      EXPECT_EQ(c.integer("VEC"), 1) << c.key();
    }
  }
  EXPECT_TRUE(saw_repacked_wide) << "REPACK=true must allow 16-byte loads";
  const Problem by4 = problem("m=128,n=128,k=128,lda=132,ldb=132,path=mma");
  for (const Config& c : gemm_family().space(by4, d).sample(200, 3)) {
    if (!c.boolean("REPACK")) {
      EXPECT_LE(c.integer("VEC"), 4) << c.key();
    }
  }
  // Aligned problems have no REPACK knob at all.
  EXPECT_THROW(gemm_family().space(problem("m=128,n=128,k=128,path=mma"), d).parameter("REPACK"),
               SpaceError);
}

TEST(GemmDescriptor, RepackCopiesOnlyTheMisalignedOperandsToAlignedRows) {
  // A stored M x K with lda 4097 (odd); B stored K x N with ldb 4104 (aligned).
  const GemmProblem p = GemmProblem::from(problem("m=4096,n=4100,k=4096,lda=4097,ldb=4104,ldc=4100"));
  GemmKnobs k = GemmKnobs::from(gemm_family().default_config(
      problem("m=4096,n=4100,k=4096,lda=4097,ldb=4104,path=mma"), h200()));
  EXPECT_FALSE(k.repack);  // the default stays the path without extra kernels
  k.repack = true;
  const GemmGeometry g = GemmFamily::geometry(p, k);
  EXPECT_TRUE(g.repack_a);
  EXPECT_FALSE(g.repack_b);
  EXPECT_EQ(g.kernel_lda, 4096);  // K rounded up to 8 elements (16 bytes)
  EXPECT_EQ(g.kernel_ldb, 4104);
  EXPECT_EQ(g.packed_a_elems, 4096LL * 4096);
  EXPECT_EQ(g.packed_b_elems, 0);
  EXPECT_EQ(g.repack_bytes, 2LL * 2 * 4096 * 4096);
  // A transposed A (stored K x M) rounds M; fp32 rounds to 4 elements.
  const GemmProblem t = GemmProblem::from(problem("m=30,n=8,k=5,layout=tn,dtype=fp32,lda=31"));
  EXPECT_EQ(GemmFamily::kernel_ld(t, t.a_stored(), true), 32);
  EXPECT_EQ(GemmFamily::kernel_ld(t, t.a_stored(), false), 31);
  EXPECT_EQ(GemmFamily::kernel_ld(t, t.b_stored(), true), 8);  // aligned: untouched
}

TEST(GemmDescriptor, RepackKernelComesFirstAndCountsInTheEstimate) {
  const Problem p = problem("m=256,n=256,k=256,lda=257,ldb=259,path=mma");
  Config c = gemm_family().default_config(p, h200());
  c.set("REPACK", true);
  c.set("VEC", std::int64_t{8});
  ASSERT_TRUE(gemm_family().space(p, h200()).is_valid(c)) << c.key();
  const KernelSource s = gemm_family().source(p, c);
  ASSERT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(s.kernels[0], "ktune_gemm::repack_rows<__nv_bfloat16>");
  EXPECT_NE(s.source.find("gemm_repack.cuh"), std::string::npos);
  const WorkEstimate with = gemm_family().estimate(p, c, h200());
  c.set("REPACK", false);
  c.set("VEC", std::int64_t{1});
  const WorkEstimate without = gemm_family().estimate(p, c, h200());
  EXPECT_EQ(with.kernels, without.kernels + 2);
  EXPECT_DOUBLE_EQ(with.extra_bytes - without.extra_bytes, 2.0 * 2 * (256 * 256 * 2));
}

TEST(GemmDescriptor, FastPathOnlyWhereTilesDivide) {
  const DeviceSpec d = h200();
  const Problem prime = problem("m=127,n=131,k=257,path=mma");
  for (const Config& c : gemm_family().space(prime, d).sample(200, 5)) EXPECT_TRUE(c.boolean("PREDICATED")) << c.key();
  const Problem even = problem("m=1024,n=1024,k=1024,path=mma");
  bool saw_fast = false;
  for (const Config& c : gemm_family().space(even, d).sample(300, 5)) saw_fast |= !c.boolean("PREDICATED");
  EXPECT_TRUE(saw_fast);
}

TEST(GemmDescriptor, AtomicSplitKOnlyForFp32OutputWithoutActivation) {
  const DeviceSpec d = h200();
  for (const Config& c : gemm_family().space(problem("m=256,n=256,k=8192"), d).sample(300, 9))
    EXPECT_NE(c.text("REDUCE"), "atomic") << c.key();
  bool saw_atomic = false;
  for (const Config& c : gemm_family().space(problem("m=256,n=256,k=8192,out=fp32"), d).sample(300, 9)) {
    if (c.text("REDUCE") == "atomic") {
      saw_atomic = true;
      EXPECT_GT(c.integer("SPLIT_K"), 1);
      EXPECT_FALSE(GemmFamily::deterministic(c));
    }
  }
  EXPECT_TRUE(saw_atomic);
}

TEST(GemmDescriptor, StagedCFitsTheRingWithoutSplitAndOnlyOnTheMmaPath) {
  const DeviceSpec d = h200();
  bool saw_staged = false;
  for (const char* text :
       {"m=4096,n=4096,k=4096,path=mma", "m=1000,n=1000,k=1000,dtype=tf32,path=mma",
        "m=512,n=512,k=512,out=fp32,path=mma"}) {
    const Problem p = problem(text);
    const GemmProblem gp = GemmProblem::from(p);
    for (const Config& c : gemm_family().space(p, d).sample(400, 3)) {
      if (!c.boolean("STAGE_C")) continue;
      saw_staged = true;
      const GemmKnobs k = GemmKnobs::from(c);
      EXPECT_EQ(k.split_k, 1) << c.key();
      // The tile of C with rows padded by 16 bytes, in the ring's shared memory.
      EXPECT_LE(static_cast<long long>(k.block_m) * (k.block_n * gp.out_bytes() + 16), GemmFamily::smem_bytes(gp, k))
          << c.key();
      EXPECT_NE(gemm_family().source(p, c).kernels.back().find(", true>"), std::string::npos) << c.key();
    }
  }
  EXPECT_TRUE(saw_staged);
  // 64 x 64 fp32 C (17 KB staged) does not fit one 8 KB stage of 16-deep fp32 tiles; three stages
  // hold it.
  const Problem tf32 = problem("m=512,n=512,k=512,dtype=tf32,path=mma");
  Config c = gemm_family().default_config(tf32, d);
  for (const auto& [name, value] : std::vector<std::pair<const char*, std::int64_t>>{
           {"BLOCK_M", 64}, {"BLOCK_N", 64}, {"BLOCK_K", 16}, {"WARP_M", 32}, {"WARP_N", 32}, {"STAGES", 1}})
    c.set(name, value);
  EXPECT_TRUE(gemm_family().space(tf32, d).is_valid(c)) << c.key();
  c.set("STAGE_C", true);
  EXPECT_FALSE(gemm_family().space(tf32, d).is_valid(c)) << c.key();
  c.set("STAGES", std::int64_t{3});
  EXPECT_TRUE(gemm_family().space(tf32, d).is_valid(c)) << c.key();
  c.set("SPLIT_K", std::int64_t{2});
  EXPECT_FALSE(gemm_family().space(tf32, d).is_valid(c)) << c.key();
  // fp32 on CUDA cores has no such knob.
  for (const Config& simt : gemm_family().space(problem("m=512,n=512,k=512,dtype=fp32"), d).sample(50, 3))
    EXPECT_FALSE(simt.contains("STAGE_C")) << simt.key();
}

TEST(GemmDescriptor, SpaceRespectsDeviceLimits) {
  const DeviceSpec d = h200();
  for (const char* text : {"m=4096,n=4096,k=4096", "m=4096,n=4096,k=4096,dtype=fp32", "m=512,n=512,k=512,dtype=tf32"}) {
    const Problem p = problem(text);
    const GemmProblem gp = GemmProblem::from(p);
    for (const Config& c : gemm_family().space(p, d).sample(300, 1)) {
      const GemmKnobs k = GemmKnobs::from(c);
      EXPECT_LE(k.threads(), d.max_threads_per_block);
      EXPECT_LE(GemmFamily::smem_bytes(gp, k), d.smem_per_block_optin);
      EXPECT_LE(GemmFamily::register_estimate(gp, k), GemmFamily::register_cap(k.threads(), d));
    }
  }
}

TEST(GemmDescriptor, SourceListsKernelsInLaunchOrder) {
  const Problem p = problem("m=256,n=256,k=8192,out=fp32,path=mma");
  Config c = gemm_family().default_config(p, h200());
  EXPECT_EQ(gemm_family().source(p, c).kernels.size(), 1u);
  c.set("SPLIT_K", std::int64_t{4});
  auto ws = gemm_family().source(p, c);
  ASSERT_EQ(ws.kernels.size(), 2u);
  EXPECT_NE(ws.kernels[0].find("gemm_tc<"), std::string::npos);
  EXPECT_NE(ws.kernels[1].find("splitk_reduce<"), std::string::npos);
  c.set("REDUCE", std::string("atomic"));
  auto at = gemm_family().source(p, c);
  ASSERT_EQ(at.kernels.size(), 2u);
  EXPECT_NE(at.kernels[0].find("splitk_prescale<"), std::string::npos);
  EXPECT_NE(at.kernels[1].find("gemm_tc<"), std::string::npos);
}

TEST(GemmDescriptor, EstimateCountsPaddingSplitsAndReuse) {
  const DeviceSpec d = h200();
  const Problem p = problem("m=1000,n=1000,k=1000");
  Config c = gemm_family().default_config(p, d);
  const WorkEstimate w = gemm_family().estimate(p, c, d);
  EXPECT_DOUBLE_EQ(w.flops, 2e9);
  EXPECT_GT(w.executed_flops, w.flops);  // 1000 is not a multiple of 128
  EXPECT_GE(w.dram_bytes, w.min_bytes);
  EXPECT_EQ(w.kernels, 1);
  EXPECT_EQ(w.unit, ComputeUnit::tensor_bf16);
  c.set("SPLIT_K", std::int64_t{4});
  const WorkEstimate split = gemm_family().estimate(p, c, d);
  EXPECT_EQ(split.kernels, 2);
  EXPECT_GT(split.extra_bytes, 0);
  EXPECT_GT(split.blocks, w.blocks);
  EXPECT_EQ(gemm_family().shape_class(problem("m=8,n=8,k=8,lda=9")).find("align=2") != std::string::npos, true);
  // A named path is its own class: path=mma configurations never answer a
  // problem whose path the device picks (wgmma on sm_90), nor the reverse.
  EXPECT_NE(gemm_family().shape_class(problem("m=8,n=8,k=8,path=mma")),
            gemm_family().shape_class(problem("m=8,n=8,k=8")));
  EXPECT_NE(gemm_family().shape_class(problem("m=8,n=8,k=8,path=wgmma")),
            gemm_family().shape_class(problem("m=8,n=8,k=8,path=mma")));
  EXPECT_EQ(gemm_family().shape_class(problem("m=8,n=8,k=8,path=auto")),
            gemm_family().shape_class(problem("m=8,n=8,k=8")));
}

// The main loop the cost model's term model prices, hand-computed.
TEST(GemmDescriptor, EstimateDescribesTheMainLoop) {
  const Problem p = problem("m=4096,n=4096,k=1000,dtype=bf16,path=mma");
  Config c = gemm_family().default_config(p, h200());
  c.set("BLOCK_M", std::int64_t{128});
  c.set("BLOCK_N", std::int64_t{64});
  c.set("BLOCK_K", std::int64_t{32});
  c.set("WARP_M", std::int64_t{64});
  c.set("WARP_N", std::int64_t{32});
  c.set("STAGES", std::int64_t{4});
  c.set("VEC", std::int64_t{8});
  c.set("SPLIT_K", std::int64_t{2});
  c.set("PREDICATED", true);
  ASSERT_TRUE(gemm_family().space(p, h200()).is_valid(c)) << c.key();
  const WorkEstimate w = gemm_family().estimate(p, c, h200());
  EXPECT_EQ(w.loop_blocks, 32 * 64 * 2);
  EXPECT_EQ(w.loop_iterations, 16);  // ceil(ceil(1000 / 32) / 2)
  EXPECT_EQ(w.pipeline_stages, 4);
  // 4 warps (128 threads); (128 + 64) x 32 / 8 = 768 vectors = 6 per thread = 24 warp copies
  EXPECT_DOUBLE_EQ(w.loads_per_iteration, 24);
  EXPECT_TRUE(w.predicated_loads);
  const double executed = 2.0 * 4096 * 4096 * (16 * 32 * 2);
  const double per_flop = 2.0 * (64 + 32) / (2.0 * 64 * 32) + 2.0 * (128 + 64) / (2.0 * 128 * 64);
  EXPECT_NEAR(w.shared_bytes, executed * per_flop, 1e-6 * executed);
  // The wgmma path's loop is not described (the term model falls back to the roofline).
  const Problem nt = problem("m=4096,n=4096,k=1024,layout=nt");
  EXPECT_EQ(gemm_family().estimate(nt, gemm_family().default_config(nt, h200()), h200()).loop_iterations, 0);
}

}  // namespace
}  // namespace ktune
