// The GPU test suite that libktune_runtime (tests/gpu/runtime_gpu_test.cpp)
// and an emitted library (tests/runtime/gpu/library_gpu_test.cpp) both pass:
// every call checked against an fp64 host reference, graph capture after a
// warm-up call, concurrent first calls. Backend B has the call API and
// `static CallStatus open(std::unique_ptr<B>*)`.
#pragma once

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "runtime/ktune_calls.hpp"

namespace ktune::gpu_suite {

inline bool have_gpu() {
  int n = 0;
  const bool yes = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  cudaGetLastError();
  return yes;
}

inline std::uint16_t to_bf16(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  b += 0x7FFF + ((b >> 16) & 1);  // round to nearest even
  return static_cast<std::uint16_t>(b >> 16);
}
inline double from_bf16(std::uint16_t h) {
  const std::uint32_t b = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

/// A device buffer of bf16 values (host copy kept as doubles of the rounded values).
struct Bf16Buffer {
  std::vector<double> host;
  void* dev = nullptr;
  Bf16Buffer(std::size_t n, std::uint64_t seed, double lo = -1, double hi = 1) : host(n) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<float> u(static_cast<float>(lo), static_cast<float>(hi));
    std::vector<std::uint16_t> bits(n);
    for (std::size_t i = 0; i < n; ++i) {
      bits[i] = to_bf16(u(g));
      host[i] = from_bf16(bits[i]);
    }
    if (cudaMalloc(&dev, n * 2) == cudaSuccess)
      cudaMemcpy(dev, bits.data(), n * 2, cudaMemcpyHostToDevice);
  }
  ~Bf16Buffer() { cudaFree(dev); }
  std::vector<double> read() const {
    std::vector<std::uint16_t> bits(host.size());
    cudaMemcpy(bits.data(), dev, bits.size() * 2, cudaMemcpyDeviceToHost);
    std::vector<double> out(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) out[i] = from_bf16(bits[i]);
    return out;
  }
};

inline double rel_l2(const std::vector<double>& got, const std::vector<double>& want) {
  double d = 0, r = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    d += (got[i] - want[i]) * (got[i] - want[i]);
    r += want[i] * want[i];
  }
  return std::sqrt(d / std::max(r, 1e-300));
}

/// C = A op B for bf16 row-major operands in `layout`, fp64.
inline std::vector<double> gemm_reference(const GemmDesc& d, const std::vector<double>& a,
                                          const std::vector<double>& b) {
  const bool at = d.layout == Layout::tn || d.layout == Layout::tt;
  const bool bt = d.layout == Layout::nt || d.layout == Layout::tt;
  std::vector<double> c(static_cast<std::size_t>(d.m * d.n));
  for (long long i = 0; i < d.m; ++i)
    for (long long j = 0; j < d.n; ++j) {
      double s = 0;
      for (long long k = 0; k < d.k; ++k)
        s += a[at ? k * d.m + i : i * d.k + k] * b[bt ? j * d.k + k : k * d.n + j];
      c[i * d.n + j] = s;
    }
  return c;
}

/// A backend call that the backend may decline (an emitted library serves
/// only the shape classes it was emitted for): skip such a shape, fail any other error.
inline bool served(const CallStatus& s) {
  return s.message().find("no compiled configuration") == std::string::npos;
}

template <class B>
void gemm_matches_reference(B& backend, const GemmDesc& d, cudaStream_t stream = nullptr) {
  SCOPED_TRACE("gemm m=" + std::to_string(d.m) + " n=" + std::to_string(d.n) +
               " k=" + std::to_string(d.k));
  Bf16Buffer a(d.m * d.k, 1), b(d.k * d.n, 2), c(d.m * d.n, 3);
  const CallStatus s = backend.gemm(d, {a.dev, b.dev, c.dev, nullptr}, stream);
  if (!s.ok() && !served(s)) return;
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_LT(rel_l2(c.read(), gemm_reference(d, a.host, b.host)), 1e-2);
}

template <class B>
void rmsnorm_matches_reference(B& backend, long long rows, long long cols) {
  SCOPED_TRACE("rmsnorm " + std::to_string(rows) + "x" + std::to_string(cols));
  Bf16Buffer x(rows * cols, 4, -3, 3), w(cols, 5, 0.5, 1.5), y(rows * cols, 6);
  const RmsnormDesc d{rows, cols, DType::bf16, 1e-6};
  const CallStatus s = backend.rmsnorm(d, x.dev, w.dev, y.dev, nullptr);
  if (!s.ok() && !served(s)) return;
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<double> want(x.host.size());
  for (long long r = 0; r < rows; ++r) {
    double sq = 0;
    for (long long c = 0; c < cols; ++c) sq += x.host[r * cols + c] * x.host[r * cols + c];
    const double scale = 1 / std::sqrt(sq / cols + d.eps);
    for (long long c = 0; c < cols; ++c)
      want[r * cols + c] = x.host[r * cols + c] * scale * w.host[c];
  }
  EXPECT_LT(rel_l2(y.read(), want), 1e-2);
}

template <class B>
void softmax_matches_reference(B& backend, long long rows, long long cols) {
  SCOPED_TRACE("softmax " + std::to_string(rows) + "x" + std::to_string(cols));
  Bf16Buffer x(rows * cols, 7, -8, 8), y(rows * cols, 8);
  const CallStatus s = backend.softmax({rows, cols, DType::bf16}, x.dev, y.dev, nullptr);
  if (!s.ok() && !served(s)) return;
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<double> want(x.host.size());
  for (long long r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (long long c = 0; c < cols; ++c) mx = std::max(mx, x.host[r * cols + c]);
    for (long long c = 0; c < cols; ++c) sum += std::exp(x.host[r * cols + c] - mx);
    for (long long c = 0; c < cols; ++c)
      want[r * cols + c] = std::exp(x.host[r * cols + c] - mx) / sum;
  }
  EXPECT_LT(rel_l2(y.read(), want), 1e-2);
}

template <class B>
void reduce_matches_reference(B& backend, long long rows, long long cols, ReduceAxis axis) {
  SCOPED_TRACE("reduce " + std::to_string(rows) + "x" + std::to_string(cols));
  Bf16Buffer x(rows * cols, 9), y(axis == ReduceAxis::last ? rows : cols, 10);
  const CallStatus s =
      backend.reduce({rows, cols, DType::bf16, ReduceOp::sum, axis}, x.dev, y.dev, nullptr);
  if (!s.ok() && !served(s)) return;
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<double> want(y.host.size(), 0.0);
  for (long long r = 0; r < rows; ++r)
    for (long long c = 0; c < cols; ++c)
      want[axis == ReduceAxis::last ? r : c] += x.host[r * cols + c];
  EXPECT_LT(rel_l2(y.read(), want), 1e-2);
}

/// The LLM-like and odd shapes every backend is checked on (host reference: kept small).
inline std::vector<GemmDesc> gemm_shapes() {
  std::vector<GemmDesc> s;
  auto add = [&](long long m, long long n, long long k, Layout l) {
    GemmDesc d;
    d.m = m, d.n = n, d.k = k, d.layout = l;
    s.push_back(d);
  };
  add(128, 256, 512, Layout::nt);
  add(256, 512, 1024, Layout::nn);
  add(1, 1024, 1024, Layout::nt);
  add(16, 2048, 512, Layout::nt);
  add(77, 129, 200, Layout::nn);
  add(63, 97, 131, Layout::nt);
  add(100, 300, 64, Layout::tn);
  return s;
}

template <class B>
void run_all_families(B& backend) {
  for (const GemmDesc& d : gemm_shapes()) gemm_matches_reference(backend, d);
  rmsnorm_matches_reference(backend, 64, 4096);
  rmsnorm_matches_reference(backend, 7, 1000);
  softmax_matches_reference(backend, 32, 2048);
  softmax_matches_reference(backend, 5, 333);
  reduce_matches_reference(backend, 64, 1024, ReduceAxis::last);
  reduce_matches_reference(backend, 300, 96, ReduceAxis::rows);
}

/// Once a shape has been called on a stream, its call can be captured into a graph.
template <class B>
void graph_capture_after_warmup(B& backend) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  GemmDesc d;
  d.m = 256, d.n = 256, d.k = 512, d.layout = Layout::nt;
  Bf16Buffer a(d.m * d.k, 11), b(d.k * d.n, 12), c(d.m * d.n, 13);
  const CallStatus warm = backend.gemm(d, {a.dev, b.dev, c.dev, nullptr}, stream);
  if (!warm.ok() && !served(warm)) GTEST_SKIP() << warm.message();
  ASSERT_TRUE(warm.ok()) << warm.message();
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  ASSERT_EQ(cudaMemset(c.dev, 0, c.host.size() * 2), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  const CallStatus captured = backend.gemm(d, {a.dev, b.dev, c.dev, nullptr}, stream);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  ASSERT_TRUE(captured.ok()) << captured.message();
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_LT(rel_l2(c.read(), gemm_reference(d, a.host, b.host)), 1e-2);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

/// Threads calling one new shape at once, each on its own stream, all get correct results.
template <class B>
void concurrent_first_calls(B& backend) {
  GemmDesc d;
  d.m = 192, d.n = 320, d.k = 256, d.layout = Layout::nt;
  Bf16Buffer a(d.m * d.k, 14), b(d.k * d.n, 15);
  const std::vector<double> want = gemm_reference(d, a.host, b.host);
  constexpr int kThreads = 4;
  std::vector<std::unique_ptr<Bf16Buffer>> outs;
  for (int i = 0; i < kThreads; ++i)
    outs.push_back(std::make_unique<Bf16Buffer>(d.m * d.n, 20 + i));
  std::vector<CallStatus> status(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      cudaStream_t s = nullptr;
      cudaStreamCreate(&s);
      status[i] = backend.gemm(d, {a.dev, b.dev, outs[i]->dev, nullptr}, s);
      cudaStreamSynchronize(s);
      cudaStreamDestroy(s);
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) {
    if (!status[i].ok() && !served(status[i])) continue;
    ASSERT_TRUE(status[i].ok()) << status[i].message();
    EXPECT_LT(rel_l2(outs[i]->read(), want), 1e-2);
  }
}

}  // namespace ktune::gpu_suite
