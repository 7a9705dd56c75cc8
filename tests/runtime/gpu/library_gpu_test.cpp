// An emitted library on the GPU: the same suite as libktune_runtime
// (tests/runtime/gpu_suite.hpp). Built only when CMake is given an emitted
// tree (-DKTUNE_EMITTED_DIR=..., see scripts/gpu-check); skips without a GPU.
#include "../gpu_suite.hpp"
#include "ktune_emitted.hpp"

namespace ktune {
namespace {

using namespace gpu_suite;

std::unique_ptr<Library> open_library() {
  std::unique_ptr<Library> lib;
  const CallStatus s = Library::open(ktune_emitted_tables(), &lib);
  EXPECT_TRUE(s.ok()) << s.message();
  return lib;
}

#define REQUIRE_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device"

TEST(LibraryGpu, ReportsItsDatabaseAndTemplates) {
  EXPECT_STRNE(ktune_emitted_tables().database, "");
  EXPECT_NE(std::string(ktune_emitted_tables().template_hashes).find('='), std::string::npos);
}

TEST(LibraryGpu, EveryFamilyMatchesItsReference) {
  REQUIRE_GPU();
  auto lib = open_library();
  ASSERT_TRUE(lib);
  run_all_families(*lib);
}

TEST(LibraryGpu, GraphCaptureWorksAfterTheFirstCall) {
  REQUIRE_GPU();
  auto lib = open_library();
  ASSERT_TRUE(lib);
  graph_capture_after_warmup(*lib);
}

TEST(LibraryGpu, ConcurrentFirstCallsAreCorrect) {
  REQUIRE_GPU();
  auto lib = open_library();
  ASSERT_TRUE(lib);
  concurrent_first_calls(*lib);
}

}  // namespace
}  // namespace ktune
