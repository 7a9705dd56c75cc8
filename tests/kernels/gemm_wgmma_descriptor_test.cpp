// Tests of the gemm family's Hopper path without a GPU: when the descriptor
// routes a problem to wgmma, the path's space and constraints, its default,
// geometry (persistent grid) and generated source.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "engine/sweep.hpp"
#include "engine/tune_job.hpp"
#include "kernels_templated/gemm/gemm_family.hpp"
#include "kernels_templated/gemm/gpu/gemm_launch.hpp"
#include "ktune_test_paths.hpp"
#include "tests/kernels/gemm_test_problems.hpp"

namespace ktune {
namespace {

using namespace gemm_test;

TEST(GemmWgmma, RoutedOnlyWhereTheHopperPathApplies) {
  const DeviceSpec h200 = device("h200");
  EXPECT_TRUE(GemmFamily::uses_wgmma(typed("m=4096,n=4096,k=4096,layout=nt"), h200));
  EXPECT_TRUE(GemmFamily::uses_wgmma(typed("m=7,n=9,k=24,layout=nt,dtype=fp16,out=fp32"), h200));
  // Each reason is named.
  EXPECT_NE(GemmFamily::wgmma_unavailable_reason(typed("m=64,n=64,k=64,layout=nt"), device("sm_80"))
                .find("sm_90"),
            std::string::npos);
  EXPECT_NE(GemmFamily::wgmma_unavailable_reason(typed("m=64,n=64,k=64,layout=nn,dtype=e4m3"), h200)
                .find("layout"),
            std::string::npos);
  EXPECT_NE(GemmFamily::wgmma_unavailable_reason(typed("m=64,n=64,k=64,layout=nt,dtype=fp32"), h200)
                .find("CUDA cores"),
            std::string::npos);
  // Leading dimensions TMA cannot address are served by repacking, not refused.
  EXPECT_TRUE(GemmFamily::uses_wgmma(typed("m=64,n=64,k=64,layout=nt,lda=68"), h200));
  EXPECT_TRUE(GemmFamily::uses_wgmma(typed("m=1,n=1,k=1,layout=nt"), h200));
  // path=mma declines it; path=wgmma where impossible is a clear error.
  EXPECT_FALSE(GemmFamily::uses_wgmma(typed("m=4096,n=4096,k=4096,layout=nt,path=mma"), h200));
  try {
    gemm_family().space(problem("m=64,n=64,k=64,layout=nn,dtype=e4m3,path=wgmma"), h200);
    FAIL() << "path=wgmma with fp8 in layout nn must be refused";
  } catch (const ProblemError& e) {
    EXPECT_NE(std::string(e.what()).find("K-major"), std::string::npos) << e.what();
  }
}

TEST(GemmWgmma, EveryLayoutIsServedInBf16AndFp16) {
  const DeviceSpec h200 = device("h200");
  for (const char* layout : {"nn", "nt", "tn", "tt"})
    for (const char* dtype : {"bf16", "fp16"}) {
      const std::string text =
          std::string("m=509,n=383,k=257,layout=") + layout + ",dtype=" + dtype;
      SCOPED_TRACE(text);
      const GemmProblem p = typed(text);
      EXPECT_EQ(GemmFamily::wgmma_unavailable_reason(p, h200), "");
      EXPECT_TRUE(GemmFamily::uses_wgmma(p, h200));
      // The default configuration is the wgmma path's, and valid.
      const Config def = gemm_family().default_config(problem(text), h200);
      EXPECT_EQ(def.text_or("PATH", "mma"), "wgmma");
      EXPECT_TRUE(gemm_family().space(problem(text), h200).is_valid(def)) << def.key();
      // path=mma keeps the mma.sync space for comparison, in every layout.
      EXPECT_FALSE(GemmFamily::uses_wgmma(typed(text + ",path=mma"), h200));
      EXPECT_FALSE(
          gemm_family().default_config(problem(text + ",path=mma"), h200).contains("PATH"));
      // The path's files version the results, whatever the layout.
      const auto files = gemm_family().template_files_for(problem(text), h200);
      EXPECT_NE(std::find(files.begin(), files.end(), "gemm/gemm_wgmma.cuh"), files.end());
    }
  // Other devices keep the mma.sync path in every layout, and so does fp32 (CUDA cores).
  for (const char* layout : {"nn", "tn", "tt"}) {
    const std::string l = std::string(",layout=") + layout;
    EXPECT_FALSE(GemmFamily::uses_wgmma(typed("m=64,n=64,k=64" + l), device("sm_80"))) << layout;
    EXPECT_FALSE(GemmFamily::uses_wgmma(typed("m=64,n=64,k=64,dtype=fp32" + l), h200)) << layout;
  }
}

TEST(GemmWgmma, PathAutoIsNotStoredInTheProblemKey) {
  // Problems recorded before the key existed keep their key.
  EXPECT_FALSE(problem("m=8,n=8,k=8").contains("path"));
  EXPECT_EQ(problem("m=8,n=8,k=8,path=mma").text("path"), "mma");
}

TEST(GemmWgmma, SpaceHoldsOnlyRunnableConfigurations) {
  const DeviceSpec h200 = device("h200");
  const Problem p = problem("m=4096,n=4096,k=4096,layout=nt");
  const Space s = gemm_family().space(p, h200);
  const GemmProblem gp = GemmProblem::from(p);
  std::size_t count = 0, pingpong = 0, staged = 0;
  std::set<int> widths;
  for (const Config& c : s.enumerate()) {
    ++count;
    const GemmKnobs k = GemmKnobs::from(c);
    EXPECT_TRUE(k.wgmma);
    // Pingpong: two consumers, each owning the whole tile of a persistent grid.
    const int consumers = k.pingpong ? 2 : k.block_m / k.warp_m;
    if (k.pingpong) {
      ++pingpong;
      EXPECT_EQ(k.warp_m, k.block_m) << c.key();
      EXPECT_TRUE(k.persistent) << c.key();
    }
    if (k.stage_c) {
      ++staged;
      EXPECT_EQ(k.split_k, 1) << c.key();
    }
    EXPECT_TRUE(consumers == 1 || consumers == 2) << c.key();
    EXPECT_LE(k.cluster(), 2) << c.key();
    if (k.cluster_m == 2) {
      EXPECT_EQ(k.block_n % 16, 0) << c.key();  // B halves of whole 8-row atoms
    }
    widths.insert(k.block_n);
    EXPECT_LE((k.warp_m / 64) * (k.block_n / 2), 128) << c.key();
    EXPECT_LE(GemmFamily::smem_bytes(gp, k), h200.smem_per_block_optin) << c.key();
    EXPECT_EQ(k.threads(), 128 * (consumers + 1)) << c.key();
  }
  EXPECT_GT(count, 500u);
  EXPECT_GT(pingpong, 0u);
  EXPECT_GT(staged, 0u);
  // Every wgmma N (steps of 8), so tile counts can fit the SMs (e.g. 128 x 168).
  std::set<int> steps_of_8;
  for (int n = 64; n <= 256; n += 8) steps_of_8.insert(n);
  EXPECT_EQ(widths, steps_of_8);
  EXPECT_TRUE(s.is_valid(gemm_family().default_config(p, h200)));
  // The mma.sync space stays reachable for the same problem.
  const Space mma = gemm_family().space(problem("m=4096,n=4096,k=4096,layout=nt,path=mma"), h200);
  EXPECT_FALSE(mma.sample(1, 1).front().contains("PATH"));
}

TEST(GemmWgmma, AnNMajorBTakesWholeSwizzleAtomsOfColumns) {
  // B stored K x N (layouts nn, tn) is read in column blocks of 64 N-elements,
  // the 128-byte swizzle atom of an MN-major operand: BLOCK_N in steps of 64.
  // A K-major B (nt, tt) keeps every wgmma N in steps of 8.
  const DeviceSpec h200 = device("h200");
  std::set<int> steps_of_8, steps_of_64 = {64, 128, 192, 256};
  for (int n = 64; n <= 256; n += 8) steps_of_8.insert(n);
  for (const char* layout : {"nn", "nt", "tn", "tt"}) {
    const Problem p = problem(std::string("m=4096,n=4096,k=4096,layout=") + layout);
    const Space s = gemm_family().space(p, h200);
    std::set<int> widths;
    std::size_t count = 0, clusters_m = 0, clusters_n = 0, pingpong = 0, staged = 0;
    for (const Config& c : s.enumerate()) {
      const GemmKnobs k = GemmKnobs::from(c);
      widths.insert(k.block_n);
      ++count;
      clusters_m += k.cluster_m == 2;
      clusters_n += k.cluster_n == 2;
      pingpong += k.pingpong;
      staged += k.stage_c;
    }
    EXPECT_EQ(widths, GemmProblem::from(p).b_t() ? steps_of_8 : steps_of_64) << layout;
    // Every variant of the kernel is offered in every layout.
    EXPECT_GT(count, 100u) << layout;
    EXPECT_GT(clusters_m, 0u) << layout;
    EXPECT_GT(clusters_n, 0u) << layout;
    EXPECT_GT(pingpong, 0u) << layout;
    EXPECT_GT(staged, 0u) << layout;
  }
  // A width of 168 is a start for nt, not for nn.
  Config c = gemm_family().default_config(problem("m=512,n=11008,k=4096,layout=nt"), h200);
  c.set("BLOCK_N", std::int64_t{168});
  EXPECT_TRUE(gemm_family().space(problem("m=512,n=11008,k=4096,layout=nt"), h200).is_valid(c));
  EXPECT_FALSE(gemm_family().space(problem("m=512,n=11008,k=4096,layout=nn"), h200).is_valid(c));
}

TEST(GemmWgmma, SourceNamesHowEachOperandIsStored) {
  // nt keeps its kernel (the cubins of its stored results stay the same);
  // the other layouts name A M-major (stored K x M) and B N-major (stored K x N).
  const DeviceSpec h200 = device("h200");
  const std::string args =
      "__nv_bfloat16, __nv_bfloat16, 128, 128, 64, 4, 1, 1, 8, 0, 0, false, false";
  const std::pair<const char*, std::string> expected[] = {
      {"nt", "ktune_gemm::gemm_wgmma<" + args + ">"},
      {"nn", "ktune_gemm::gemm_wgmma_layout<" + args + ", false, true>"},
      {"tn", "ktune_gemm::gemm_wgmma_layout<" + args + ", true, true>"},
      {"tt", "ktune_gemm::gemm_wgmma_layout<" + args + ", true, false>"}};
  for (const auto& [layout, kernel] : expected) {
    const Problem p = problem(std::string("m=512,n=512,k=512,layout=") + layout);
    const KernelSource s = gemm_family().source(p, gemm_family().default_config(p, h200));
    ASSERT_EQ(s.kernels.size(), 1u) << layout;
    EXPECT_EQ(s.kernels[0], kernel);
    EXPECT_TRUE(s.needs_arch_specific) << layout;
  }
}

TEST(GemmWgmma, TensorMapsFollowHowEachOperandIsStored) {
  // m=300, n=200, k=128 in layout tn: A stored K x M (M-major), B stored K x N
  // (N-major); in tt, B stored N x K (K-major).
  const DeviceSpec h200 = device("h200");
  const int a = 1, b = 2;  // stand-in addresses
  for (const char* layout : {"tn", "tt"}) {
    SCOPED_TRACE(layout);
    const Problem p = problem(std::string("m=300,n=200,k=128,lda=304,layout=") + layout);
    Config c = gemm_family().default_config(p, h200);
    c.set("BLOCK_M", std::int64_t{128});
    c.set("BLOCK_N", std::int64_t{128});
    const GemmProblem gp = GemmProblem::from(p);
    GemmKnobs k = GemmKnobs::from(c);
    const GemmGeometry g = GemmFamily::geometry(gp, k);
    const TmaOperandKey ma = wgmma_operand_map(gp, k, g, false, &a);
    // M-major A: K rows of M columns, boxes of 64 K-rows by 64 M-elements.
    EXPECT_EQ(ma, (TmaOperandKey{&a, 128, 300, 304, 9, 2, 64, 64}));
    const TmaOperandKey mb = wgmma_operand_map(gp, k, g, true, &b);
    if (gp.b_t()) {  // K-major B: N rows of K, boxes of the tile's 128 rows by 64 K-elements
      EXPECT_EQ(mb, (TmaOperandKey{&b, 200, 128, 128, 9, 2, 128, 64}));
    } else {  // N-major B: K rows of N, boxes of 64 K-rows by 64 N-elements
      EXPECT_EQ(mb, (TmaOperandKey{&b, 128, 200, 200, 9, 2, 64, 64}));
    }
    // Shared along N in a cluster pair: each block loads half the K-rows of A's
    // column blocks; shared along M: half of B's K-rows (N-major) or rows (K-major).
    k.cluster_n = 2;
    EXPECT_EQ(wgmma_operand_map(gp, k, g, false, &a).box_rows, 32);
    k.cluster_n = 1;
    k.cluster_m = 2;
    EXPECT_EQ(wgmma_operand_map(gp, k, g, true, &b).box_rows, gp.b_t() ? 64 : 32);
  }
  // Layout nt keeps its maps: rows of the tile (or half of them) by 64 K-elements.
  const Problem nt = problem("m=300,n=200,k=128,layout=nt,dtype=fp16");
  const GemmProblem gp = GemmProblem::from(nt);
  GemmKnobs k = GemmKnobs::from(gemm_family().default_config(nt, h200));
  k.cluster_n = 2;
  const GemmGeometry g = GemmFamily::geometry(gp, k);
  EXPECT_EQ(wgmma_operand_map(gp, k, g, false, &a),
            (TmaOperandKey{&a, 300, 128, 128, 6, 2, 64, 64}));
  EXPECT_EQ(wgmma_operand_map(gp, k, g, true, &b),
            (TmaOperandKey{&b, 200, 128, 128, 6, 2, 128, 64}));
  // tf32 B stored K x N (layout nn) is read from its K-major copy (N x K, rows
  // of the copy's leading dimension), FLOAT32 words, 32 K-elements per box row.
  const Problem tf32 = problem("m=300,n=200,k=128,layout=nn,dtype=tf32");
  const GemmProblem tp = GemmProblem::from(tf32);
  const GemmKnobs tk = GemmKnobs::from(gemm_family().default_config(tf32, h200));
  const GemmGeometry tg = GemmFamily::geometry(tp, tk);
  ASSERT_TRUE(tg.transpose_b);
  ASSERT_FALSE(tg.transpose_a);
  EXPECT_EQ(wgmma_operand_map(tp, tk, tg, true, &b),
            (TmaOperandKey{&b, 200, 128, tg.kernel_ldb, 7, 4,
                           static_cast<int>(tk.block_n / tk.cluster_m), 32}));
  EXPECT_EQ(
      wgmma_operand_map(tp, tk, tg, false, &a),
      (TmaOperandKey{&a, 300, 128, 128, 7, 4, static_cast<int>(tk.block_m / tk.cluster_n), 32}));
}

TEST(GemmWgmma, MisalignedOperandsAreRepackedInEveryLayout) {
  // TMA needs 16-byte strides whichever way an operand is stored; a repacked
  // operand's rows are its stored rows (K of them when A is stored K x M).
  const DeviceSpec h200 = device("h200");
  const Problem p = problem("m=300,n=260,k=1000,layout=tn,lda=1001,ldb=1000");
  const Space s = gemm_family().space(p, h200);
  const Config def = gemm_family().default_config(p, h200);
  EXPECT_TRUE(s.is_valid(def));
  EXPECT_TRUE(def.boolean("REPACK"));
  for (const Config& c : s.sample(30, 3)) EXPECT_TRUE(c.boolean("REPACK")) << c.key();
  const GemmGeometry g = GemmFamily::geometry(GemmProblem::from(p), GemmKnobs::from(def), 132);
  EXPECT_TRUE(g.repack_a);
  EXPECT_FALSE(g.repack_b);
  EXPECT_EQ(g.kernel_lda, 304);  // M = 300 rounded up to 8 elements (16 bytes)
  EXPECT_EQ(g.packed_a_elems, 1000 * 304);
  const KernelSource src = gemm_family().source(p, def);
  ASSERT_EQ(src.kernels.size(), 2u);
  EXPECT_EQ(src.kernels[0], "ktune_gemm::repack_rows<__nv_bfloat16>");
}

TEST(GemmWgmma, BenchSweepStartsAreInTheirSpacesOnTheH200) {
  // A start key outside its problem's space stops a sweep before it tunes
  // anything, on the GPU machine: check the bench's sweep files here.
  // (`ktune sweep FILE --dry-run --device h200` makes the same check.)
  const DeviceSpec h200 = device("h200");
  const std::filesystem::path bench = std::filesystem::path(KTUNE_TEST_DATA_DIR) / ".." / ".." / "bench";
  std::size_t starts = 0;
  for (const auto& entry : std::filesystem::directory_iterator(bench)) {
    if (entry.path().extension() != ".json") continue;
    const SweepFile sweep = read_sweep(entry.path());
    for (const SweepItem& item : sweep.items) starts += item.spec.start.size();
    for (const std::string& refused : check_items_on_device(sweep.items, h200))
      ADD_FAILURE() << entry.path().filename() << " " << refused;
  }
  EXPECT_GT(starts, 0u);
}

TEST(GemmWgmma, StagedEpilogueBuffersCountAgainstSharedMemory) {
  const DeviceSpec h200 = device("h200");
  const Problem p = problem("m=4096,n=4096,k=4096,layout=nt");
  const Space s = gemm_family().space(p, h200);
  Config c = gemm_family().default_config(p, h200);
  c.set("BLOCK_M", std::int64_t{128});
  c.set("BLOCK_N", std::int64_t{128});
  c.set("WARP_M", std::int64_t{128});
  c.set("PERSISTENT", true);
  c.set("PINGPONG", true);
  c.set("STAGES", std::int64_t{7});
  ASSERT_TRUE(s.is_valid(c)) << c.key();
  // Seven 32 KB stages leave less than the 16 KB two pingpong consumers stage C in.
  c.set("STAGE_C", true);
  EXPECT_FALSE(s.is_valid(c)) << c.key();
  c.set("STAGES", std::int64_t{6});
  EXPECT_TRUE(s.is_valid(c)) << c.key();
  const GemmProblem gp = GemmProblem::from(p);
  GemmKnobs staged = GemmKnobs::from(c);
  GemmKnobs direct = staged;
  direct.stage_c = false;
  EXPECT_EQ(GemmFamily::smem_bytes(gp, staged) - GemmFamily::smem_bytes(gp, direct), 1024 + 2 * 4 * 4096);
  // Split-K partials are not finished C.
  c.set("SPLIT_K", std::int64_t{2});
  EXPECT_FALSE(s.is_valid(c)) << c.key();
}

TEST(GemmWgmma, MisalignedOperandsAreAlwaysRepacked) {
  const DeviceSpec h200 = device("h200");
  const Problem p = problem("m=4096,n=4096,k=4096,layout=nt,lda=4097,ldb=4097,ldc=4097");
  const Space s = gemm_family().space(p, h200);
  const Config def = gemm_family().default_config(p, h200);
  EXPECT_TRUE(s.is_valid(def));
  EXPECT_TRUE(def.boolean("REPACK"));
  for (const Config& c : s.sample(50, 2)) EXPECT_TRUE(c.boolean("REPACK")) << c.key();
  const GemmGeometry g = GemmFamily::geometry(GemmProblem::from(p), GemmKnobs::from(def), 132);
  EXPECT_TRUE(g.repack_a && g.repack_b);
  EXPECT_EQ(g.kernel_lda, 4096);
  const KernelSource src = gemm_family().source(p, def);
  ASSERT_EQ(src.kernels.size(), 2u);
  EXPECT_EQ(src.kernels[0], "ktune_gemm::repack_rows<__nv_bfloat16>");
  // Aligned problems keep the space without the knob.
  EXPECT_FALSE(gemm_family().default_config(problem("m=64,n=64,k=64,layout=nt"), h200).contains("REPACK"));
}

TEST(GemmWgmma, PersistentGridIsCappedBySmCount) {
  const GemmProblem p = typed("m=4096,n=4096,k=4096,layout=nt");
  Config c = gemm_family().default_config(problem("m=4096,n=4096,k=4096,layout=nt"), device("h200"));
  GemmKnobs k = GemmKnobs::from(c);
  EXPECT_EQ(GemmFamily::geometry(p, k, 132).grid_x, 32 * 32);
  c.set("PERSISTENT", true);
  k = GemmKnobs::from(c);
  EXPECT_TRUE(k.persistent);
  EXPECT_EQ(GemmFamily::geometry(p, k, 132).grid_x, 132);
  EXPECT_EQ(GemmFamily::geometry(p, k, 0).grid_x, 32 * 32);  // SM count unknown: one block per tile
  // Clusters of two: whole clusters, and an odd tile-row count rounds up.
  c.set("CLUSTER_M", std::int64_t{2});
  k = GemmKnobs::from(c);
  EXPECT_EQ(GemmFamily::geometry(p, k, 131).grid_x, 130);
  const GemmProblem odd = typed("m=300,n=256,k=64,layout=nt");  // 3 tile rows of 128, 2 tile columns
  c.set("PERSISTENT", false);
  EXPECT_EQ(GemmFamily::geometry(odd, GemmKnobs::from(c), 132).grid_x, 4 * 2);
}

TEST(GemmWgmma, ClusterAlongNPairsTileColumns) {
  const Problem raw = problem("m=512,n=11008,k=4096,layout=nt");
  const Space s = gemm_family().space(raw, device("h200"));
  Config c = gemm_family().default_config(raw, device("h200"));
  c.set("CLUSTER_N", std::int64_t{2});
  EXPECT_NO_THROW(s.check(c));
  EXPECT_EQ(gemm_family().source(raw, c).kernels[0],
            "ktune_gemm::gemm_wgmma<__nv_bfloat16, __nv_bfloat16, 128, 128, 64, 4, 1, 2, 8, 0, 0, false, false>");
  // 4 tile rows x 86 tile columns (11008 / 128), in clusters of two columns: 43 per tile row.
  GemmKnobs k = GemmKnobs::from(c);
  EXPECT_EQ(k.cluster(), 2);
  EXPECT_EQ(GemmFamily::geometry(typed("m=512,n=11008,k=4096,layout=nt"), k, 132).grid_x, 4 * 86);
  // An odd tile-column count rounds up to whole clusters (the partner past N writes nothing).
  EXPECT_EQ(GemmFamily::geometry(typed("m=256,n=300,k=64,layout=nt"), k, 132).grid_x, 2 * 4);
  // Clusters hold two blocks: not along M and N at once.
  c.set("CLUSTER_M", std::int64_t{2});
  EXPECT_FALSE(s.is_valid(c));
  // A B tile shared along M splits into whole 8-row atoms: BLOCK_N = 168 only without CLUSTER_M.
  c.set("CLUSTER_N", std::int64_t{1});
  c.set("BLOCK_N", std::int64_t{168});
  EXPECT_FALSE(s.is_valid(c));
  c.set("CLUSTER_M", std::int64_t{1});
  EXPECT_NO_THROW(s.check(c));
  c.set("CLUSTER_N", std::int64_t{2});
  EXPECT_NO_THROW(s.check(c));
  // A configuration stored before the knob reads as CLUSTER_N = 1.
  Config old = gemm_family().default_config(raw, device("h200"));
  old.erase("CLUSTER_N");
  EXPECT_EQ(GemmKnobs::from(old).cluster_n, 1);
}

TEST(GemmWgmma, SourceNamesTheWgmmaKernelAndAsksForSm90a) {
  const Problem p = problem("m=300,n=300,k=304,layout=nt,out=fp32,epilogue=bias");
  Config c = gemm_family().default_config(p, device("h200"));
  c.set("SPLIT_K", std::int64_t{2});
  c.set("REDUCE", std::string("atomic"));
  const KernelSource s = gemm_family().source(p, c);
  EXPECT_TRUE(s.needs_arch_specific);
  ASSERT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(s.kernels[0], "ktune_gemm::splitk_prescale<1>");
  EXPECT_EQ(s.kernels[1], "ktune_gemm::gemm_wgmma<__nv_bfloat16, float, 128, 128, 64, 4, 1, 1, 8, 2, 1, false, false>");
  EXPECT_NE(s.source.find("gemm_wgmma.cuh"), std::string::npos);
}

}  // namespace
}  // namespace ktune
