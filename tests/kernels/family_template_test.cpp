// The test family test_center (kernels_templated/test_center/, one line of
// families.def) without a GPU: registered only for the tests, its space and
// launch plans come from the shared row-wise code, and NVRTC compiles every
// phase of its kernel (fused, split, cluster, linked, rows held on chip).
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "compile/compiler.hpp"
#include "kernels_templated/family.hpp"
#include "kernels_templated/rowwise/rowwise_family.hpp"
#include "space/space.hpp"

namespace ktune {
namespace {

TEST(FamilyTemplate, IsRegisteredForTheTestsOnly) {
  const std::vector<std::string> with = family_names();
  EXPECT_NE(std::find(with.begin(), with.end(), "test_center"), with.end());
  EXPECT_NE(family_names_text().find("test_center"), std::string::npos);
  ASSERT_EQ(unsetenv(kTestFamiliesEnv), 0);
  const std::vector<std::string> without = family_names();
  EXPECT_EQ(std::find(without.begin(), without.end(), "test_center"), without.end());
  EXPECT_THROW(find_family("test_center"), std::invalid_argument);
  ASSERT_EQ(setenv(kTestFamiliesEnv, "1", 1), 0);
  EXPECT_EQ(rowwise::find_rowwise_family("test_center").name(), "test_center");
}

TEST(FamilyTemplate, ItsDescriptorComesFromItsSpec) {
  const KernelFamily& f = find_family("test_center");
  EXPECT_EQ(f.template_files().back(), "test_center/test_center.cuh");
  EXPECT_EQ(f.problem_help(), "rows,cols>=1; dtype=fp32|bf16|fp16");
  const Problem p = parse_problem(f, "rows=64,cols=4096,dtype=bf16");
  EXPECT_EQ(f.shape_class(p), "bf16.a16");
  EXPECT_THROW(parse_problem(f, "rows=64,cols=4096,dtype=bf16,eps=1"), ProblemError);
  EXPECT_DOUBLE_EQ(f.flops(p), 2.0 * 64 * 4096);
  EXPECT_DOUBLE_EQ(f.min_bytes(p), 2.0 * 2 * 64 * 4096);  // read once, written once
  const KernelSource s = f.source(p, f.default_config(p, *find_builtin_device("h200")));
  EXPECT_NE(s.source.find("#include \"kernels_templated/test_center/test_center.cuh\""),
            std::string::npos);
  ASSERT_FALSE(s.kernels.empty());
  EXPECT_EQ(s.kernels[0].rfind("ktune_rw::test_center_kernel<", 0), 0u) << s.kernels[0];
}

TEST(FamilyTemplate, EveryPhaseCompilesToSm90) {
  CompilerOptions options;
  options.arch = "sm_90a";
  Compiler compiler(options);
  const DeviceSpec d = *find_builtin_device("h200");
  const auto& f = rowwise::find_rowwise_family("test_center");
  std::vector<KernelSource> sources;
  std::vector<std::string> labels;
  for (const char* shape : {"rows=5,cols=33,dtype=fp32", "rows=256,cols=8192,dtype=bf16",
                            "rows=64,cols=262144,dtype=fp16"}) {
    const Problem p = parse_problem(f, shape);
    const Space s = f.space(p, d);
    std::vector<Config> configs = {f.default_config(p, d)};
    const std::vector<Config> pool = s.sample(400, 5);
    const std::vector<std::function<bool(const Config&)>> wanted = {
        [](const Config& c) { return c.text("row_cache") == "registers"; },
        [](const Config& c) {
          return c.text("row_cache") == "smem" && c.text("grid") == "persistent";
        },
        [](const Config& c) {
          return c.integer("split") > 1 && c.text("split_combine") == "second_kernel";
        },
        [](const Config& c) { return c.integer("cluster") > 1; },
    };
    for (const auto& has : wanted)
      for (const Config& c : pool)
        if (has(c)) {
          configs.push_back(c);
          break;
        }
    for (const Config& c : f.on_chip_row_configs(p, d))
      if (c.text("split_combine") == "in_kernel") {
        configs.push_back(c);
        break;
      }
    for (const Config& c : configs) {
      sources.push_back(f.source(p, c));
      labels.push_back(std::string(shape) + " " + c.key());
      // The plan's kernels are the source's, in launch order.
      const rowwise::LaunchPlan plan =
          rowwise::plan_launch(f.spec(), p, c, rowwise::plan_device(d));
      ASSERT_EQ(plan.kernels.size(), sources.back().kernels.size());
    }
  }
  EXPECT_GE(sources.size(), 8u);
  const std::vector<CompileOutput> outs = compiler.compile_all(sources);
  ASSERT_EQ(outs.size(), sources.size());
  for (std::size_t i = 0; i < outs.size(); ++i) {
    SCOPED_TRACE(labels[i]);
    ASSERT_TRUE(outs[i].ok) << outs[i].log;
    EXPECT_EQ(outs[i].kernels.size(), sources[i].kernels.size());
  }
}

}  // namespace
}  // namespace ktune
