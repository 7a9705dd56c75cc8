// GPU tests of the CUPTI profiler (skip without a device): a large copy moves
// the DRAM bytes it should and is memory bound, an FMA loop is compute bound,
// and a GEMM configuration evaluated with profiling on (in process and in a
// worker) carries the metrics and the bottleneck class in its Result.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "compile/compiler.hpp"
#include "engine/gpu_evaluator.hpp"
#include "engine/isolated_evaluator.hpp"
#include "measure/device_query.hpp"
#include "measure/profiler.hpp"

namespace fs = std::filesystem;
using namespace ktune;

namespace {

std::optional<LiveDevice> first_gpu(std::string& why) {
  DeviceQuery q = query_devices();
  if (q.devices.empty()) {
    why = q.none_reason;
    return std::nullopt;
  }
  return q.devices.front();
}

#define REQUIRE_GPU(dev)                                      \
  std::string no_gpu_reason;                                  \
  const std::optional<LiveDevice> dev = first_gpu(no_gpu_reason); \
  if (!dev) GTEST_SKIP() << "no GPU: " << no_gpu_reason

// Two probe kernels: a grid-stride float4 copy (memory bound by design) and
// four independent FMA chains per thread with no memory traffic (compute
// bound by design).
constexpr const char* kProbeSource = R"(
namespace ktune_probe {
template <int Unused>
__global__ void copy4(const float4* __restrict__ in, float4* __restrict__ out, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride) out[i] = in[i];
}
template <int Iterations>
__global__ void fma_loop(float* out, float a, float b) {
  float x0 = threadIdx.x * 1e-3f, x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f;
#pragma unroll 16
  for (int i = 0; i < Iterations; ++i) {
    x0 = fmaf(x0, a, b);
    x1 = fmaf(x1, a, b);
    x2 = fmaf(x2, a, b);
    x3 = fmaf(x3, a, b);
  }
  const float s = x0 + x1 + x2 + x3;
  if (s == 1234.5f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;  // keeps the chains alive, never taken
}
}  // namespace ktune_probe
)";

struct Probes {
  cudaLibrary_t library = nullptr;
  cudaKernel_t copy = nullptr;
  cudaKernel_t fma = nullptr;
  ~Probes() {
    if (library) cudaLibraryUnload(library);
  }
};

void load_probes(const LiveDevice& dev, Probes& p) {
  Compiler compiler(CompilerOptions{.arch = dev.spec.arch(), .cache_dir = "", .extra = {}});
  KernelSource src;
  src.program_name = "profiler_probes.cu";
  src.source = kProbeSource;
  src.kernels = {"ktune_probe::copy4<0>", "ktune_probe::fma_loop<4096>"};
  CompileOutput out = compiler.compile(src);
  ASSERT_TRUE(out.ok) << out.log;
  ASSERT_EQ(cudaLibraryLoadData(&p.library, out.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), cudaSuccess);
  ASSERT_EQ(cudaLibraryGetKernel(&p.copy, p.library, out.kernels[0].lowered_name.c_str()), cudaSuccess);
  ASSERT_EQ(cudaLibraryGetKernel(&p.fma, p.library, out.kernels[1].lowered_name.c_str()), cudaSuccess);
}

void print_outcome(const char* what, const ProfileOutcome& o) {
  const ProfileMetrics& m = o.metrics;
  std::printf("%s: %s\n", what, o.ok ? "profiled" : ("NOT profiled: " + o.error).c_str());
  if (!o.ok) return;
  std::printf("  DRAM read %.4g B, written %.4g B; compute SOL %.1f%%, memory SOL %.1f%%, DRAM SOL %.1f%%, "
              "achieved occupancy %.1f%%, L2 hit rate %.1f%%, duration %.2f us, kernels %d, passes %d\n",
              m.dram_bytes_read, m.dram_bytes_written, m.compute_sol_pct, m.memory_sol_pct, m.dram_sol_pct,
              m.achieved_occupancy_pct, m.l2_hit_rate_pct, m.duration_s * 1e6, m.kernels, m.passes);
  for (const auto& note : o.notes) std::printf("  note: %s\n", note.c_str());
  try {
    Bottleneck b = classify_bottleneck(m);
    std::printf("  bottleneck: %s (%s)\n", std::string(to_string(b.kind)).c_str(), b.reason.c_str());
  } catch (const std::exception& e) {
    std::printf("  bottleneck: none (%s)\n", e.what());
  }
}

// Counters restricted to administrators is a property of the machine, not a bug.
#define SKIP_IF_NOT_PERMITTED(o)                                                   \
  if (!(o).ok && (o).error.find("INSUFFICIENT_PRIVILEGES") != std::string::npos) \
  GTEST_SKIP() << (o).error

}  // namespace

TEST(ProfilerGpu, CopyMovesItsBytesAndIsMemoryBound) {
  REQUIRE_GPU(dev);
  ASSERT_EQ(cudaSetDevice(dev->ordinal), cudaSuccess);
  Probes probes;
  load_probes(*dev, probes);
  // 512 MiB each way, far beyond L2: every byte crosses DRAM once.
  const long long n = (512ll << 20) / 16;
  const double bytes = static_cast<double>(n) * 16;
  void *in = nullptr, *out = nullptr;
  ASSERT_EQ(cudaMalloc(&in, n * 16), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, n * 16), cudaSuccess);
  ASSERT_EQ(cudaMemset(in, 0x3c, n * 16), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  KernelProfiler profiler(dev->ordinal);
  const dim3 grid(static_cast<unsigned>(dev->spec.sm_count * 8)), block(256);
  ProfileOutcome o = profiler.profile(
      [&](cudaStream_t s) {
        const float4* src = static_cast<const float4*>(in);
        float4* dst = static_cast<float4*>(out);
        long long count = n;
        void* args[] = {&src, &dst, &count};
        return cudaLaunchKernel(reinterpret_cast<const void*>(probes.copy), grid, block, args, 0, s);
      },
      stream);
  print_outcome("copy of 512 MiB", o);
  cudaStreamDestroy(stream);
  cudaFree(in);
  cudaFree(out);
  SKIP_IF_NOT_PERMITTED(o);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.metrics.kernels, 1);
  EXPECT_NEAR(o.metrics.dram_bytes_read, bytes, 0.10 * bytes);
  EXPECT_NEAR(o.metrics.dram_bytes_written, bytes, 0.10 * bytes);
  EXPECT_GT(o.metrics.duration_s, 0);
  EXPECT_EQ(classify_bottleneck(o.metrics).kind, BottleneckClass::memory);
}

TEST(ProfilerGpu, FmaLoopIsComputeBound) {
  REQUIRE_GPU(dev);
  ASSERT_EQ(cudaSetDevice(dev->ordinal), cudaSuccess);
  Probes probes;
  load_probes(*dev, probes);
  float* sink = nullptr;
  const dim3 grid(static_cast<unsigned>(dev->spec.sm_count * 16)), block(256);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&sink), sizeof(float) * grid.x * block.x), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);

  KernelProfiler profiler(dev->ordinal);
  ProfileOutcome o = profiler.profile(
      [&](cudaStream_t s) {
        float a = 0.999f, b = 0.001f;
        void* args[] = {&sink, &a, &b};
        return cudaLaunchKernel(reinterpret_cast<const void*>(probes.fma), grid, block, args, 0, s);
      },
      stream);
  print_outcome("FMA loop (4 chains x 4096 iterations per thread)", o);
  cudaStreamDestroy(stream);
  cudaFree(sink);
  SKIP_IF_NOT_PERMITTED(o);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(classify_bottleneck(o.metrics).kind, BottleneckClass::compute);
  EXPECT_LT(o.metrics.dram_bytes_read, 64.0 * 1024 * 1024);  // no traffic to speak of
}

TEST(ProfilerGpu, GemmResultCarriesProfileInProcessAndInAWorker) {
  REQUIRE_GPU(dev);
  const KernelFamily& gemm = find_family("gemm");
  const Problem problem = parse_problem(gemm, "m=2048,n=2048,k=2048,dtype=bf16,layout=nt");
  const Config config = gemm.default_config(gemm.normalize(problem), dev->spec);
  const fs::path cache = fs::temp_directory_path() / ("ktune_profiler_test_cache_" + std::to_string(::getpid()));

  auto check = [&](const char* where, const Result& r) {
    std::printf("%s: %s %s median %.2f us, %.1f TFLOP/s\n  metrics.profile: %s\n  metrics.bottleneck: %s\n", where,
                config.key().c_str(), std::string(to_string(r.status)).c_str(), r.time.median_s * 1e6, r.tflops,
                r.metrics.value("profile", nlohmann::json()).dump().c_str(),
                r.metrics.value("bottleneck", nlohmann::json()).dump().c_str());
    ASSERT_EQ(r.status, Status::ok) << r.message;
    ASSERT_TRUE(r.metrics.contains("profile"));
    const nlohmann::json& p = r.metrics["profile"];
    if (p.contains("error") && p["error"].get<std::string>().find("INSUFFICIENT_PRIVILEGES") != std::string::npos)
      GTEST_SKIP() << p["error"];
    ASSERT_FALSE(p.contains("error")) << p["error"];
    EXPECT_GT(p.value("dram_bytes_read", 0.0), 0.0);
    EXPECT_GT(p.value("duration_s", 0.0), 0.0);
    EXPECT_GT(p.value("passes", 0), 0);
    ASSERT_TRUE(r.metrics.contains("bottleneck"));
    const std::string cls = r.metrics["bottleneck"]["class"];
    EXPECT_TRUE(cls == "memory" || cls == "compute" || cls == "latency") << cls;
    EXPECT_EQ(r.metrics["bound"], cls);
    EXPECT_GT(r.time.median_s, 0);
  };

  {
    GpuEvaluatorOptions options;
    options.device = dev->ordinal;
    options.profile = true;
    options.compiler.cache_dir = cache.string();
    GpuEvaluator ev(gemm, problem, options);
    std::vector<Result> results = ev.evaluate(std::vector<Config>{config});
    ASSERT_EQ(results.size(), 1u);
    check("in process", results.front());
  }
  {
    IsolatedEvaluatorOptions options;
    options.gpu.device = dev->ordinal;
    options.gpu.profile = true;
    options.gpu.compiler.cache_dir = cache.string();
    IsolatedEvaluator ev(gemm, problem, options);
    std::vector<Result> results = ev.evaluate(std::vector<Config>{config});
    ASSERT_EQ(results.size(), 1u);
    check("in a worker", results.front());
  }
  std::error_code ec;
  fs::remove_all(cache, ec);
}
