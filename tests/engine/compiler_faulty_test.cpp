// Every configuration of test_faulty's space compiles with NVRTC for sm_90a
// (CPU only), and its descriptor is consistent with what ptxas reports.
#include <gtest/gtest.h>

#include "compile/compiler.hpp"
#include "kernels_templated/faulty/faulty_family.hpp"
#include "space/space.hpp"

using namespace ktune;

TEST(CompilerFaulty, WholeSpaceCompiles) {
  const KernelFamily& family = find_family("test_faulty");
  DeviceSpec h200 = find_builtin_device("h200").value();
  Problem p = parse_problem(family, "n=100000");
  Space space = family.space(p, h200);
  std::vector<Config> configs = space.enumerate();
  // threads x items x modes x smem_stage: every staged tile fits in 227 KiB.
  ASSERT_EQ(configs.size(), 5u * 5u * std::size(kFaultyModes) * 2u);
  std::vector<KernelSource> sources;
  for (const auto& c : configs) sources.push_back(family.source(p, c));
  Compiler compiler({});
  auto outs = compiler.compile_all(sources);
  for (std::size_t i = 0; i < outs.size(); ++i) {
    ASSERT_TRUE(outs[i].ok) << configs[i].key() << "\n" << outs[i].log;
    ASSERT_EQ(outs[i].kernels.size(), 1u);
    EXPECT_GT(outs[i].kernels[0].registers, 0) << configs[i].key();
    // Under __launch_bounds__(1024) (64 registers) the 16-item variants may spill.
    if (configs[i].integer("threads") < 1024) {
      EXPECT_EQ(outs[i].kernels[0].spill_store_bytes, 0) << configs[i].key();
    }
    EXPECT_EQ(outs[i].kernels[0].static_smem_bytes, 0) << configs[i].key();  // staging is dynamic
    EXPECT_LE(outs[i].kernels[0].registers * configs[i].integer("threads"), h200.regs_per_sm) << configs[i].key();
  }
}

TEST(CompilerFaulty, DescriptorFacts) {
  const KernelFamily& family = find_family("test_faulty");
  EXPECT_THROW(parse_problem(family, "n=0"), ProblemError);
  EXPECT_THROW(parse_problem(family, "n=10,m=3"), ProblemError);
  Problem p = parse_problem(family, "n=1000");
  EXPECT_EQ(family.flops(p), 2000.0);
  EXPECT_EQ(family.min_bytes(p), 8000.0);
  Config c{{"threads", std::int64_t{1024}}, {"items", std::int64_t{16}}, {"mode", std::string("normal")}, {"smem_stage", true}};
  WorkEstimate w = family.estimate(p, c, find_builtin_device("h200").value());
  EXPECT_EQ(w.smem_per_block, 1024 * 16 * 4);  // above 48 KiB: exercises the opt-in path
  EXPECT_EQ(w.blocks, 1);
  EXPECT_EQ(family_source_hash(family).size(), 16u);
  // A device with 48 KiB per block rules the large staged tiles out.
  DeviceSpec small = find_builtin_device("h200").value();
  small.smem_per_block_optin = 48 * 1024;
  std::string why;
  EXPECT_FALSE(family.space(p, small).is_valid(c, &why));
  EXPECT_NE(why.find("shared memory"), std::string::npos) << why;
}
