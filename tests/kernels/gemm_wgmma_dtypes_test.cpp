// Tests without a GPU of tf32 and fp8 on the gemm family's wgmma path: the fp8 problem keys and
// their errors, routing, the spaces' K per stage, the transposing copy of tf32's M/N-major
// operands, and the generated source.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compile/compiler.hpp"
#include "engine/tune_job.hpp"
#include "kernels_templated/gemm/gemm_family.hpp"
#include "kernels_templated/gemm/gemm_wgmma_types.hpp"
#include "tests/kernels/gemm_test_problems.hpp"

namespace ktune {
namespace {

using namespace gemm_test;

/// The ProblemError text of normalizing `text` ("" when it is accepted).
std::string refusal(const std::string& text) {
  try {
    problem(text);
  } catch (const ProblemError& e) {
    return e.what();
  }
  return "";
}

/// The ProblemError text of asking for the space of `text` on `d` ("" when there is one).
std::string space_refusal(const std::string& text, const DeviceSpec& d) {
  try {
    gemm_family().space(problem(text), d);
  } catch (const ProblemError& e) {
    return e.what();
  }
  return "";
}

TEST(GemmDtypes, Fp8KeysHaveDefaultsAndAreKeptInTheProblemKey) {
  const Problem p = problem("m=64,n=64,k=64,dtype=e4m3,layout=nt");
  EXPECT_EQ(p.text("out"), "bf16");
  EXPECT_DOUBLE_EQ(p.real("scale_a"), 1.0);
  EXPECT_DOUBLE_EQ(p.real("scale_d"), 1.0);
  const GemmProblem g = typed(
      "m=64,n=64,k=64,dtype=e5m2,layout=nt,out=fp16,scale_a=0.5,scale_b=4,"
      "scale_d=0.25,alpha=3,beta=2");
  EXPECT_EQ(g.in_bytes(), 1);
  EXPECT_EQ(g.out_bytes(), 2);
  EXPECT_EQ(g.out_dtype(), "fp16");
  // cuBLASLt's D = scale_d (alpha scale_a scale_b A B + beta C), folded into what the kernel
  // applies.
  EXPECT_DOUBLE_EQ(g.kernel_alpha(), 0.25 * 3 * 0.5 * 4);
  EXPECT_DOUBLE_EQ(g.kernel_beta(), 0.25 * 2);
  // Other dtypes carry no scale keys and fold nothing.
  EXPECT_FALSE(problem("m=8,n=8,k=8,dtype=bf16").contains("scale_a"));
  EXPECT_DOUBLE_EQ(typed("m=8,n=8,k=8,alpha=2,beta=3").kernel_alpha(), 2.0);
  EXPECT_DOUBLE_EQ(typed("m=8,n=8,k=8,alpha=2,beta=3").kernel_beta(), 3.0);
}

TEST(GemmDtypes, BadFp8KeysAreRefusedByName) {
  EXPECT_NE(refusal("m=8,n=8,k=8,dtype=e4m3,out=same").find("'out=same'"), std::string::npos);
  EXPECT_NE(refusal("m=8,n=8,k=8,dtype=e4m3,out=fp32").find("'out=fp32'"), std::string::npos);
  EXPECT_NE(refusal("m=8,n=8,k=8,dtype=bf16,out=bf16").find("'out=bf16'"), std::string::npos);
  EXPECT_NE(refusal("m=8,n=8,k=8,dtype=bf16,scale_a=2").find("fp8"), std::string::npos);
  EXPECT_NE(refusal("m=8,n=8,k=8,dtype=e4m3,scale_b=0").find("'scale_b'"), std::string::npos);
  EXPECT_NE(refusal("m=8,n=8,k=8,dtype=e4m3,scale_a=x").find("'scale_a'"), std::string::npos);
  EXPECT_NE(refusal("m=8,n=8,k=8,dtype=e4m3,scale_d=2,epilogue=bias").find("scale_d"),
            std::string::npos);
  EXPECT_NE(refusal("m=8,n=8,k=8,dtype=e4m4").find("'dtype=e4m4'"), std::string::npos);
  EXPECT_EQ(refusal("m=8,n=8,k=8,dtype=e4m3,scale_d=2,beta=1"), "");
}

TEST(GemmDtypes, Tf32AndFp8GoToWgmmaOnSm90) {
  const DeviceSpec h200 = device("h200"), a100 = device("sm_80");
  // tf32 in every layout (M/N-major operands are transposed first); path=mma keeps mma.sync.
  for (const char* layout : {"nt", "nn", "tn", "tt"}) {
    const std::string text = std::string("m=100,n=96,k=72,dtype=tf32,layout=") + layout;
    EXPECT_TRUE(GemmFamily::uses_wgmma(typed(text), h200)) << text;
    EXPECT_FALSE(GemmFamily::uses_wgmma(typed(text + ",path=mma"), h200)) << text;
    EXPECT_FALSE(gemm_family()
                     .space(problem(text + ",path=mma"), h200)
                     .sample(1, 1)
                     .front()
                     .contains("PATH"));
    EXPECT_FALSE(GemmFamily::uses_wgmma(typed(text), a100)) << text;
  }
  EXPECT_TRUE(GemmFamily::uses_wgmma(typed("m=64,n=64,k=64,dtype=e4m3,layout=nt"), h200));
  EXPECT_TRUE(GemmFamily::uses_wgmma(typed("m=64,n=64,k=64,dtype=e5m2,layout=nt,out=fp16"), h200));
  // fp32 stays on CUDA cores, and says so when wgmma is asked for.
  EXPECT_FALSE(GemmFamily::uses_wgmma(typed("m=64,n=64,k=64,dtype=fp32,layout=nt"), h200));
  EXPECT_NE(
      space_refusal("m=64,n=64,k=64,dtype=fp32,layout=nt,path=wgmma", h200).find("CUDA cores"),
      std::string::npos);
}

TEST(GemmDtypes, Fp8WithoutTheWgmmaPathIsAProblemError) {
  const DeviceSpec h200 = device("h200"), a100 = device("sm_80");
  EXPECT_NE(space_refusal("m=64,n=64,k=64,dtype=e4m3,layout=nt", a100).find("sm_90"),
            std::string::npos);
  EXPECT_NE(space_refusal("m=64,n=64,k=64,dtype=e4m3,layout=nn", h200).find("layout nn"),
            std::string::npos);
  EXPECT_NE(space_refusal("m=64,n=64,k=64,dtype=e4m3,layout=nt,path=mma", h200).find("path=mma"),
            std::string::npos);
  EXPECT_THROW(gemm_family().default_config(problem("m=64,n=64,k=64,dtype=e5m2,layout=nt"), a100),
               ProblemError);
}

TEST(GemmDtypes, SpacesTakeOne128ByteRowOfKPerStage) {
  const DeviceSpec h200 = device("h200");
  const struct {
    const char* problem;
    int block_k;
  } cases[] = {{"m=4096,n=4096,k=4096,dtype=tf32,layout=nt", 32},
               {"m=4096,n=4096,k=4096,dtype=e4m3,layout=nt", 128},
               {"m=4096,n=4096,k=4096,dtype=bf16,layout=nt", 64}};
  for (const auto& c : cases) {
    const Problem p = problem(c.problem);
    const GemmProblem gp = GemmProblem::from(p);
    const Space s = gemm_family().space(p, h200);
    std::size_t count = 0;
    for (const Config& config : s.sample(200, 7)) {
      ++count;
      const GemmKnobs k = GemmKnobs::from(config);
      EXPECT_EQ(k.block_k, c.block_k) << c.problem;
      EXPECT_EQ(k.block_k * gp.in_bytes(), 128) << c.problem;
      EXPECT_LE(GemmFamily::smem_bytes(gp, k), h200.smem_per_block_optin) << config.key();
    }
    EXPECT_EQ(count, 200u) << c.problem;
    EXPECT_TRUE(s.is_valid(gemm_family().default_config(p, h200))) << c.problem;
  }
  // The traits table agrees: 32 bytes of K per instruction, 128 per stage.
  using ktune_gemm::WgmmaType;
  for (WgmmaType t :
       {WgmmaType::bf16, WgmmaType::fp16, WgmmaType::tf32, WgmmaType::e4m3, WgmmaType::e5m2}) {
    const auto traits = ktune_gemm::wgmma_traits(t);
    EXPECT_EQ(traits.instr_k * traits.bytes, 32);
    EXPECT_EQ(traits.row_elems * traits.bytes, 128);
  }
}

TEST(GemmDtypes, Tf32TransposesItsMOrNMajorOperandToKMajor) {
  const DeviceSpec h200 = device("h200");
  auto geometry_of = [&](const std::string& text) {
    const Problem p = problem(text);
    const Config c = gemm_family().default_config(p, h200);
    return GemmFamily::geometry(GemmProblem::from(p), GemmKnobs::from(c));
  };
  // nn: B (K x N, N-major) becomes N x K with rows of K rounded up to 16 bytes.
  const GemmGeometry nn = geometry_of("m=100,n=96,k=70,dtype=tf32,layout=nn");
  EXPECT_FALSE(nn.transpose_a);
  EXPECT_TRUE(nn.transpose_b);
  EXPECT_FALSE(nn.repack_b);
  EXPECT_EQ(nn.kernel_ldb, 72);
  EXPECT_EQ(nn.packed_b_elems, 96 * 72);
  // A is K-major as stored; its ld of 70 (280 bytes) is misaligned, so REPACK copies it (next
  // test).
  EXPECT_TRUE(nn.repack_a);
  // tn: A (K x M, M-major) becomes M x K; tt: A only; nt: nothing.
  const GemmGeometry tn = geometry_of("m=100,n=96,k=72,dtype=tf32,layout=tn");
  EXPECT_TRUE(tn.transpose_a && tn.transpose_b);
  EXPECT_EQ(tn.kernel_lda, 72);
  EXPECT_EQ(tn.packed_a_elems, 100 * 72);
  const GemmGeometry tt = geometry_of("m=100,n=96,k=72,dtype=tf32,layout=tt");
  EXPECT_TRUE(tt.transpose_a);
  EXPECT_FALSE(tt.transpose_b || tt.repack_b);
  const GemmGeometry nt = geometry_of("m=100,n=96,k=72,dtype=tf32,layout=nt");
  EXPECT_FALSE(nt.transpose_a || nt.transpose_b || nt.repack_a || nt.repack_b);
  // The mma.sync path reads every layout as stored.
  const GemmGeometry mma = geometry_of("m=100,n=96,k=72,dtype=tf32,layout=nn,path=mma");
  EXPECT_FALSE(mma.transpose_a || mma.transpose_b);
}

TEST(GemmDtypes, RepackIsOfferedOnlyForAMisalignedOperandReadAsStored) {
  const DeviceSpec h200 = device("h200");
  // tn: lda (M-major A) is misaligned, but A is transposed anyway: no REPACK knob.
  const Problem transposed = problem("m=101,n=96,k=72,dtype=tf32,layout=tn");
  EXPECT_FALSE(gemm_family().space(transposed, h200).sample(1, 1).front().contains("REPACK"));
  // nn: lda = 70 (K-major A, read as stored) is misaligned: REPACK=true, and both copies run.
  const Problem nn = problem("m=100,n=96,k=70,dtype=tf32,layout=nn");
  const Config c = gemm_family().default_config(nn, h200);
  EXPECT_TRUE(c.boolean("REPACK"));
  const GemmGeometry g = GemmFamily::geometry(GemmProblem::from(nn), GemmKnobs::from(c));
  EXPECT_TRUE(g.repack_a && g.transpose_b);
  EXPECT_EQ(g.kernel_lda, 72);
  const KernelSource s = gemm_family().source(nn, c);
  ASSERT_EQ(s.kernels.size(), 3u);
  EXPECT_EQ(s.kernels[0], "ktune_gemm::repack_rows<float>");
  EXPECT_EQ(s.kernels[1], "ktune_gemm::repack_transpose<float>");
  EXPECT_EQ(s.kernels[2].rfind("ktune_gemm::gemm_wgmma<float, float, ", 0), 0u) << s.kernels[2];
  EXPECT_EQ(gemm_family().estimate(nn, c, h200).kernels, 3);
}

TEST(GemmDtypes, EveryConfigurationReadsRowsTmaCanAddress) {
  // Random shapes, layouts and leading dimensions (aligned, a few elements
  // off, or a round number more): the default is in the space, and every
  // sampled configuration hands the main kernel 16-byte rows of K-major operands.
  const DeviceSpec h200 = device("h200");
  std::uint64_t state = 38;
  auto next = [&](std::uint64_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<long long>((state >> 33) % bound);
  };
  for (int i = 0; i < 60; ++i) {
    const bool fp8 = i % 3 == 2;
    const std::string layout =
        fp8 ? "nt" : std::vector<std::string>{"nn", "nt", "tn", "tt"}[next(4)];
    const long long m = 1 + next(300), n = 1 + next(300), k = 1 + next(300);
    auto ld = [&](long long tight) {
      return tight + std::vector<long long>{0, 0, 1 + next(7), 64}[next(4)];
    };
    const std::string text = "m=" + std::to_string(m) + ",n=" + std::to_string(n) +
                             ",k=" + std::to_string(k) + ",layout=" + layout +
                             (fp8 ? ",dtype=e4m3,scale_b=3" : ",dtype=tf32") +
                             ",lda=" + std::to_string(ld(layout[0] == 't' ? m : k)) +
                             ",ldb=" + std::to_string(ld(layout[1] == 't' ? k : n));
    const Problem p = problem(text);
    const GemmProblem gp = GemmProblem::from(p);
    const Space s = gemm_family().space(p, h200);
    std::vector<Config> configs = s.sample(5, 100 + i);
    configs.push_back(gemm_family().default_config(p, h200));
    EXPECT_TRUE(s.is_valid(configs.back())) << text;
    for (const Config& c : configs) {
      const GemmGeometry g = GemmFamily::geometry(gp, GemmKnobs::from(c));
      EXPECT_EQ(g.kernel_lda * gp.in_bytes() % 16, 0) << text << " " << c.key();
      EXPECT_EQ(g.kernel_ldb * gp.in_bytes() % 16, 0) << text << " " << c.key();
      // The kernel reads A as M x K and B as N x K rows.
      EXPECT_GE(g.kernel_lda, k) << text;
      EXPECT_GE(g.kernel_ldb, k) << text;
    }
  }
}

TEST(GemmDtypes, SourceNamesTheElementTypes) {
  const DeviceSpec h200 = device("h200");
  auto main_kernel = [&](const std::string& text) {
    const Problem p = problem(text);
    return gemm_family().source(p, gemm_family().default_config(p, h200)).kernels.back();
  };
  EXPECT_EQ(main_kernel("m=4096,n=4096,k=4096,dtype=e4m3,layout=nt")
                .rfind("ktune_gemm::gemm_wgmma<__nv_fp8_e4m3, __nv_bfloat16, ", 0),
            0u);
  EXPECT_EQ(main_kernel("m=4096,n=4096,k=4096,dtype=e5m2,layout=nt,out=fp16")
                .rfind("ktune_gemm::gemm_wgmma<__nv_fp8_e5m2, __half, ", 0),
            0u);
  // The bf16 text is what it was before the traits (the shipped database's sources hash it).
  EXPECT_EQ(main_kernel("m=4096,n=4096,k=4096,dtype=bf16,layout=nt"),
            "ktune_gemm::gemm_wgmma<__nv_bfloat16, __nv_bfloat16, 128, 128, 64, 4, 1, 1, 8, 0, 0, "
            "false, false>");
  // The traits header versions the wgmma path's results.
  const auto files =
      gemm_family().template_files_for(problem("m=8,n=8,k=8,dtype=e4m3,layout=nt"), h200);
  EXPECT_NE(std::find(files.begin(), files.end(), "gemm/gemm_wgmma_types.hpp"), files.end());
}

TEST(GemmDtypes, GeneratedWrappersAreCurrentWithTheTraitsTable) {
  // tools/gen_wgmma_ops.py parses gemm_wgmma_types.hpp: its output must be the
  // committed gemm_wgmma_ops.cuh (a reformatted table the script cannot read, or a
  // hand edit, fails here).
  const std::filesystem::path gemm = std::filesystem::path(Compiler::kernel_dir()) / "gemm";
  const std::string command =
      "python3 '" + (gemm / "tools" / "gen_wgmma_ops.py").string() + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string generated;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    generated.append(buffer, n);
  const int status = pclose(pipe);
  if (WEXITSTATUS(status) == 127) GTEST_SKIP() << "python3 is not installed";
  ASSERT_EQ(status, 0) << generated;
  std::ifstream committed(gemm / "gemm_wgmma_ops.cuh");
  std::stringstream text;
  text << committed.rdbuf();
  EXPECT_TRUE(generated == text.str())
      << "regenerate: python3 kernels_templated/gemm/tools/gen_wgmma_ops.py > "
         "kernels_templated/gemm/gemm_wgmma_ops.cuh";
}

}  // namespace
}  // namespace ktune
