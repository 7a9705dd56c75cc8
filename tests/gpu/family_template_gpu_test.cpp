// The test family test_center (one folder plus one line of families.def) on
// the GPU: sampled configurations of every phase verified by the shared
// harness against its own fp64 reference, and the runtime's generic
// row-wise call end to end against a host reference. Skips without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../runtime/gpu_suite.hpp"
#include "compile/compiler.hpp"
#include "compile_queue.hpp"
#include "kernels_templated/harness.hpp"
#include "kernels_templated/rowwise/gpu/cubin_runner.hpp"
#include "kernels_templated/rowwise/gpu/rowwise_harness.hpp"
#include "kernels_templated/rowwise/rowwise_family.hpp"
#include "runtime/ktune_runtime.hpp"

namespace ktune {
namespace {

#define REQUIRE_GPU() \
  if (!gpu_suite::have_gpu()) GTEST_SKIP() << "no CUDA device"

// The default, configurations with each feature (rows in registers, in
// shared memory on a persistent grid, split over two kernels, a cluster,
// split in the kernel) and a seeded sample.
std::vector<Config> configs_of(const rowwise::RowwiseFamily& f, const Problem& p,
                               const DeviceSpec& d) {
  const Space s = f.space(p, d);
  std::vector<Config> out = s.sample(6, 20261206);
  out.push_back(f.default_config(p, d));
  const std::vector<Config> pool = s.sample(600, 7);
  const std::vector<std::function<bool(const Config&)>> wanted = {
      [](const Config& c) { return c.text("row_cache") == "registers"; },
      [](const Config& c) {
        return c.text("row_cache") == "smem" && c.text("grid") == "persistent";
      },
      [](const Config& c) {
        return c.integer("split") > 1 && c.text("split_combine") == "second_kernel";
      },
      [](const Config& c) { return c.integer("cluster") > 1 && c.integer("cluster") <= 8; },
  };
  for (const auto& has : wanted)
    for (const Config& c : pool)
      if (has(c)) {
        out.push_back(c);
        break;
      }
  for (const Config& c : f.on_chip_row_configs(p, d))
    if (c.text("split_combine") == "in_kernel" || c.integer("cluster") <= 8) {
      out.push_back(c);
      break;
    }
  return out;
}

TEST(FamilyTemplateGpu, SampledConfigurationsPassItsReference) {
  REQUIRE_GPU();
  // The H200's description with this GPU's SM count, NVRTC through the
  // suite's on-disk cache (as tests/gpu/rowwise_verification_test.cpp).
  DeviceSpec d = *find_builtin_device("h200");
  ASSERT_EQ(cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  const Compiler compiler = gpu_test_compiler("sm_90");
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  const auto& f = rowwise::find_rowwise_family("test_center");
  int verified = 0;
  for (const char* shape : {"rows=7,cols=33,dtype=fp32", "rows=300,cols=4096,dtype=bf16",
                            "rows=96,cols=131075,dtype=fp16", "rows=64,cols=262144,dtype=bf16"}) {
    const Problem p = parse_problem(f, shape);
    const std::vector<Config> configs = configs_of(f, p, d);
    std::vector<KernelSource> sources;
    for (const Config& c : configs) sources.push_back(f.source(p, c));
    const std::vector<CompileOutput> outs = compiler.compile_all(sources);
    auto harness = make_harness("test_center");
    harness->prepare(p, 42);
    for (std::size_t i = 0; i < configs.size(); ++i) {
      SCOPED_TRACE(std::string(shape) + " | " + configs[i].key());
      ASSERT_TRUE(outs[i].ok) << outs[i].log;
      std::vector<std::string> lowered;
      for (const auto& k : outs[i].kernels) lowered.push_back(k.lowered_name);
      rowwise::LoadedCubin cubin(outs[i].cubin, lowered);
      ASSERT_TRUE(cubin.ok()) << cubin.error();
      // Twice: a second run catches state the first left (partials, counters).
      for (int run = 0; run < 2; ++run) {
        const rowwise::RunCheck r =
            rowwise::run_and_verify(*harness, configs[i], cubin.kernels(), stream);
        ASSERT_EQ(r.launch, cudaSuccess) << cudaGetErrorString(r.launch);
        EXPECT_TRUE(r.verification.passed) << r.verification.detail;
        EXPECT_EQ(static_cast<rowwise::RowwiseHarness&>(*harness).nonzero_counters(stream), 0);
      }
      ++verified;
    }
  }
  std::printf("test_center: %d configurations verified\n", verified);
  cudaStreamDestroy(stream);
}

TEST(FamilyTemplateGpu, TheRuntimeCallsItEndToEnd) {
  REQUIRE_GPU();
  std::unique_ptr<Runtime> rt;
  const CallStatus opened =
      Runtime::open(RuntimeOptions{}, &rt);  // no database: the family default
  ASSERT_TRUE(opened.ok()) << opened.message();
  for (const auto& [rows, cols] :
       std::vector<std::pair<long long, long long>>{{64, 4096}, {5, 1031}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    gpu_suite::Bf16Buffer x(rows * cols, 11, -2, 2), y(rows * cols, 12);
    const RowwiseDesc desc{"test_center", rows, cols, DType::bf16};
    const CallStatus s = rt->rowwise(desc, x.dev, nullptr, y.dev, nullptr);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<double> want(x.host.size());
    for (long long r = 0; r < rows; ++r) {
      double sum = 0;
      for (long long c = 0; c < cols; ++c) sum += x.host[r * cols + c];
      for (long long c = 0; c < cols; ++c) want[r * cols + c] = x.host[r * cols + c] - sum / cols;
    }
    EXPECT_LT(gpu_suite::rel_l2(y.read(), want), 1e-2);
    Explanation e;
    ASSERT_TRUE(rt->explain(desc, &e).ok());
    EXPECT_EQ(e.family, "test_center");
  }
}

}  // namespace
}  // namespace ktune
