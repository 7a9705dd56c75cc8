// The runtime runs the database's answer only where the family's space
// accepts it for the problem; otherwise the family default.
#include <gtest/gtest.h>

#include <filesystem>

#include "compile/compiler.hpp"
#include "runtime_fakes.hpp"

namespace ktune {
namespace {

using namespace testing_rt;
namespace fs = std::filesystem;

/// A database with one gemm result at 4096^3 whose configuration the space
/// rejects for m = 4000 (an unpredicated tile that divides 4096 only). fp32:
/// the SIMT path, whose fast path depends on the shape (on the H200 the
/// tensor-core problems take the wgmma path, whose every configuration fits
/// every shape, and the runtime's calls cannot ask for path=mma).
class RuntimeValidity : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() / ("ktune_rt_validity_" + std::to_string(::getpid()) + ".db");
    fs::remove(path_);
    const KernelFamily& gemm = find_family("gemm");
    const Problem measured =
        gemm.normalize(Problem::parse("m=4096,n=4096,k=4096,dtype=fp32,layout=nn"));
    const Problem asked =
        gemm.normalize(Problem::parse("m=4000,n=4096,k=4096,dtype=fp32,layout=nn"));
    const Space at_measured = gemm.space(measured, h200());
    const Space at_asked = gemm.space(asked, h200());
    for (const Config& c : at_measured.sample(400, 7))
      if (!at_asked.is_valid(c)) {
        config_ = c;
        break;
      }
    ASSERT_FALSE(config_.key().empty())
        << "no configuration valid at 4096 and not at 4000 in the sample";
    Store store = Store::open(path_.string());
    RunKey key{h200(), "gemm", "h1", measured, gemm.shape_keys(), gemm.shape_class(measured)};
    Result r;
    r.config = config_;
    r.status = Status::ok;
    r.time.median_s = 1e-3;
    store.record(key, std::vector<Result>{r}, Provenance{});
  }
  void TearDown() override { fs::remove(path_); }

  fs::path path_;
  Config config_;
};

TEST_F(RuntimeValidity, TheMeasuredShapeRunsTheDatabaseAnswer) {
  auto lookup = std::make_shared<const Lookup>(Lookup::open(path_.string()));
  auto rt = fake_runtime(std::make_unique<FakeCompiler>(std::make_shared<CompilerCounts>()),
                         std::make_shared<LaunchLog>(), lookup);
  Explanation e;
  ASSERT_TRUE(
      rt->explain(GemmDesc{.m = 4096, .n = 4096, .k = 4096, .dtype = DType::fp32}, &e).ok());
  EXPECT_EQ(e.how, "exact (measured on " + h200().name + ")");
  EXPECT_EQ(e.config, config_.key());
}

TEST_F(RuntimeValidity, AnotherGpuOfTheArchRunsTheMeasuredAnswerAndSaysWhose) {
  // The database holds H200 rows only; the runtime runs on an H100 SXM.
  auto lookup = std::make_shared<const Lookup>(Lookup::open(path_.string()));
  const DeviceSpec h100 = *find_builtin_device("NVIDIA H100 80GB HBM3");
  for (const bool own_only : {false, true}) {
    Runtime rt(std::make_unique<Runtime::Impl>(
        h100, lookup, std::make_unique<FakeCompiler>(std::make_shared<CompilerCounts>()),
        std::make_unique<FakeLoader>(),
        std::make_unique<FakeLauncher>(std::make_shared<LaunchLog>()), "", own_only));
    Explanation e;
    ASSERT_TRUE(
        rt.explain(GemmDesc{.m = 4096, .n = 4096, .k = 4096, .dtype = DType::fp32}, &e).ok());
    if (own_only) {
      EXPECT_TRUE(e.how == "default" || e.how == "space default") << e.how;
    } else {
      EXPECT_EQ(e.how, "exact (measured on " + h200().name + ")");
      EXPECT_EQ(e.config, config_.key());
    }
  }
}

TEST_F(RuntimeValidity, AnAnswerTheSpaceRejectsFallsBackToTheDefault) {
  auto lookup = std::make_shared<const Lookup>(Lookup::open(path_.string()));
  auto log = std::make_shared<LaunchLog>();
  auto rt =
      fake_runtime(std::make_unique<FakeCompiler>(std::make_shared<CompilerCounts>()), log, lookup);
  const GemmDesc d{.m = 4000, .n = 4096, .k = 4096, .dtype = DType::fp32};
  Explanation e;
  const CallStatus s = rt->explain(d, &e);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_NE(e.config, config_.key());
  EXPECT_TRUE(e.how == "default" || e.how == "space default") << e.how;
  const KernelFamily& gemm = find_family("gemm");
  const Problem p = gemm.normalize(Problem::parse("m=4000,n=4096,k=4096,dtype=fp32,layout=nn"));
  EXPECT_TRUE(gemm.space(p, h200()).is_valid(Config::parse(e.config)));
  ASSERT_TRUE(rt->gemm(d, {fake_ptr(0), fake_ptr(1), fake_ptr(2)}, nullptr).ok());
  ASSERT_EQ(log->launches.size(), 1u);
  EXPECT_EQ(log->launches[0].config, e.config);
}

}  // namespace
}  // namespace ktune

namespace ktune {
namespace {

// The runtime compiles the templates in its kernel folder: it serves results
// measured with that text, not newer results of other text.
TEST(RuntimeTemplates, OnlyResultsOfTheCompiledTemplatesAreServed) {
  const fs::path path =
      fs::temp_directory_path() / ("ktune_rt_templates_" + std::to_string(::getpid()) + ".db");
  fs::remove(path);
  const KernelFamily& gemm = find_family("gemm");
  const Problem p = gemm.normalize(Problem::parse("m=4096,n=4096,k=4096,dtype=bf16,layout=nt"));
  const std::vector<Config> two = gemm.space(p, h200()).sample(2, 5);
  ASSERT_EQ(two.size(), 2u);
  const std::string current = family_source_hash(gemm, p, h200(), Compiler::kernel_dir());
  {
    Store store = Store::open(path.string());
    int i = 0;
    // The current text's result first, then a newer one of other text.
    for (const std::string& hash : {current, std::string("0123456789abcdef")}) {
      Result r;
      r.config = two[i++];
      r.status = Status::ok;
      r.time.median_s = 1e-3;
      store.record({h200(), "gemm", hash, p, gemm.shape_keys(), gemm.shape_class(p)},
                   std::vector<Result>{r}, Provenance{});
    }
  }
  auto lookup = std::make_shared<const Lookup>(Lookup::open(path.string()));
  auto make = [&](std::string kernel_dir) {
    return std::make_unique<Runtime>(std::make_unique<Runtime::Impl>(
        h200(), lookup, std::make_unique<FakeCompiler>(std::make_shared<CompilerCounts>()),
        std::make_unique<FakeLoader>(),
        std::make_unique<FakeLauncher>(std::make_shared<LaunchLog>()), std::move(kernel_dir)));
  };
  const GemmDesc d{.m = 4096, .n = 4096, .k = 4096, .layout = Layout::nt};
  Explanation compiled, newest;
  ASSERT_TRUE(make(Compiler::kernel_dir())->explain(d, &compiled).ok());
  ASSERT_TRUE(make("")->explain(d, &newest).ok());
  EXPECT_EQ(compiled.config, two[0].key());
  EXPECT_EQ(newest.config, two[1].key());
  fs::remove(path);
}

}  // namespace
}  // namespace ktune
