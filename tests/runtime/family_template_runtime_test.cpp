// The generic row-wise call without a GPU (fakes for the compiler, loader and
// launcher): the test family test_center, registered by one line of
// families.def, is keyed, looked up, explained and launched like a shipped
// family; the typed calls are the generic call under another name.
#include <gtest/gtest.h>

#include <filesystem>

#include "compile/compiler.hpp"
#include "db/lookup.hpp"
#include "db/store.hpp"
#include "runtime/call_key.hpp"
#include "runtime_fakes.hpp"
#include "tests/support/ranked_results.hpp"

namespace ktune {
namespace {

using namespace testing_rt;
namespace fs = std::filesystem;

TEST(FamilyTemplateRuntime, TheTypedCallsAreTheGenericCall) {
  rt::CallKey generic;
  ASSERT_TRUE(rt::key_of(RowwiseDesc{"rmsnorm", 64, 4096, DType::bf16, {1e-5}, 1}, &generic).ok());
  EXPECT_TRUE(generic == rt::key_of(RmsnormDesc{64, 4096, DType::bf16, 1e-5}));
  // Past param_count: the family's defaults (eps 1e-6).
  ASSERT_TRUE(rt::key_of(RowwiseDesc{"rmsnorm", 64, 4096, DType::bf16}, &generic).ok());
  EXPECT_TRUE(generic == rt::key_of(RmsnormDesc{64, 4096, DType::bf16, 1e-6}));
  // reduce's parameters: axis (last 0, rows 1), then op (sum 0, max 1).
  ASSERT_TRUE(rt::key_of(RowwiseDesc{"reduce", 8, 512, DType::fp32, {1, 1}, 2}, &generic).ok());
  EXPECT_TRUE(generic ==
              rt::key_of(ReduceDesc{8, 512, DType::fp32, ReduceOp::max, ReduceAxis::rows}));
  EXPECT_EQ(rt::problem_of(generic).key(), "axis=rows,cols=512,dtype=fp32,op=max,rows=8");
  ASSERT_TRUE(rt::key_of(RowwiseDesc{"softmax", 8, 512, DType::fp16}, &generic).ok());
  EXPECT_TRUE(generic == rt::key_of(SoftmaxDesc{8, 512, DType::fp16}));
}

TEST(FamilyTemplateRuntime, TheTestFamilyRunsItsDefaultThroughTheRuntime) {
  auto log = std::make_shared<LaunchLog>();
  auto rt = fake_runtime(std::make_unique<FakeCompiler>(std::make_shared<CompilerCounts>()), log);
  const RowwiseDesc d{"test_center", 64, 4096, DType::bf16};
  Explanation e;
  ASSERT_TRUE(rt->explain(d, &e).ok());
  EXPECT_EQ(e.family, "test_center");
  EXPECT_EQ(e.problem, "cols=4096,dtype=bf16,rows=64");
  EXPECT_EQ(e.how, "default");
  EXPECT_TRUE(find_family("test_center")
                  .space(Problem::parse(e.problem), h200())
                  .is_valid(Config::parse(e.config)));
  ASSERT_TRUE(rt->rowwise(d, fake_ptr(0), nullptr, fake_ptr(2), nullptr).ok());
  ASSERT_EQ(log->launches.size(), 1u);
  EXPECT_EQ(log->launches[0].family->name(), "test_center");
  EXPECT_EQ(log->launches[0].config, e.config);
  // It reads no column vector; a missing input is an error, not a launch.
  const CallStatus s = rt->rowwise(d, nullptr, nullptr, fake_ptr(2), nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("test_center: a null input or output pointer"), std::string::npos)
      << s.message();
  // rmsnorm through the generic call needs its weight.
  const CallStatus w =
      rt->rowwise({"rmsnorm", 64, 4096, DType::bf16}, fake_ptr(0), nullptr, fake_ptr(2), nullptr);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.message().find("rmsnorm: the weight is a null pointer"), std::string::npos)
      << w.message();
  EXPECT_EQ(log->launches.size(), 1u);
}

TEST(FamilyTemplateRuntime, TheTestFamilysMeasuredConfigurationIsLookedUp) {
  const fs::path path = fs::temp_directory_path() /
                        ("ktune_family_template_rt_" + std::to_string(::getpid()) + ".db");
  fs::remove(path);
  const KernelFamily& f = find_family("test_center");
  const Problem p = parse_problem(f, "rows=64,cols=4096,dtype=bf16");
  const std::vector<Config> configs = f.space(p, h200()).sample(2, 3);
  ASSERT_EQ(configs.size(), 2u);
  testing::store_ranked_results(path.string(), f, p, h200(), configs, /*best=*/1);
  auto lookup = std::make_shared<const Lookup>(Lookup::open(path.string()));
  auto rt = fake_runtime(std::make_unique<FakeCompiler>(std::make_shared<CompilerCounts>()),
                         std::make_shared<LaunchLog>(), lookup);
  Explanation e;
  ASSERT_TRUE(rt->explain(RowwiseDesc{"test_center", 64, 4096, DType::bf16}, &e).ok());
  EXPECT_EQ(e.how, "exact (measured on " + h200().name + ")");
  EXPECT_EQ(e.config, configs[1].key());
  fs::remove(path);
}

}  // namespace
}  // namespace ktune
