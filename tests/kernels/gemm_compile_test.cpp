// CI test without a GPU: NVRTC compiles seeded samples of the gemm paths to
// sm_90a cubins, and the descriptor's constraint model agrees with ptxas
// (every accepted config compiles; predicted spill-free ones do not spill;
// registers x threads and shared memory fit the H200).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "compile/compiler.hpp"
#include "engine/tune_job.hpp"
#include "kernels_templated/gemm/gemm_family.hpp"

namespace ktune {
namespace {

struct Sample {
  const char* problem;
  std::size_t count;
  std::uint64_t seed;
  const char* require = nullptr;  ///< optional sub-space (a --require expression)
};

void compile_samples(const std::vector<Sample>& samples) {
  const DeviceSpec d = *find_builtin_device("h200");
  const GemmFamily& family = gemm_family();
  std::vector<Problem> problems;
  std::vector<Config> configs;
  std::vector<KernelSource> sources;
  for (const Sample& s : samples) {
    const Problem p = parse_problem(family, s.problem);
    Space space = family.space(p, d);
    if (s.require) restrict_space(space, {s.require});
    const auto sample = space.sample(s.count, s.seed);
    ASSERT_EQ(sample.size(), s.count) << s.problem;
    for (const Config& c : sample) {
      problems.push_back(p);
      configs.push_back(c);
      sources.push_back(family.source(p, c));
    }
  }
  Compiler compiler(CompilerOptions{});
  const auto outputs = compiler.compile_all(sources);
  ASSERT_EQ(outputs.size(), sources.size());
  int spill_free_predicted = 0;
  int odd16 = 0, odd16_min_regs = 1 << 30, odd16_max_regs = 0;  // wgmma BLOCK_N = 16 (mod 32)
  std::set<int> odd16_widths;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& out = outputs[i];
    const std::string what = problems[i].key() + " / " + configs[i].key();
    ASSERT_TRUE(out.ok) << what << "\n" << out.log.substr(0, 3000);
    ASSERT_EQ(out.kernels.size(), sources[i].kernels.size()) << what;
    const GemmProblem gp = GemmProblem::from(problems[i]);
    const GemmKnobs k = GemmKnobs::from(configs[i]);
    // ptxas's C7515: it serializes every wgmma of the kernel when registers
    // that feed a wgmma are written by other instructions inside the main
    // loop (the kernel then runs at a fraction of its speed, and verifies).
    // Two inlined copies of the main loop in one kernel are enough to trip it.
    if (k.wgmma) {
      EXPECT_EQ(out.log.find("C7515"), std::string::npos) << what << "\n" << out.log.substr(0, 3000);
    }
    // The main kernel is the one named gemm_*; the others are small helpers.
    for (const auto& r : out.kernels) {
      const bool main = r.name_expression.find("::gemm_") != std::string::npos;
      const int threads = main ? k.threads() : 256;
      EXPECT_LE(r.registers * threads, d.regs_per_sm) << what << " " << r.name_expression;
      EXPECT_LE(r.registers, d.max_regs_per_thread) << what;
      if (main && k.wgmma && k.block_n % 32 == 16) {
        ++odd16;
        odd16_widths.insert(k.block_n);
        odd16_min_regs = std::min(odd16_min_regs, r.registers);
        odd16_max_regs = std::max(odd16_max_regs, r.registers);
      }
      if (main) {
        EXPECT_LE(GemmFamily::smem_bytes(gp, k) + r.static_smem_bytes, d.smem_per_block_optin) << what;
        if (GemmFamily::predicted_spill_free(problems[i], configs[i], d)) {
          ++spill_free_predicted;
          EXPECT_EQ(r.spill_store_bytes + r.spill_load_bytes, 0)
              << what << ": predicted spill-free, ptxas reports " << r.registers << " registers, "
              << r.spill_store_bytes << " bytes spill stores (estimate "
              << GemmFamily::register_estimate(gp, k) << ")";
        }
      } else {
        EXPECT_EQ(r.spill_store_bytes + r.spill_load_bytes, 0) << what << " " << r.name_expression;
      }
    }
  }
  // The check must not be vacuous: the model has to vouch for a fair share
  // (it makes no claim for element-wise copies or estimates near the cap).
  std::printf("gemm compile: %zu configurations compiled, %d predicted spill-free and checked\n", outputs.size(),
              spill_free_predicted);
  if (odd16 > 0) {
    std::string widths;
    for (int w : odd16_widths) widths.append(widths.empty() ? "" : " ").append(std::to_string(w));
    std::printf("gemm compile: %d wgmma configurations with BLOCK_N an odd multiple of 16 (%s), %d..%d registers\n",
                odd16, widths.c_str(), odd16_min_regs, odd16_max_regs);
  }
  EXPECT_GE(spill_free_predicted, static_cast<int>(outputs.size()) / 3);
}

TEST(GemmCompile, SimtFp32SampleCompilesWithoutSpills) {
  compile_samples({{"m=4096,n=4096,k=4096,dtype=fp32", 36, 101},
                   {"m=127,n=131,k=257,dtype=fp32,layout=tn,epilogue=bias_relu,beta=1", 10, 102},
                   {"m=1000,n=999,k=1001,dtype=fp32,layout=nt,lda=1003", 8, 103}});
}

TEST(GemmCompile, TensorCoreBf16SampleCompilesWithoutSpills) {
  compile_samples({{"m=4096,n=4096,k=4096", 34, 201},
                   {"m=127,n=131,k=257,layout=tt,out=fp32,epilogue=bias_gelu", 8, 202},
                   {"m=4100,n=4100,k=4100,layout=nt", 8, 203},
                   {"m=100,n=200,k=300,lda=301,layout=tn", 4, 204}});
}

TEST(GemmCompile, WgmmaSampleCompilesWithoutSpills) {
  compile_samples({{"m=4096,n=4096,k=4096,layout=nt", 30, 401},
                   {"m=127,n=131,k=257,layout=nt,out=fp32,epilogue=bias_gelu", 8, 402},
                   {"m=128,n=4096,k=4096,layout=nt,dtype=fp16", 8, 403},
                   {"m=1000,n=1000,k=1000,layout=nt,beta=1,epilogue=bias", 6, 404},
                   {"m=4096,n=4096,k=4096,layout=nt", 6, 405, "PINGPONG"},
                   {"m=1000,n=1000,k=1000,layout=nt,out=fp32,epilogue=bias_relu", 4, 406, "PINGPONG"},
                   {"m=4096,n=4096,k=4096,layout=nt", 6, 407, "STAGE_C"},
                   {"m=127,n=131,k=257,layout=nt,out=fp32,beta=1,epilogue=bias_gelu", 4, 408, "STAGE_C"},
                   // BLOCK_N an odd multiple of 16 (wgmma N in steps of 16): a partial last
                   // staging pass, B halves of an odd number of 8-row atoms multicast, 40-120
                   // accumulators.
                   {"m=4096,n=4096,k=4096,layout=nt", 6, 409, "BLOCK_N % 32 == 16"},
                   {"m=512,n=11008,k=4096,layout=nt", 2, 410,
                    "BLOCK_M == 128 && BLOCK_N == 176 && WARP_M == 64 && STAGE_C && PERSISTENT"},
                   {"m=127,n=131,k=257,layout=nt,out=fp32,beta=1,epilogue=bias_gelu", 2, 411,
                    "BLOCK_M == 128 && BLOCK_N == 176 && WARP_M == 64 && STAGE_C"},
                   {"m=4096,n=4096,k=4096,layout=nt", 2, 412, "BLOCK_M == 128 && BLOCK_N == 208 && CLUSTER_M == 2"},
                   {"m=1000,n=1000,k=1000,layout=nt,dtype=fp16", 2, 413, "BLOCK_M == 128 && BLOCK_N == 112 && PINGPONG"},
                   {"m=1000,n=1000,k=1000,layout=nt,out=fp32,epilogue=bias", 2, 414, "BLOCK_N == 240 && STAGE_C"},
                   // BLOCK_N an odd multiple of 8 (wgmma N in steps of 8): 168 is cuBLAS's
                   // tile at 512 x 11008; a staging pass of 40 columns (8 for fp32 C).
                   {"m=4096,n=4096,k=4096,layout=nt", 6, 415, "BLOCK_N % 16 == 8"},
                   {"m=512,n=11008,k=4096,layout=nt", 2, 416,
                    "BLOCK_M == 128 && BLOCK_N == 168 && WARP_M == 64 && STAGE_C && PERSISTENT"},
                   {"m=127,n=131,k=257,layout=nt,out=fp32,beta=1,epilogue=bias_gelu", 2, 417,
                    "BLOCK_N % 16 == 8 && STAGE_C"},
                   // A cluster along N: each block loads half of the A tile and multicasts it.
                   {"m=512,n=4096,k=4096,layout=nt", 6, 418, "CLUSTER_N == 2"},
                   {"m=1000,n=1000,k=1000,layout=nt,out=fp32,epilogue=bias", 2, 419, "CLUSTER_N == 2 && PINGPONG"}});
}

TEST(GemmCompile, WgmmaOtherLayoutsSampleCompilesWithoutSpills) {
  // MN-major operands: A stored K x M (tn, tt), B stored K x N (nn, tn), read by
  // the transposing wgmma from column blocks of 64 elements, one TMA box each.
  compile_samples(
      {{"m=4096,n=4096,k=4096,layout=nn", 10, 501},
       {"m=4096,n=4096,k=4096,layout=tn", 8, 502},
       {"m=4096,n=4096,k=4096,layout=tt", 8, 503},
       {"m=509,n=383,k=257,layout=nn,dtype=fp16,out=fp32,beta=1,epilogue=bias_gelu", 3, 504},
       {"m=509,n=383,k=257,layout=tt,dtype=fp16", 3, 505},
       {"m=509,n=383,k=257,layout=tn,out=fp32,epilogue=bias", 2, 506, "SPLIT_K > 1"},
       // Misaligned leading dimensions: the repack kernel first.
       {"m=1000,n=1000,k=1000,layout=tn,lda=1003,ldb=1001", 2, 507},
       {"m=4096,n=4096,k=4096,layout=nn", 3, 508, "PINGPONG"},
       {"m=4096,n=4096,k=4096,layout=tn", 2, 509, "PINGPONG && STAGE_C"},
       {"m=4096,n=4096,k=4096,layout=tt", 3, 510, "PERSISTENT && STAGE_C && !PINGPONG"},
       // Clusters: an MN-major operand's share is half the K-rows of each
       // column block (B along M in nn, A along N in tn and tt, A of one
       // column block when BLOCK_M = 64), a K-major one's half its rows.
       {"m=512,n=4096,k=4096,layout=nn", 3, 511, "CLUSTER_M == 2"},
       {"m=512,n=4096,k=4096,layout=tn", 3, 512, "CLUSTER_N == 2"},
       {"m=512,n=4096,k=4096,layout=tt", 2, 513, "CLUSTER_N == 2 && BLOCK_M == 64"},
       {"m=4096,n=4096,k=4096,layout=tt", 2, 514, "CLUSTER_M == 2 && BLOCK_N == 208"},
       {"m=1000,n=1000,k=1000,layout=nn,out=fp32,epilogue=bias", 2, 515,
        "CLUSTER_M == 2 && PINGPONG"},
       // A K-major B of odd widths beside an M-major A (tt).
       {"m=512,n=11008,k=4096,layout=tt", 2, 516, "BLOCK_N == 168 && STAGE_C && PERSISTENT"}});
}

TEST(GemmCompile, TensorCoreFp16AndTf32SamplesCompile) {
  compile_samples({{"m=512,n=512,k=512,dtype=fp16,out=fp32", 5, 301},
                   {"m=512,n=512,k=512,dtype=tf32,path=mma", 5, 302}});
}

TEST(GemmCompile, WgmmaTf32AndFp8SamplesCompileWithoutSpills) {
  compile_samples(
      {// tf32: 32 K per stage, k8 instructions; layouts other than nt add the transposing copy.
       {"m=4096,n=4096,k=4096,layout=nt,dtype=tf32", 8, 501},
       {"m=127,n=131,k=257,layout=nn,dtype=tf32,beta=1,epilogue=bias_gelu", 2, 502},
       {"m=1000,n=999,k=1001,layout=tt,dtype=tf32,ldb=1003", 2, 503},
       {"m=4096,n=4096,k=4096,layout=tn,dtype=tf32", 2, 504, "STAGE_C && PERSISTENT"},
       {"m=4096,n=4096,k=4096,layout=nt,dtype=tf32", 2, 505, "PINGPONG || CLUSTER_M == 2"},
       // fp8: 128 K per stage, k32 instructions, bf16 or fp16 C.
       {"m=4096,n=4096,k=4096,layout=nt,dtype=e4m3", 8, 511},
       {"m=127,n=131,k=257,layout=nt,dtype=e4m3,out=fp16,scale_a=0.5,scale_b=4,scale_d=2,beta=1", 2,
        512},
       {"m=1000,n=1000,k=1000,layout=nt,dtype=e5m2,epilogue=bias_relu", 2, 513, "STAGE_C"},
       {"m=4096,n=4096,k=4096,layout=nt,dtype=e4m3", 2, 514, "PINGPONG || CLUSTER_N == 2"}});
}

}  // namespace
}  // namespace ktune
