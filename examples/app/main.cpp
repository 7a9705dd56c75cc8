// ktune_example_app: a GEMM and an RMSNorm through the installed runtime,
// each checked against the value it must produce. Skips without a GPU.
// Usage: ktune_example_app [system.db]  (default $KTUNE_DB; none: family defaults)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/ktune_runtime.hpp"

namespace {

constexpr std::uint16_t kBf16One = 0x3F80;

float bf16_to_float(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// A device buffer of `count` bf16 ones (freed by the caller).
void* ones(std::size_t count) {
  void* p = nullptr;
  const std::vector<std::uint16_t> host(count, kBf16One);
  if (cudaMalloc(&p, count * 2) != cudaSuccess) return nullptr;
  cudaMemcpy(p, host.data(), count * 2, cudaMemcpyHostToDevice);
  return p;
}

int fail(const char* what, const ktune::CallStatus& s) {
  std::fprintf(stderr, "%s: %s\n", what, s.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf(
        "no CUDA device: skipping the example (it built and linked against the installed ktune)\n");
    return 0;
  }
  ktune::RuntimeOptions options;
  if (argc > 1)
    options.system_db = argv[1];
  else if (const char* db = std::getenv("KTUNE_DB"))
    options.system_db = db;
  std::unique_ptr<ktune::Runtime> rt;
  if (ktune::CallStatus s = ktune::Runtime::open(options, &rt); !s)
    return fail("opening the runtime", s);

  // C (256 x 512) = A (256 x 1024) * B^T, all ones: every element is K = 1024 (exact in bf16).
  ktune::GemmDesc g;
  g.m = 256, g.n = 512, g.k = 1024, g.layout = ktune::Layout::nt;
  void* a = ones(g.m * g.k);
  void* b = ones(g.n * g.k);
  void* c = ones(g.m * g.n);
  if (ktune::CallStatus s = rt->gemm(g, {a, b, c, nullptr}, nullptr); !s) return fail("gemm", s);
  std::vector<std::uint16_t> out(g.m * g.n);
  cudaMemcpy(out.data(), c, out.size() * 2, cudaMemcpyDeviceToHost);
  for (std::uint16_t v : out)
    if (bf16_to_float(v) != 1024.f)
      return std::fprintf(stderr, "gemm: got %g, want 1024\n", bf16_to_float(v)), 1;

  // RMSNorm of ones with unit weights: 1 / sqrt(1 + eps), 1 in bf16.
  ktune::RmsnormDesc r;
  r.rows = 8, r.cols = 4096;
  void* x = ones(r.rows * r.cols);
  void* w = ones(r.cols);
  void* y = ones(r.rows * r.cols);
  if (ktune::CallStatus s = rt->rmsnorm(r, x, w, y, nullptr); !s) return fail("rmsnorm", s);
  std::vector<std::uint16_t> norm(r.rows * r.cols);
  cudaMemcpy(norm.data(), y, norm.size() * 2, cudaMemcpyDeviceToHost);
  for (std::uint16_t v : norm)
    if (std::fabs(bf16_to_float(v) - 1.f) > 1e-2f)
      return std::fprintf(stderr, "rmsnorm: got %g\n", bf16_to_float(v)), 1;

  ktune::Explanation e;
  rt->explain(g, &e);
  std::printf("gemm ran %s (%s); rmsnorm verified\n", e.config.c_str(), e.how.c_str());
  for (void* p : {a, b, c, x, w, y}) cudaFree(p);
  return 0;
}
