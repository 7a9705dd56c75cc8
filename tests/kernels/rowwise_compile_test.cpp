// NVRTC compiles a seeded sample of reduce / softmax / rmsnorm configurations
// to sm_90 cubins (no GPU needed): the templates are NVRTC-clean and every
// name expression the launch plans produce exists.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "compile/compiler.hpp"
#include "kernels_templated/family.hpp"
#include "kernels_templated/rowwise/launch_plan.hpp"
#include "kernels_templated/rowwise/rowwise_family.hpp"
#include "space/space.hpp"

using namespace ktune;

namespace {

struct Case {
  const char* family;
  const char* problem;
};

// Each family on an odd shape, a vector-friendly shape and a split-friendly
// long row, in every dtype across the cases.
const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"softmax", "rows=3,cols=17,dtype=bf16"},          {"softmax", "rows=512,cols=4096,dtype=fp16"},
      {"softmax", "rows=4,cols=131072,dtype=fp32"},      {"rmsnorm", "rows=5,cols=1,dtype=fp32"},
      {"rmsnorm", "rows=256,cols=8192,dtype=bf16"},      {"rmsnorm", "rows=2,cols=262144,dtype=fp16"},
      {"reduce", "rows=9,cols=4099,dtype=fp16,op=max"},  {"reduce", "rows=64,cols=65536,dtype=bf16,op=sum"},
      {"reduce", "rows=4096,cols=1024,dtype=fp32,op=sum,axis=rows"},
      {"reduce", "rows=1000,cols=33,dtype=bf16,op=max,axis=rows"},
  };
  return all;
}

}  // namespace

TEST(RowwiseCompile, SeededSampleCompilesToSm90Cubins) {
  CompilerOptions options;
  options.arch = "sm_90";
  Compiler compiler(options);
  const DeviceSpec d = *find_builtin_device("h200");
  std::vector<KernelSource> sources;
  std::vector<std::string> labels;
  std::vector<bool> configs_hold_rows;
  for (const Case& c : cases()) {
    const KernelFamily& f = find_family(c.family);
    const Problem p = parse_problem(f, c.problem);
    const Space s = f.space(p, d);
    std::vector<Config> configs = s.sample(3, 20261129);
    configs.push_back(f.default_config(p, d));
    // One register-held, one shared-memory-held, one cluster, one streaming
    // cluster configuration and (rmsnorm) one block of one row holding its
    // weights where the space has any.
    const std::vector<Config> pool = s.sample(400, 5);
    const std::vector<std::function<bool(const Config&)>> wanted = {
        [](const Config& cfg) { return cfg.text_or("row_cache", "none") == "registers"; },
        [](const Config& cfg) { return cfg.text_or("row_cache", "none") == "smem"; },
        [](const Config& cfg) { return cfg.integer_or("cluster", 1) > 1; },
        [](const Config& cfg) { return cfg.integer_or("cluster", 1) > 1 && cfg.text_or("row_cache", "") == "none"; },
        [](const Config& cfg) { return cfg.text_or("weights", "global") == "smem" && cfg.text_or("grid", "") == "rows"; },
    };
    for (const auto& has : wanted)
      for (const Config& cfg : pool)
        if (has(cfg)) {
          configs.push_back(cfg);
          break;
        }
    for (const Config& cfg : configs) {
      sources.push_back(f.source(p, cfg));
      labels.push_back(std::string(c.family) + " " + c.problem + " " + cfg.key());
      configs_hold_rows.push_back(cfg.text_or("row_cache", "none") != "none");
    }
  }
  const std::vector<CompileOutput> outs = compiler.compile_all(sources);
  ASSERT_EQ(outs.size(), sources.size());
  for (std::size_t i = 0; i < outs.size(); ++i) {
    SCOPED_TRACE(labels[i]);
    ASSERT_TRUE(outs[i].ok) << outs[i].log;
    EXPECT_EQ(outs[i].arch, "sm_90");
    EXPECT_EQ(outs[i].kernels.size(), sources[i].kernels.size());
    for (const auto& k : outs[i].kernels) {
      EXPECT_FALSE(k.lowered_name.empty());
      // A held row (registers or shared memory) that spills defeats its
      // purpose: the space's register budget must rule such configurations out. (Streaming
      // configurations may spill a little under a 1024-thread cap; timing judges them.)
      if (configs_hold_rows[i]) {
        EXPECT_EQ(k.spill_store_bytes, 0) << k.name_expression;
      } else if (k.spill_store_bytes > 0) {
        std::printf("note: %s spills %d bytes\n", k.name_expression.c_str(), k.spill_store_bytes);
      }
    }
  }
}

// The configurations that hold a long row on chip across a cluster (softmax
// 1 MiB bf16 rows: clusters of 8 and 16; rmsnorm 256 KiB bf16 rows: 2..16)
// compile for sm_90a without spills, and their registers let an SM hold as
// many blocks as the launch plan counts on (threads and shared memory): a
// plan that promises 3 blocks per SM where registers allow 1 would leave
// the loads of one row exposed.
TEST(RowwiseCompile, LongRowOnChipClusterConfigsCompileForSm90aWithoutSpills) {
  CompilerOptions options;
  options.arch = "sm_90a";
  Compiler compiler(options);
  const DeviceSpec d = *find_builtin_device("h200");
  std::vector<KernelSource> sources;
  std::vector<std::string> labels;
  std::vector<rowwise::LaunchPlan> plans;
  for (const Case& c : std::vector<Case>{{"softmax", "rows=256,cols=524288,dtype=bf16"},
                                         {"rmsnorm", "rows=1024,cols=131072,dtype=bf16"}}) {
    const auto& f = static_cast<const rowwise::RowwiseFamily&>(find_family(c.family));
    const Problem p = parse_problem(f, c.problem);
    const std::vector<Config> configs = f.on_chip_row_configs(p, d);
    ASSERT_FALSE(configs.empty()) << c.family << " " << c.problem;
    for (const Config& cfg : configs) {
      sources.push_back(f.source(p, cfg));
      labels.push_back(std::string(c.family) + " " + c.problem + " " + cfg.key());
      plans.push_back(rowwise::plan_launch(f.spec(), p, cfg, rowwise::plan_device(d)));
    }
  }
  const std::vector<CompileOutput> outs = compiler.compile_all(sources);
  ASSERT_EQ(outs.size(), sources.size());
  int big_clusters = 0;
  for (std::size_t i = 0; i < outs.size(); ++i) {
    SCOPED_TRACE(labels[i]);
    ASSERT_TRUE(outs[i].ok) << outs[i].log;
    EXPECT_EQ(outs[i].arch, "sm_90a");
    ASSERT_EQ(outs[i].kernels.size(), 1u);
    const auto& k = outs[i].kernels[0];
    EXPECT_EQ(k.spill_store_bytes, 0) << k.name_expression;
    EXPECT_EQ(k.spill_load_bytes, 0) << k.name_expression;
    EXPECT_GT(k.registers, 0);
    // Registers are allocated per warp in units of 256 (8 per thread).
    const long long regs = (k.registers + 7) / 8 * 8;
    EXPECT_LE(regs * plans[i].threads * plans[i].resident_per_sm, 65536)
        << k.registers << " registers x " << plans[i].threads << " threads x " << plans[i].resident_per_sm
        << " blocks per SM";
    if (plans[i].cluster >= 8) ++big_clusters;
  }
  EXPECT_GT(big_clusters, 0);
}

TEST(RowwiseCompile, TemplateFilesExistAndHash) {
  for (const char* name : {"reduce", "softmax", "rmsnorm"}) {
    const KernelFamily& f = find_family(name);
    EXPECT_EQ(family_source_hash(f).size(), 16u) << name;
  }
}
