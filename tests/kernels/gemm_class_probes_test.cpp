// GemmFamily::class_probes: below 16-byte alignment a shape class mixes
// problems whose A, B or C alone is misaligned; the probes cover each
// combination, so an ahead-of-time library that compiles every probe's
// default has a fallback for any problem of the class.
#include <gtest/gtest.h>

#include <vector>

#include "kernels_templated/family.hpp"
#include "kernels_templated/gemm/gemm_family.hpp"

namespace ktune {
namespace {

TEST(GemmClassProbes, EveryProblemOfAMisalignedClassHasAProbeDefaultThatFits) {
  const KernelFamily& gemm = find_family("gemm");
  const DeviceSpec h200 = *find_builtin_device("h200");
  // The measured representative: every leading dimension odd (all repacked).
  const Problem measured = gemm.normalize(
      parse_problem(gemm, "m=4096,n=4096,k=4096,dtype=bf16,layout=nt,lda=4097,ldb=4097,ldc=4097"));
  const std::vector<Problem> probes = gemm.class_probes(measured);
  EXPECT_EQ(probes.size(), 7u);
  std::vector<Config> defaults;
  for (const Problem& p : probes) {
    EXPECT_EQ(gemm.shape_class(p), gemm.shape_class(measured)) << p.key();
    defaults.push_back(gemm.default_config(p, h200));
  }
  // Problems of the class the representative's default does not fit (only C
  // misaligned: no operand to repack), each served by some probe's default.
  for (const char* text : {"m=96,n=14335,k=4096,dtype=bf16,layout=nt",
                           "m=512,n=4096,k=4097,dtype=bf16,layout=nt,ldb=4104",
                           "m=100,n=200,k=300,dtype=bf16,layout=nt,lda=301,ldc=208"}) {
    const Problem q = gemm.normalize(parse_problem(gemm, text));
    ASSERT_EQ(gemm.shape_class(q), gemm.shape_class(measured)) << text;
    const Space space = gemm.space(q, h200);
    bool fits = false;
    for (const Config& c : defaults) fits = fits || space.is_valid(c);
    EXPECT_TRUE(fits) << text;
  }
  EXPECT_FALSE(
      gemm.space(gemm.normalize(parse_problem(gemm, "m=96,n=14335,k=4096,dtype=bf16,layout=nt")),
                 h200)
          .is_valid(gemm.default_config(measured, h200)));
}

TEST(GemmClassProbes, AnAlignedClassIsItsOwnProbe) {
  const KernelFamily& gemm = find_family("gemm");
  const Problem p =
      gemm.normalize(parse_problem(gemm, "m=4096,n=4096,k=4096,dtype=bf16,layout=nt"));
  const std::vector<Problem> probes = gemm.class_probes(p);
  ASSERT_EQ(probes.size(), 1u);
  EXPECT_EQ(probes.front().key(), p.key());
}

}  // namespace
}  // namespace ktune
