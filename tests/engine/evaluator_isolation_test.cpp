// IsolatedEvaluator on CPU: a fake `ktune worker` (KTUNE_WORKER_FAKE, no GPU,
// synthetic results) proves the watchdog, crash handling and restarts.
#include <chrono>
#include <filesystem>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "compile/compiler.hpp"
#include "engine/gpu_evaluator.hpp"
#include "engine/isolated_evaluator.hpp"
#include "engine/worker_protocol.hpp"
#include "ktune_test_paths.hpp"
#include "measure/device_query.hpp"

namespace fs = std::filesystem;
using namespace ktune;

namespace {

std::string ktune_binary() {
  fs::path p = fs::path(KTUNE_BINARY_DIR) / "bin" / "ktune";
  return fs::exists(p) ? p.string() : std::string();
}

Config faulty(const std::string& mode, std::int64_t threads = 256) {
  return Config{{"threads", threads}, {"items", std::int64_t{4}}, {"mode", mode}, {"smem_stage", false}};
}

IsolatedEvaluatorOptions fake_options(const std::string& fake = "1") {
  IsolatedEvaluatorOptions o;
  o.worker_binary = ktune_binary();
  o.worker_env = {std::string(kWorkerFakeEnv) + "=" + fake};
  o.watchdog.first_limit_s = 1.0;
  o.watchdog.floor_s = 0.5;
  o.watchdog.factor = 20;
  o.watchdog.cap_s = 2.0;
  o.watchdog.startup_limit_s = 30;
  return o;
}

class Isolation : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ktune_binary().empty()) GTEST_FAIL() << "the ktune binary is not built in " << KTUNE_BINARY_DIR << "/bin";
  }
  const KernelFamily& family = find_family("test_faulty");
  Problem problem{{"n", std::int64_t{4096}}};
};

}  // namespace

TEST_F(Isolation, FakeWorkerAnswersInOrder) {
  IsolatedEvaluator ev(family, problem, fake_options());
  EXPECT_NE(ev.device().name.find("synthetic"), std::string::npos);
  EXPECT_EQ(ev.family_hash().size(), 16u);
  EXPECT_EQ(ev.family_hash(), family_source_hash(family, family.normalize(problem), ev.device()))
      << "the worker keys results by the kernel path's hash";
  std::vector<Config> configs = {faulty("normal", 256), faulty("wrong"), faulty("normal", 128)};
  auto results = ev.evaluate(configs);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, Status::ok);
  EXPECT_EQ(results[0].config, configs[0]);
  EXPECT_EQ(results[1].status, Status::wrong_result);
  EXPECT_EQ(results[2].status, Status::ok);
  EXPECT_EQ(results[2].config, configs[2]);
  EXPECT_LT(results[2].time.median_s, results[0].time.median_s);  // synthetic, per-config figures
  EXPECT_EQ(ev.restarts(), 0);
  // The worker stays up between batches.
  auto again = ev.evaluate(std::vector<Config>{faulty("normal", 64)});
  EXPECT_EQ(again[0].status, Status::ok);
  EXPECT_EQ(ev.restarts(), 0);
  EXPECT_TRUE(ev.evaluate(std::vector<Config>{}).empty());
}

TEST_F(Isolation, HangIsKilledAsTimeoutAndTheSweepGoesOn) {
  IsolatedEvaluator ev(family, problem, fake_options());
  std::vector<Config> configs = {faulty("normal"), faulty("hang"), faulty("normal", 512), faulty("hang", 128),
                                 faulty("wrong")};
  auto start = std::chrono::steady_clock::now();
  auto results = ev.evaluate(configs);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].status, Status::ok);
  EXPECT_EQ(results[1].status, Status::timeout);
  EXPECT_NE(results[1].message.find("watchdog"), std::string::npos) << results[1].message;
  EXPECT_EQ(results[1].config, configs[1]);
  EXPECT_EQ(results[2].status, Status::ok);
  EXPECT_EQ(results[3].status, Status::timeout);
  EXPECT_EQ(results[4].status, Status::wrong_result);
  EXPECT_EQ(ev.restarts(), 2);
  // The limit after a success is floor + 20 x (tiny phase), well under the cap.
  EXPECT_LT(seconds, 10.0);
}

TEST_F(Isolation, ContextLossReportsTheCulpritAndRestarts) {
  IsolatedEvaluator ev(family, problem, fake_options());
  std::vector<Config> configs = {faulty("normal"), faulty("oob_write"), faulty("normal", 128), faulty("oob_write", 64),
                                 faulty("normal", 1024)};
  auto results = ev.evaluate(configs);
  EXPECT_EQ(results[0].status, Status::ok);
  EXPECT_EQ(results[1].status, Status::launch_error);
  EXPECT_NE(results[1].message.find("context lost"), std::string::npos) << results[1].message;
  EXPECT_EQ(results[2].status, Status::ok);
  EXPECT_EQ(results[3].status, Status::launch_error);
  EXPECT_EQ(results[4].status, Status::ok);
  for (const auto& r : results) EXPECT_FALSE(r.metrics.contains("not_run")) << r.message;
  EXPECT_EQ(ev.restarts(), 2);
}

TEST_F(Isolation, CrashBlamesTheConfigurationOnTheGpu) {
  IsolatedEvaluator ev(family, problem, fake_options("crash"));
  std::vector<Config> configs = {faulty("oob_write"), faulty("normal"), faulty("normal", 128), faulty("oob_write", 512)};
  auto results = ev.evaluate(configs);
  EXPECT_EQ(results[0].status, Status::launch_error);
  EXPECT_NE(results[0].message.find("died while this configuration ran"), std::string::npos) << results[0].message;
  EXPECT_NE(results[0].message.find("signal"), std::string::npos) << results[0].message;
  EXPECT_EQ(results[1].status, Status::ok);
  EXPECT_EQ(results[2].status, Status::ok);
  EXPECT_EQ(results[3].status, Status::launch_error);
  // The worker that died last is replaced when work comes, not before.
  EXPECT_EQ(ev.restarts(), 1);
  EXPECT_EQ(ev.evaluate(std::vector<Config>{faulty("normal")})[0].status, Status::ok);
  EXPECT_EQ(ev.restarts(), 2);
}

TEST_F(Isolation, FirstConfigHangUsesTheFirstLimit) {
  auto options = fake_options();
  options.watchdog.first_limit_s = 0.3;
  IsolatedEvaluator ev(family, problem, options);
  auto results = ev.evaluate(std::vector<Config>{faulty("hang"), faulty("normal")});
  EXPECT_EQ(results[0].status, Status::timeout);
  EXPECT_EQ(results[1].status, Status::ok);
}

TEST_F(Isolation, MissingBinaryIsAClearError) {
  auto options = fake_options();
  options.worker_binary = "/nonexistent/ktune";
  try {
    IsolatedEvaluator ev(family, problem, options);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/ktune"), std::string::npos) << e.what();
  }
}

TEST_F(Isolation, RealWorkerWithoutGpuSaysSo) {
  if (!query_devices().devices.empty()) GTEST_SKIP() << "a GPU is present: the worker would start";
  IsolatedEvaluatorOptions options;
  options.worker_binary = ktune_binary();
  try {
    IsolatedEvaluator ev(family, problem, options);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU"), std::string::npos) << e.what();
  }
}

TEST_F(Isolation, BadProblemIsRejectedInTheParent) {
  EXPECT_THROW(IsolatedEvaluator(family, Problem{{"n", std::int64_t{0}}}, fake_options()), ProblemError);
}

TEST(GpuEvaluatorNoGpu, ConstructorExplainsMissingGpu) {
  if (!query_devices().devices.empty()) GTEST_SKIP() << "a GPU is present";
  try {
    GpuEvaluator ev(find_family("test_faulty"), Problem{{"n", std::int64_t{1024}}});
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU"), std::string::npos) << e.what();
  }
}

TEST(WorkerProtocol, OptionsRoundTrip) {
  GpuEvaluatorOptions o;
  o.device = 1;
  o.seed = 7;
  o.compiler.arch = "sm_80";
  o.compiler.cache_dir = "/tmp/x";
  o.compiler.extra = {"-DFOO=1"};
  o.timing.warmup = 5;
  o.timing.max_seconds = 0.25;
  o.timing.flush_l2 = false;
  o.check_determinism = true;
  o.kernel_timeout_s = 3;
  o.compile_chunk = 9;
  GpuEvaluatorOptions back = gpu_options_from_json(gpu_options_to_json(o));
  EXPECT_EQ(back.device, 1);
  EXPECT_EQ(back.seed, 7u);
  EXPECT_EQ(back.compiler.arch, "sm_80");
  EXPECT_EQ(back.compiler.cache_dir, "/tmp/x");
  EXPECT_EQ(back.compiler.extra, std::vector<std::string>{"-DFOO=1"});
  EXPECT_EQ(back.timing.warmup, 5);
  EXPECT_EQ(back.timing.max_seconds, 0.25);
  EXPECT_FALSE(back.timing.flush_l2);
  EXPECT_TRUE(back.check_determinism);
  EXPECT_EQ(back.kernel_timeout_s, 3);
  EXPECT_EQ(back.compile_chunk, 9);
  EXPECT_THROW(gpu_options_from_json(nlohmann::json{{"device", "zero"}}), std::invalid_argument);
}

TEST(StickyErrors, ClassifiesFaults) {
  EXPECT_TRUE(is_sticky_cuda_error(cudaErrorIllegalAddress));
  EXPECT_TRUE(is_sticky_cuda_error(cudaErrorLaunchFailure));
  EXPECT_FALSE(is_sticky_cuda_error(cudaErrorInvalidValue));
  EXPECT_FALSE(is_sticky_cuda_error(cudaErrorLaunchOutOfResources));
}
