// CLI tests of the gemm family's fp8 and tf32 problems: fp8 where the wgmma path cannot run it, and
// bad fp8 keys, are usage errors (exit code 2) naming what is wrong; on sm_90 both have a space.
#include <gtest/gtest.h>

#include <string>

#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

using test::ktune;
using test::quote;

std::string space(const char* device, const std::string& problem) {
  return std::string("space --kernel gemm --device ") + device + " --problem " + quote(problem);
}

TEST(GemmDtypesCli, Fp8OffSm90IsAUsageError) {
  auto run = ktune(space("sm_80", "m=64,n=64,k=64,dtype=e4m3,layout=nt"));
  EXPECT_EQ(run.code, 2) << run.output;
  EXPECT_NE(run.output.find("sm_90"), std::string::npos) << run.output;
  auto nn = ktune(space("sm_90", "m=64,n=64,k=64,dtype=e4m3,layout=nn"));
  EXPECT_EQ(nn.code, 2) << nn.output;
  EXPECT_NE(nn.output.find("layout nn"), std::string::npos) << nn.output;
}

TEST(GemmDtypesCli, BadFp8KeysAreUsageErrors) {
  auto zero = ktune(space("sm_90", "m=64,n=64,k=64,dtype=e4m3,layout=nt,scale_a=0"));
  EXPECT_EQ(zero.code, 2) << zero.output;
  EXPECT_NE(zero.output.find("scale_a"), std::string::npos) << zero.output;
  auto bf16 = ktune(space("sm_90", "m=64,n=64,k=64,dtype=bf16,layout=nt,scale_b=2"));
  EXPECT_EQ(bf16.code, 2) << bf16.output;
}

TEST(GemmDtypesCli, Fp8AndTf32HaveWgmmaSpacesOnSm90) {
  for (const char* problem : {"m=4096,n=4096,k=4096,dtype=e4m3,layout=nt,scale_a=0.5",
                              "m=4096,n=4096,k=4096,dtype=tf32,layout=nn"}) {
    auto run = ktune(space("sm_90", problem));
    EXPECT_EQ(run.code, 0) << run.output;
    EXPECT_NE(run.output.find("PATH"), std::string::npos) << run.output;
  }
}

}  // namespace
}  // namespace ktune
