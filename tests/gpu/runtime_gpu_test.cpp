// libktune_runtime on the GPU: the shared suite (tests/runtime/gpu_suite.hpp)
// over a runtime on the shipped database; skips without a GPU.
#include "../runtime/gpu_suite.hpp"
#include "ktune_test_paths.hpp"
#include "runtime/ktune_runtime.hpp"

namespace ktune {
namespace {

using namespace gpu_suite;

std::unique_ptr<Runtime> open_runtime() {
  RuntimeOptions o;
  o.system_db = std::string(KTUNE_TEST_DATA_DIR) + "/../../tuning_db/ktune.db";
  std::unique_ptr<Runtime> rt;
  const CallStatus s = Runtime::open(o, &rt);
  EXPECT_TRUE(s.ok()) << s.message();
  return rt;
}

#define REQUIRE_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device"

TEST(RuntimeGpu, EveryFamilyMatchesItsReference) {
  REQUIRE_GPU();
  auto rt = open_runtime();
  ASSERT_TRUE(rt);
  run_all_families(*rt);
}

TEST(RuntimeGpu, GraphCaptureWorksAfterTheFirstCall) {
  REQUIRE_GPU();
  auto rt = open_runtime();
  ASSERT_TRUE(rt);
  graph_capture_after_warmup(*rt);
}

TEST(RuntimeGpu, ConcurrentFirstCallsCompileOnceAndAreCorrect) {
  REQUIRE_GPU();
  auto rt = open_runtime();
  ASSERT_TRUE(rt);
  const long long builds = rt->counts().builds;
  concurrent_first_calls(*rt);
  EXPECT_EQ(rt->counts().builds, builds + 1);
}

}  // namespace
}  // namespace ktune
