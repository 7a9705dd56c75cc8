// NVRTC's automatic precompiled header (Compiler's default where NVRTC has
// one) must not change what a candidate compiles to: the same cubin sections,
// registers and spills as without it, for real wgmma candidates (the family
// whose headers it saves the most on). Only the names of internal-linkage
// symbols, which carry a per-translation-unit hash, may differ
// (same_machine_code). No GPU needed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "compile/compiler.hpp"
#include "compile/cubin_compare.hpp"
#include "engine/tune_job.hpp"
#include "kernels_templated/gemm/gemm_family.hpp"

namespace ktune {
namespace {

TEST(CompilerPch, WgmmaCandidatesCompileToTheSameCode) {
  const DeviceSpec d = *find_builtin_device("h200");
  const GemmFamily& family = gemm_family();
  const Problem p = parse_problem(family, "m=4096,n=4096,k=4096,layout=nt");
  Space space = family.space(p, d);
  restrict_space(space, {"PATH == 'wgmma'"});
  std::vector<KernelSource> sources;
  for (const Config& c : space.sample(4, 2026)) sources.push_back(family.source(p, c));
  ASSERT_EQ(sources.size(), 4u);

  std::vector<std::vector<CompileOutput>> outputs;
  for (bool pch : {false, true}) {
    CompilerOptions options;
    options.precompiled_headers = pch;
    const auto start = std::chrono::steady_clock::now();
    outputs.push_back(Compiler(options).compile_all(sources));
    std::printf("precompiled headers %s: %zu wgmma candidates in %.2f s\n", pch ? "on" : "off", sources.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const CompileOutput& plain = outputs[0][i];
    const CompileOutput& with_pch = outputs[1][i];
    ASSERT_TRUE(plain.ok) << plain.log.substr(0, 2000);
    ASSERT_TRUE(with_pch.ok) << with_pch.log.substr(0, 2000);
    ASSERT_EQ(plain.kernels.size(), with_pch.kernels.size());
    for (std::size_t k = 0; k < plain.kernels.size(); ++k) {
      EXPECT_EQ(plain.kernels[k].lowered_name, with_pch.kernels[k].lowered_name);
      EXPECT_EQ(plain.kernels[k].registers, with_pch.kernels[k].registers);
      EXPECT_EQ(plain.kernels[k].spill_store_bytes, with_pch.kernels[k].spill_store_bytes);
    }
    std::string why;
    EXPECT_TRUE(same_machine_code(plain.cubin, with_pch.cubin, &why))
        << why << " for " << sources[i].kernels.front();
  }
}

}  // namespace
}  // namespace ktune
