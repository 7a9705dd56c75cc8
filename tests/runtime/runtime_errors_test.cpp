// Error paths of the runtime without a GPU: every failure is a status with a
// message naming what is wrong; nothing aborts or throws.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>

#include "runtime_fakes.hpp"

namespace ktune {
namespace {

using namespace testing_rt;

bool has_gpu() {
  int n = 0;
  const bool yes = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  cudaGetLastError();
  return yes;
}

TEST(RuntimeErrors, OpeningWithoutAGpuIsAStatus) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present";
  std::unique_ptr<Runtime> rt;
  const CallStatus s = Runtime::open({}, &rt);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no CUDA device"), std::string::npos) << s.message();
  EXPECT_EQ(rt, nullptr);
}

TEST(RuntimeErrors, ABadProblemNamesTheKey) {
  auto rt = fake_runtime(std::make_unique<FakeCompiler>(std::make_shared<CompilerCounts>()),
                         std::make_shared<LaunchLog>());
  const CallStatus s =
      rt->gemm({.m = 0, .n = 16, .k = 16}, {fake_ptr(0), fake_ptr(1), fake_ptr(2)}, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'m'"), std::string::npos) << s.message();
  const CallStatus ld = rt->gemm({.m = 16, .n = 16, .k = 16, .lda = 8},
                                 {fake_ptr(0), fake_ptr(1), fake_ptr(2)}, nullptr);
  ASSERT_FALSE(ld.ok());
  EXPECT_NE(ld.message().find("lda"), std::string::npos) << ld.message();
  const CallStatus rows = rt->softmax({0, 128, DType::fp32}, fake_ptr(0), fake_ptr(1), nullptr);
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.message().find("rows"), std::string::npos) << rows.message();
}

TEST(RuntimeErrors, NullPointersAreRefusedBeforeTheLaunch) {
  auto log = std::make_shared<LaunchLog>();
  auto rt = fake_runtime(std::make_unique<FakeCompiler>(std::make_shared<CompilerCounts>()), log);
  EXPECT_FALSE(rt->rmsnorm({8, 256, DType::bf16}, fake_ptr(0), nullptr, fake_ptr(2), nullptr).ok());
  EXPECT_FALSE(rt->softmax({8, 256, DType::bf16}, fake_ptr(0), nullptr, nullptr).ok());
  const CallStatus bias = rt->gemm({.m = 64, .n = 64, .k = 64, .epilogue = Epilogue::bias},
                                   {fake_ptr(0), fake_ptr(1), fake_ptr(2), nullptr}, nullptr);
  ASSERT_FALSE(bias.ok());
  EXPECT_NE(bias.message().find("bias"), std::string::npos) << bias.message();
  EXPECT_TRUE(log->launches.empty());
}

/// Offers the family's default and counts how often it was asked.
class CountingChooser final : public rt::ConfigChooser {
 public:
  explicit CountingChooser(std::shared_ptr<std::atomic<int>> asked) : asked_(std::move(asked)) {}
  std::vector<rt::Choice> candidates(const KernelFamily& family, const Problem& normalized,
                                     const Space& space, const DeviceSpec& device) const override {
    ++*asked_;
    std::vector<rt::Choice> choices;
    rt::append_defaults(choices, family, normalized, space, device);
    return choices;
  }

 private:
  std::shared_ptr<std::atomic<int>> asked_;
};

TEST(RuntimeErrors, AnUnknownFamilyIsAnErrorNotADefault) {
  auto asked = std::make_shared<std::atomic<int>>(0);
  auto log = std::make_shared<LaunchLog>();
  rt::Dispatcher d(h200(), std::make_unique<CountingChooser>(asked),
                   std::make_unique<AnySupplier>(), std::make_unique<FakeLauncher>(log));
  rt::CallKey known = rt::key_of(RmsnormDesc{8, 256, DType::bf16});
  Explanation e;
  ASSERT_TRUE(d.explain(known, &e).ok());  // the fakes serve a known family
  EXPECT_EQ(e.family, "rmsnorm");
  EXPECT_EQ(*asked, 1);

  // Keys that name no registered family of their kind: refused before any
  // lookup, never served by a default family.
  rt::CallKey bad_kind = known;
  bad_kind.kind = static_cast<rt::CallKind>(7);
  rt::CallKey no_family = known;
  no_family.family = nullptr;
  rt::CallKey gemm_as_rowwise = known;
  gemm_as_rowwise.family = rt::key_of(GemmDesc{64, 64, 64}).family;
  for (const rt::CallKey& unknown : {bad_kind, no_family, gemm_as_rowwise}) {
    const CallStatus s = d.explain(unknown, &e);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("without a known family"), std::string::npos) << s.message();
    const CallStatus call = d.call(unknown, {fake_ptr(0), fake_ptr(1), fake_ptr(2)}, nullptr);
    ASSERT_FALSE(call.ok());
    EXPECT_NE(call.message().find("without a known family"), std::string::npos) << call.message();
  }
  EXPECT_EQ(*asked, 1);  // no family was looked up for them, so no configuration either
  EXPECT_TRUE(log->launches.empty());
}

// The generic row-wise call by name: an unknown or non-row-wise family, too
// many parameters or a choice outside the family's are errors that say so.
TEST(RuntimeErrors, AGenericRowwiseCallRefusesWhatItCannotName) {
  rt::CallKey key;
  CallStatus s = rt::key_of(RowwiseDesc{"no_such_family", 8, 256, DType::bf16}, &key);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("unknown kernel family 'no_such_family' (known: "), std::string::npos)
      << s.message();
  s = rt::key_of(RowwiseDesc{"gemm", 8, 256, DType::bf16}, &key);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'gemm' is not row-wise"), std::string::npos) << s.message();
  s = rt::key_of(RowwiseDesc{nullptr, 8, 256, DType::bf16}, &key);
  ASSERT_FALSE(s.ok());
  s = rt::key_of(RowwiseDesc{"softmax", 8, 256, DType::bf16, {1.0}, 1}, &key);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("softmax: 1 parameters given, the family has 0"), std::string::npos)
      << s.message();

  // reduce's op (its second parameter) has two choices: index 2 is refused
  // when the shape is prepared.
  ASSERT_TRUE(rt::key_of(RowwiseDesc{"reduce", 8, 256, DType::bf16, {0, 2}, 2}, &key).ok());
  auto log = std::make_shared<LaunchLog>();
  rt::Dispatcher d(h200(), std::make_unique<CountingChooser>(std::make_shared<std::atomic<int>>(0)),
                   std::make_unique<AnySupplier>(), std::make_unique<FakeLauncher>(log));
  Explanation e;
  s = d.explain(key, &e);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("problem key 'op': no choice 2 (expected 0..1)"), std::string::npos)
      << s.message();
  EXPECT_TRUE(log->launches.empty());
}

TEST(RuntimeErrors, ALaunchFailureComesBackAsItsStatus) {
  auto rt = std::make_unique<Runtime>(std::make_unique<Runtime::Impl>(
      h200(), nullptr, std::make_unique<FakeCompiler>(std::make_shared<CompilerCounts>()),
      std::make_unique<FakeLoader>(),
      std::make_unique<FakeLauncher>(std::make_shared<LaunchLog>(), "cudaErrorNoDevice")));
  const CallStatus s = rt->reduce({16, 512, DType::fp32}, fake_ptr(0), fake_ptr(1), nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "cudaErrorNoDevice");
}

TEST(RuntimeErrors, AMissingOrBrokenDatabaseIsAStatusNamingIt) {
  std::unique_ptr<Runtime> rt;
  RuntimeOptions o;
  o.system_db = "/nonexistent/ktune.db";
  const CallStatus missing = Runtime::open(o, &rt);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("/nonexistent/ktune.db"), std::string::npos)
      << missing.message();
  const std::string junk = ::testing::TempDir() + "ktune_rt_junk.db";
  FILE* f = std::fopen(junk.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("not a database", f);
  std::fclose(f);
  o.system_db = junk;
  const CallStatus broken = Runtime::open(o, &rt);
  EXPECT_FALSE(broken.ok());
  EXPECT_FALSE(broken.message().empty());
  std::remove(junk.c_str());
}

}  // namespace
}  // namespace ktune
