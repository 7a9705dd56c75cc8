// The emitted router as the dispatcher's chooser (no GPU): exact shape, then
// group, then general, then default; a route runs only where its kernels are
// compiled in and the family's space accepts it.
#include <gtest/gtest.h>

#include "emit/splitter.hpp"
#include "runtime/emit_keys.hpp"
#include "runtime/router.hpp"
#include "runtime_fakes.hpp"

namespace ktune {
namespace {

using namespace testing_rt;

/// Tables routing rmsnorm bf16 problems: an exact route for 64 x 4096, a
/// group route for the medium-row group, a general and a default per class.
class RouterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const KernelFamily& f = find_family("rmsnorm");
    const Problem exact = f.normalize(Problem::parse("rows=64,cols=4096,dtype=bf16"));
    const Problem medium = f.normalize(Problem::parse("rows=64,cols=8192,dtype=bf16"));
    const Space space = f.space(exact, h200());
    const auto sample = space.sample(50, 3);
    // Three configurations valid for every problem used below (distinct).
    for (const Config& c : sample) {
      bool everywhere = true;
      for (const char* text : {"rows=64,cols=4096,dtype=bf16", "rows=64,cols=8192,dtype=bf16",
                               "rows=8,cols=4096,dtype=bf16", "rows=8,cols=2048,dtype=bf16"})
        everywhere = everywhere && f.space(f.normalize(Problem::parse(text)), h200()).is_valid(c);
      if (everywhere) configs_.push_back(c.key());
      if (configs_.size() == 3) break;
    }
    ASSERT_EQ(configs_.size(), 3u);
    const std::string shape_class = f.shape_class(exact);
    group_ = rt::emit_group_key(f, medium);
    routes_ = {{"rmsnorm", "default", "", ""},  // filled below
               {"rmsnorm", "exact", "", ""},
               {"rmsnorm", "group", "", ""},
               {"rmsnorm", "general", "", ""}};
    texts_ = {shape_class, f.default_config(exact, h200()).key(),
              exact.key(), configs_[0],
              group_,      configs_[1],
              shape_class, configs_[2]};
    for (std::size_t i = 0; i < routes_.size(); ++i) {
      routes_[i].match = texts_[2 * i].c_str();
      routes_[i].config = texts_[2 * i + 1].c_str();
    }
    // Compiled: every route's source for every problem the tests ask.
    for (const char* text : {"rows=64,cols=4096,dtype=bf16", "rows=64,cols=8192,dtype=bf16",
                             "rows=8,cols=4096,dtype=bf16", "rows=8,cols=2048,dtype=bf16"})
      for (const EmittedRoute& r : routes_) {
        const Problem p = f.normalize(Problem::parse(text));
        hashes_.push_back(
            stable_hash_hex(rt::kernel_source_key(f.source(p, Config::parse(r.config)))));
      }
    for (const std::string& h : hashes_) kernels_.push_back({h.c_str(), nullptr, 0});
    for (const EmittedKernel& k : kernels_) kernel_ptrs_.push_back(&k);
    tables_ = {"test.db",
               "rmsnorm=abc",
               "sm_90",
               routes_.data(),
               static_cast<int>(routes_.size()),
               kernel_ptrs_.data(),
               static_cast<int>(kernel_ptrs_.size())};
    dispatcher_ = std::make_unique<rt::Dispatcher>(
        h200(), std::make_unique<RouterChooser>(tables_), std::make_unique<AnySupplier>(),
        std::make_unique<FakeLauncher>(std::make_shared<LaunchLog>()));
  }

  Explanation explain(long long rows, long long cols) {
    Explanation e;
    const CallStatus s = dispatcher_->explain(rt::key_of(RmsnormDesc{rows, cols, DType::bf16}), &e);
    EXPECT_TRUE(s.ok()) << s.message();
    return e;
  }

  std::vector<std::string> configs_, texts_, hashes_;
  std::string group_;
  std::vector<EmittedRoute> routes_;
  std::vector<EmittedKernel> kernels_;
  std::vector<const EmittedKernel*> kernel_ptrs_;
  EmittedTables tables_{};
  std::unique_ptr<rt::Dispatcher> dispatcher_;
};

TEST_F(RouterTest, ExactThenGroupThenGeneral) {
  const Explanation exact = explain(64, 4096);
  EXPECT_EQ(exact.how, "exact");
  EXPECT_EQ(exact.config, configs_[0]);
  const Explanation group = explain(64, 8192);
  EXPECT_EQ(group.how, "group");
  EXPECT_EQ(group.config, configs_[1]);
  const Explanation general = explain(8, 2048);
  EXPECT_EQ(general.how, "general");
  EXPECT_EQ(general.config, configs_[2]);
}

TEST_F(RouterTest, ALibraryEmittedFromOneGpuRunOnASiblingNamesTheGpuThatMeasured) {
  // Tables from H200 rows, run on an H100 SXM: the routes answer, not the
  // default, and say whose measurements they are.
  for (std::size_t i = 1; i < routes_.size(); ++i) routes_[i].measured_on = "NVIDIA H200";
  rt::Dispatcher on_h100(*find_builtin_device("NVIDIA H100 80GB HBM3"),
                         std::make_unique<RouterChooser>(tables_), std::make_unique<AnySupplier>(),
                         std::make_unique<FakeLauncher>(std::make_shared<LaunchLog>()));
  Explanation e;
  ASSERT_TRUE(on_h100.explain(rt::key_of(RmsnormDesc{64, 4096, DType::bf16}), &e).ok());
  EXPECT_EQ(e.how, "exact (measured on NVIDIA H200)");
  EXPECT_EQ(e.config, configs_[0]);
  ASSERT_TRUE(on_h100.explain(rt::key_of(RmsnormDesc{8, 2048, DType::bf16}), &e).ok());
  EXPECT_EQ(e.how, "general (measured on NVIDIA H200)");
  EXPECT_EQ(e.config, configs_[2]);
}

TEST_F(RouterTest, ARouteWhoseKernelsAreNotCompiledIsSkipped) {
  // Drop every compiled source of the general route: the default serves.
  const KernelFamily& f = find_family("rmsnorm");
  const Problem p = f.normalize(Problem::parse("rows=8,cols=2048,dtype=bf16"));
  const std::string general =
      stable_hash_hex(rt::kernel_source_key(f.source(p, Config::parse(configs_[2]))));
  const std::string fallback =
      stable_hash_hex(rt::kernel_source_key(f.source(p, Config::parse(texts_[1]))));
  if (general == fallback) GTEST_SKIP() << "general and default compile to the same source here";
  std::vector<const EmittedKernel*> kept;
  for (const EmittedKernel* k : kernel_ptrs_)
    if (general != k->source_hash) kept.push_back(k);
  tables_.kernels = kept.data();
  tables_.kernel_count = static_cast<int>(kept.size());
  rt::Dispatcher d(h200(), std::make_unique<RouterChooser>(tables_),
                   std::make_unique<AnySupplier>(),
                   std::make_unique<FakeLauncher>(std::make_shared<LaunchLog>()));
  Explanation e;
  ASSERT_TRUE(d.explain(rt::key_of(RmsnormDesc{8, 2048, DType::bf16}), &e).ok());
  EXPECT_EQ(e.how, "default");
}

TEST_F(RouterTest, AProblemOfAnotherClassIsAStatusNotACrash) {
  Explanation e;
  const CallStatus s = dispatcher_->explain(rt::key_of(RmsnormDesc{8, 2048, DType::fp32}), &e);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no compiled configuration"), std::string::npos) << s.message();
}

TEST(EmitKeys, RowwiseGroupKeysAreTheSplittersKeys) {
  const Grouping splitter = rowwise_grouping();
  for (const char* family : {"rmsnorm", "softmax", "reduce"})
    for (const char* text : {"rows=7,cols=100,dtype=fp32", "rows=4096,cols=4096,dtype=bf16",
                             "rows=3,cols=300001,dtype=fp16", "rows=9,cols=4098,dtype=bf16"}) {
      const KernelFamily& f = find_family(family);
      const Problem p = f.normalize(Problem::parse(text));
      EXPECT_EQ(rt::emit_group_key(f, p), splitter.key(p)) << family << " " << text;
    }
}

}  // namespace
}  // namespace ktune
