// GPU tests of user kernels: each example of examples/user_kernels tuned for
// a few configurations through `ktune tune --spec` (isolated workers) with
// every result verified, and a kernel that leaves outputs unwritten stored as
// failures, not a crash. Skip without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

#include "measure/device_query.hpp"
#include "tests/db/db_test_support.hpp"
#include "tests/ktune_process.hpp"
#include "tests/user/user_test_support.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using test::quote;

std::string no_gpu_reason() {
  static const std::string reason = [] {
    DeviceQuery q = query_devices();
    return q.devices.empty() ? q.none_reason : std::string();
  }();
  return reason;
}

// scripts/gpu-check runs a carried build: it names the checkout and binary.
fs::path examples_dir() {
  const char* root = std::getenv("KTUNE_SOURCE_DIR");
  return root ? fs::path(root) / "examples" / "user_kernels" : test::user_examples_dir();
}
test::ProcessRun ktune(const std::string& args) {
  const char* bin = std::getenv("KTUNE_BIN");
  return test::shell(quote(bin ? bin : test::ktune_path()) + " " + args);
}

/// (evaluated, failed) from `ktune tune`'s summary line; (-1, -1) when absent.
std::pair<int, int> evaluated_and_failed(const std::string& output) {
  std::smatch m;
  if (!std::regex_search(output, m,
                         std::regex("([0-9]+) evaluated in this run \\(([0-9]+) failed\\)")))
    return {-1, -1};
  return {std::stoi(m[1]), std::stoi(m[2])};
}

struct Example {
  const char* name;
  const char* problem;
};

class UserKernelGpu : public ::testing::TestWithParam<Example> {};

TEST_P(UserKernelGpu, TunesAFewConfigurationsAllVerified) {
  if (!no_gpu_reason().empty()) GTEST_SKIP() << "no GPU: " << no_gpu_reason();
  testing::TempDir dir;
  const Example e = GetParam();
  const fs::path spec = examples_dir() / e.name / (std::string(e.name) + ".json");
  auto run = ktune("tune --spec " + quote(spec.string()) + " --problem " + e.problem +
                   " --strategy random --budget 6 --db " + quote(dir.file("user.db")));
  ASSERT_EQ(run.code, 0) << run.output;
  const auto [evaluated, failed] = evaluated_and_failed(run.output);
  EXPECT_EQ(evaluated, 6) << run.output;
  EXPECT_EQ(failed, 0) << run.output;
  EXPECT_EQ(run.output.find("No configuration was verified"), std::string::npos) << run.output;
  // The stored results answer a lookup like a built-in family's.
  auto again = ktune("tune --spec " + quote(spec.string()) + " --problem " + e.problem +
                     " --strategy random --budget 1 --db " + quote(dir.file("user.db")));
  EXPECT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("stored results reused"), std::string::npos) << again.output;
}

INSTANTIATE_TEST_SUITE_P(Examples, UserKernelGpu,
                         ::testing::Values(Example{"transpose", "rows=1000,cols=700"},
                                           Example{"conv2d", "h=512,w=384,fh=5,fw=3"},
                                           Example{"block_reduce", "rows=300,cols=5000"}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(UserKernelGpuFaults, AKernelLeavingOutputsUnwrittenIsStoredAsAFailure) {
  if (!no_gpu_reason().empty()) GTEST_SKIP() << "no GPU: " << no_gpu_reason();
  testing::TempDir dir;
  auto d = test::scale_description();
  d["verification"] = {{"reference_kernel", {{"name", "scale_ref"}}}};
  const std::string source = std::string(test::kScaleSource) + R"cu(
__global__ void scale_ref(float* y, const float* x, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i];
}
)cu";
  // BLOCK 32 writes nothing: those configurations must fail verification.
  std::string broken = source;
  broken.replace(broken.find("if (i < n)"), 10, "if (i < n && BLOCK != 32)");
  const std::string spec = test::write_scale(dir.path(), d, broken);
  auto run = ktune("tune --spec " + quote(spec) + " --strategy exhaustive --budget 10 --db " +
                   quote(dir.file("user.db")));
  ASSERT_EQ(run.code, 0) << run.output;
  const auto [evaluated, failed] = evaluated_and_failed(run.output);
  EXPECT_EQ(evaluated, 5) << run.output;
  EXPECT_EQ(failed, 2) << run.output;  // BLOCK 32 with UNROLL 1 and 2
}

TEST(UserKernelGpuFaults, AnOutOfBoundsWriteCostsOneResultEach) {
  if (!no_gpu_reason().empty()) GTEST_SKIP() << "no GPU: " << no_gpu_reason();
  testing::TempDir dir;
  // BLOCK 64 writes 4 GiB past y: a fault the isolated worker survives.
  std::string source = test::kScaleSource;
  source.replace(source.find("y[i] = a * x[i];"), 16,
                 "y[i + (BLOCK == 64 ? (1ll << 30) : 0)] = a * x[i];");
  const std::string spec = test::write_scale(dir.path(), test::scale_description(), source);
  auto run = ktune("tune --spec " + quote(spec) + " --strategy exhaustive --budget 10 --db " +
                   quote(dir.file("user.db")));
  ASSERT_EQ(run.code, 0) << run.output;
  const auto [evaluated, failed] = evaluated_and_failed(run.output);
  EXPECT_EQ(evaluated, 5) << run.output;
  EXPECT_EQ(failed, 2) << run.output;  // BLOCK 64 with UNROLL 1 and 2
}

}  // namespace
}  // namespace ktune
