// The runtime's kernel caches without a GPU: memory hits after the first
// call, one compile for concurrent first callers, the on-disk cubin cache
// across runtimes (real NVRTC), failures kept.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "runtime_fakes.hpp"

namespace ktune {
namespace {

using namespace testing_rt;
namespace fs = std::filesystem;

TEST(RuntimeCache, SecondCallOfAShapeTakesTheKernelFromMemory) {
  auto counts = std::make_shared<CompilerCounts>();
  auto log = std::make_shared<LaunchLog>();
  auto rt = fake_runtime(std::make_unique<FakeCompiler>(counts), log);
  const RmsnormDesc d{64, 4096, DType::bf16, 1e-6};
  ASSERT_TRUE(rt->rmsnorm(d, fake_ptr(0), fake_ptr(1), fake_ptr(2), nullptr).ok());
  ASSERT_TRUE(rt->rmsnorm(d, fake_ptr(0), fake_ptr(1), fake_ptr(2), nullptr).ok());
  EXPECT_EQ(counts->compiles, 1);
  EXPECT_EQ(rt->counts().builds, 1);
  ASSERT_EQ(log->launches.size(), 2u);
  EXPECT_EQ(log->launches[0].config, log->launches[1].config);
  EXPECT_GE(log->launches[0].kernels, 1u);
}

TEST(RuntimeCache, ShapesSharingASourceShareItsKernels) {
  auto counts = std::make_shared<CompilerCounts>();
  auto log = std::make_shared<LaunchLog>();
  auto rt = fake_runtime(std::make_unique<FakeCompiler>(counts), log);
  // No database: both run the family default, whose source does not depend on the row count.
  ASSERT_TRUE(rt->softmax({64, 4096, DType::bf16}, fake_ptr(0), fake_ptr(1), nullptr).ok());
  ASSERT_TRUE(rt->softmax({128, 4096, DType::bf16}, fake_ptr(0), fake_ptr(1), nullptr).ok());
  Explanation a, b;
  ASSERT_TRUE(rt->explain(SoftmaxDesc{64, 4096, DType::bf16}, &a).ok());
  ASSERT_TRUE(rt->explain(SoftmaxDesc{128, 4096, DType::bf16}, &b).ok());
  if (a.config == b.config) {
    EXPECT_EQ(counts->compiles, 1);
    EXPECT_EQ(rt->counts().memory_hits, 1);
  } else {
    EXPECT_EQ(counts->compiles, 2);
  }
}

TEST(RuntimeCache, ConcurrentFirstCallersWaitForOneCompile) {
  auto counts = std::make_shared<CompilerCounts>();
  auto log = std::make_shared<LaunchLog>();
  // The compile takes long enough that every thread arrives while it runs.
  auto rt =
      fake_runtime(std::make_unique<FakeCompiler>(counts, std::chrono::milliseconds(200)), log);
  const GemmDesc d{.m = 512, .n = 512, .k = 512, .dtype = DType::bf16, .layout = Layout::nt};
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      const GemmTensors t{fake_ptr(0), fake_ptr(1), fake_ptr(2), nullptr};
      if (rt->gemm(d, t, reinterpret_cast<cudaStream_t>(fake_ptr(10 + i))).ok()) ++ok;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok, kThreads);
  EXPECT_EQ(counts->compiles, 1);
  EXPECT_EQ(counts->max_in_flight, 1);
  EXPECT_EQ(rt->counts().builds, 1);
  EXPECT_EQ(log->launches.size(), static_cast<std::size_t>(kThreads));
}

TEST(RuntimeCache, AFailedCompileIsAStatusAndIsNotRetried) {
  auto counts = std::make_shared<CompilerCounts>();
  auto log = std::make_shared<LaunchLog>();
  auto rt =
      fake_runtime(std::make_unique<FakeCompiler>(counts, std::chrono::milliseconds(0), true), log);
  const RmsnormDesc d{8, 1024, DType::fp16, 1e-6};
  const CallStatus first = rt->rmsnorm(d, fake_ptr(0), fake_ptr(1), fake_ptr(2), nullptr);
  ASSERT_FALSE(first.ok());
  EXPECT_NE(first.message().find("fake NVRTC: error"), std::string::npos) << first.message();
  EXPECT_FALSE(rt->rmsnorm(d, fake_ptr(0), fake_ptr(1), fake_ptr(2), nullptr).ok());
  EXPECT_EQ(counts->compiles, 1);
  EXPECT_TRUE(log->launches.empty());
}

// Real NVRTC (no GPU needed to compile): a second runtime finds the first
// one's cubin on disk instead of compiling.
TEST(RuntimeCache, ASecondRuntimeReadsTheCubinFromTheDiskCache) {
  const fs::path dir = fs::temp_directory_path() / ("ktune_rt_cache_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  CompilerOptions options;
  options.arch = "sm_90";
  options.cache_dir = dir.string();
  auto log = std::make_shared<LaunchLog>();
  const RmsnormDesc d{4, 256, DType::fp32, 1e-6};
  {
    auto rt = fake_runtime(rt::make_nvrtc_compiler(options), log);
    const CallStatus s = rt->rmsnorm(d, fake_ptr(0), fake_ptr(1), fake_ptr(2), nullptr);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(rt->counts().builds, 1);
    EXPECT_EQ(rt->counts().disk_hits, 0);
  }
  auto again = fake_runtime(rt::make_nvrtc_compiler(options), log);
  ASSERT_TRUE(again->rmsnorm(d, fake_ptr(0), fake_ptr(1), fake_ptr(2), nullptr).ok());
  EXPECT_EQ(again->counts().builds, 1);
  EXPECT_EQ(again->counts().disk_hits, 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ktune
