// ktune_emitted_app: an application linking a library that `ktune
// emit-library` wrote. Prints where the library came from and what it holds,
// opens it, and on a GPU runs a bf16 GEMM of ones through it, checked. Without
// a GPU it stops after opening (the kernels are built and linked by then).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "ktune_emitted.hpp"

namespace {

constexpr std::uint16_t kBf16One = 0x3F80;

float bf16_to_float(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// C (256 x 512) = A (256 x 1024) * B^T, all ones: every element is K = 1024 (exact in bf16).
int gemm_of_ones(ktune::Library& lib) {
  ktune::GemmDesc g;
  g.m = 256, g.n = 512, g.k = 1024, g.layout = ktune::Layout::nt;
  const std::vector<std::uint16_t> ones(g.n * g.k, kBf16One);
  void *a = nullptr, *b = nullptr, *c = nullptr;
  cudaMalloc(&a, g.m * g.k * 2);
  cudaMalloc(&b, g.n * g.k * 2);
  cudaMalloc(&c, g.m * g.n * 2);
  cudaMemcpy(a, ones.data(), g.m * g.k * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(b, ones.data(), g.n * g.k * 2, cudaMemcpyHostToDevice);
  const ktune::CallStatus s = lib.gemm(g, {a, b, c, nullptr}, nullptr);
  std::vector<std::uint16_t> out(g.m * g.n);
  cudaMemcpy(out.data(), c, out.size() * 2, cudaMemcpyDeviceToHost);
  for (void* p : {a, b, c}) cudaFree(p);
  if (!s) return std::fprintf(stderr, "gemm: %s\n", s.message().c_str()), 1;
  for (std::uint16_t v : out)
    if (bf16_to_float(v) != 1024.f)
      return std::fprintf(stderr, "gemm: got %g, want 1024\n", bf16_to_float(v)), 1;
  std::printf("gemm 256x512x1024 (bf16, nt) through the library: verified\n");
  return 0;
}

}  // namespace

int main() {
  const ktune::EmittedTables& t = ktune_emitted_tables();
  std::printf("emitted from %s for %s (%s): %d routes, %d kernels\n", t.database, t.device,
              t.template_hashes, t.route_count, t.kernel_count);
  if (t.route_count == 0 || t.kernel_count == 0)
    return std::fprintf(stderr, "the library holds no route or no kernel\n"), 1;
  std::unique_ptr<ktune::Library> lib;
  const ktune::CallStatus opened = ktune::Library::open(t, &lib);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: stopping after opening the library (%s)\n",
                opened ? "opened" : opened.message().c_str());
    return 0;
  }
  if (!opened)
    return std::fprintf(stderr, "opening the library: %s\n", opened.message().c_str()), 1;
  bool has_gemm = false;
  for (int i = 0; i < t.route_count; ++i)
    has_gemm = has_gemm || std::strcmp(t.routes[i].family, "gemm") == 0;
  return has_gemm ? gemm_of_ones(*lib) : 0;
}
