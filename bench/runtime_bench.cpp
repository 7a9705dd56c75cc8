// runtime_bench: libktune_runtime against cuBLAS in one run (issue 37):
// host overhead per call after warm-up (runtime gemm vs cublasGemmEx), the
// first call with a cold and a warm NVRTC cache, and per shape (the LLM set
// of bench/hopper-llm-sweep.json + 20 shapes in no recording) the GPU time
// ratio to cuBLAS, every call verified against cuBLAS's output; summarised
// as fast_1, fast_0.9 and the geomean speedup; then the row-wise calls
// against the copy bandwidth of the same run (runtime_rowwise.hpp). Built with
// an emitted library (-DKTUNE_EMITTED_DIR) it times that library the same way.
// Usage: bench_runtime_bench [--out DIR] [--db DB] [--reps N]
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench/runtime_rowwise.hpp"
#include "runtime/ktune_runtime.hpp"
#ifdef KTUNE_BENCH_EMITTED
#include "ktune_emitted.hpp"
#endif

namespace {

using namespace ktune;
using clock_type = std::chrono::steady_clock;
namespace fs = std::filesystem;

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// Device buffers of one gemm problem (bf16, random), plus cuBLAS's output.
struct Operands {
  void *a = nullptr, *b = nullptr, *c = nullptr, *ref = nullptr;
  explicit Operands(const GemmDesc& d) {
    const std::size_t na = d.m * d.k, nb = d.n * d.k, nc = d.m * d.n;
    std::vector<std::uint16_t> host(std::max({na, nb, nc}));
    std::mt19937 g(1);
    for (auto& h : host)
      h = static_cast<std::uint16_t>(0x3C00 + (g() % 0x200)) ^ (g() & 0x8000);  // ~[-2, 2)
    cudaMalloc(&a, na * 2), cudaMalloc(&b, nb * 2), cudaMalloc(&c, nc * 2),
        cudaMalloc(&ref, nc * 2);
    cudaMemcpy(a, host.data(), na * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(b, host.data(), nb * 2, cudaMemcpyHostToDevice);
  }
  ~Operands() {
    for (void* p : {a, b, c, ref}) cudaFree(p);
  }
};

/// cuBLAS on row-major operands in `layout` (C^T = op(B)^T op(A)^T column-major).
cublasStatus_t cublas_gemm(cublasHandle_t h, const GemmDesc& d, const void* a, const void* b,
                           void* c, cudaStream_t s) {
  const bool at = d.layout == Layout::tn || d.layout == Layout::tt;
  const bool bt = d.layout == Layout::nt || d.layout == Layout::tt;
  const float alpha = 1, beta = 0;
  cublasSetStream(h, s);
  return cublasGemmEx(h, bt ? CUBLAS_OP_T : CUBLAS_OP_N, at ? CUBLAS_OP_T : CUBLAS_OP_N,
                      static_cast<int>(d.n), static_cast<int>(d.m), static_cast<int>(d.k), &alpha,
                      b, CUDA_R_16BF, static_cast<int>(bt ? d.k : d.n), a, CUDA_R_16BF,
                      static_cast<int>(at ? d.m : d.k), &beta, c, CUDA_R_16BF,
                      static_cast<int>(d.n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

double bf16(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// rel-L2 of C against cuBLAS's C.
double compare(const GemmDesc& d, const Operands& o) {
  std::vector<std::uint16_t> got(d.m * d.n), want(d.m * d.n);
  cudaMemcpy(got.data(), o.c, got.size() * 2, cudaMemcpyDeviceToHost);
  cudaMemcpy(want.data(), o.ref, want.size() * 2, cudaMemcpyDeviceToHost);
  double diff = 0, ref = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = bf16(got[i]), w = bf16(want[i]);
    if (!std::isfinite(g)) return INFINITY;
    diff += (g - w) * (g - w), ref += w * w;
  }
  return std::sqrt(diff / std::max(ref, 1e-30));
}

/// Median GPU time of `launch` (events around each of `reps` launches after 3 warm-ups).
double gpu_seconds(const std::function<bool()>& launch, int reps) {
  for (int i = 0; i < 3; ++i)
    if (!launch()) return -1;
  cudaEvent_t start, stop;
  cudaEventCreate(&start), cudaEventCreate(&stop);
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(start);
    if (!launch()) return -1;
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    t.push_back(ms * 1e-3);
  }
  cudaEventDestroy(start), cudaEventDestroy(stop);
  return median(t);
}

/// Host seconds per call: batches of 100 enqueued calls (the GPU drained between batches).
double host_seconds_per_call(const std::function<bool()>& launch) {
  std::vector<double> per_call;
  for (int batch = 0; batch < 30; ++batch) {
    cudaDeviceSynchronize();
    const auto t = clock_type::now();
    for (int i = 0; i < 100; ++i)
      if (!launch()) return -1;
    per_call.push_back(seconds_since(t) / 100);
  }
  cudaDeviceSynchronize();
  return median(per_call);
}

std::vector<GemmDesc> shapes(const std::string& llm_file) {
  std::vector<GemmDesc> out;
  auto add = [&](long long m, long long n, long long k, Layout l) {
    GemmDesc d;
    d.m = m, d.n = n, d.k = k, d.layout = l;
    out.push_back(d);
  };
  std::ifstream in(llm_file);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_discarded())
    for (const auto& run : j.value("runs", nlohmann::json::array()))
      for (const auto& p : run.value("problems", nlohmann::json::array())) {
        long long m = 0, n = 0, k = 0;
        char layout[3] = "nt";
        if (std::sscanf(p.get<std::string>().c_str(), "m=%lld,n=%lld,k=%lld", &m, &n, &k) != 3)
          continue;
        if (p.get<std::string>().find("layout=nn") != std::string::npos) std::strcpy(layout, "nn");
        if (p.get<std::string>().find("lda=") != std::string::npos)
          continue;  // strided ones: not in this API's tight set
        add(m, n, k, std::string(layout) == "nn" ? Layout::nn : Layout::nt);
      }
  // 20 shapes in no recording or database: decode M = 1..64, odd and misaligned sizes.
  for (long long m : {1, 2, 3, 7, 16, 33, 48, 64}) add(m, 4096, 4096, Layout::nt);
  for (auto [m, n, k] : {std::array<long long, 3>{4093, 4099, 4111},
                         {1000, 1000, 1000},
                         {3001, 257, 4095},
                         {129, 11007, 4097},
                         {2047, 2049, 511},
                         {5000, 4096, 4096},
                         {777, 1555, 3333},
                         {96, 14335, 4096},
                         {4095, 4095, 63},
                         {17, 8191, 1023},
                         {2500, 2500, 2500},
                         {8191, 127, 8191}})
    add(m, n, k, Layout::nt);
  return out;
}

template <class Backend>
nlohmann::json time_shapes(Backend& backend, cublasHandle_t blas, const std::vector<GemmDesc>& set,
                           int reps) {
  nlohmann::json rows = nlohmann::json::array();
  int fast1 = 0, fast09 = 0, measured = 0;
  double log_sum = 0;
  for (const GemmDesc& d : set) {
    Operands o(d);
    nlohmann::json r = {
        {"m", d.m}, {"n", d.n}, {"k", d.k}, {"layout", d.layout == Layout::nn ? "nn" : "nt"}};
    cublas_gemm(blas, d, o.a, o.b, o.ref, nullptr);
    const CallStatus s = backend.gemm(d, {o.a, o.b, o.c, nullptr}, nullptr);
    cudaDeviceSynchronize();
    if (!s.ok()) {
      r["error"] = s.message();
      rows.push_back(r);
      continue;
    }
    const double err = compare(d, o);
    r["rel_l2_vs_cublas"] = err;
    r["verified"] = err < 2e-2;
    const double t_rt = gpu_seconds(
        [&] {
          return backend.gemm(d, {o.a, o.b, o.c, nullptr}, nullptr).ok();
        },
        reps);
    const double t_blas = gpu_seconds(
        [&] { return cublas_gemm(blas, d, o.a, o.b, o.ref, nullptr) == CUBLAS_STATUS_SUCCESS; },
        reps);
    Explanation e;
    backend.explain(d, &e);
    r["config"] = e.config;
    r["how"] = e.how;
    r["ktune_s"] = t_rt;
    r["cublas_s"] = t_blas;
    if (t_rt > 0 && t_blas > 0 && err < 2e-2) {
      const double speedup = t_blas / t_rt;
      r["speedup"] = speedup;
      fast1 += speedup >= 1, fast09 += speedup >= 0.9, ++measured;
      log_sum += std::log(speedup);
    }
    std::printf("  %6lld %6lld %6lld  %-8s %8.1f us  cuBLAS %8.1f us  x%.3f  err %.1e\n", d.m, d.n,
                d.k, e.how.c_str(), t_rt * 1e6, t_blas * 1e6, t_blas / t_rt, err);
    std::fflush(stdout);  // a run cut by a time limit keeps every row it printed
    rows.push_back(r);
  }
  return {{"shapes", rows},
          {"measured", measured},
          {"fast_1", measured ? static_cast<double>(fast1) / measured : 0},
          {"fast_0.9", measured ? static_cast<double>(fast09) / measured : 0},
          {"geomean_speedup", measured ? std::exp(log_sum / measured) : 0}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "libktune_runtime against cuBLAS: host overhead, first-call latency, per-shape time ratio"};
  std::string out_dir = ".", db = std::string(KTUNE_SOURCE_DIR) + "/tuning_db/ktune.db";
  int reps = 20;
  app.add_option("--out", out_dir);
  app.add_option("--db", db);
  app.add_option("--reps", reps);
  CLI11_PARSE(app, argc, argv);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: nothing measured\n");
    return 0;
  }
  cublasHandle_t blas = nullptr;
  cublasCreate(&blas);
  nlohmann::json report;

  // First call: a fresh cache folder (cold: NVRTC compiles), then a new runtime on it (warm: a disk
  // hit).
  const fs::path cache =
      fs::temp_directory_path() / ("ktune_runtime_bench_" + std::to_string(::getpid()));
  GemmDesc first;
  first.m = 4096, first.n = 4096, first.k = 4096, first.layout = Layout::nt;
  Operands fo(first);
  for (const char* phase : {"cold", "warm"}) {
    RuntimeOptions o;
    o.system_db = db;
    o.cache_dir = cache.string();
    std::unique_ptr<Runtime> rt;
    if (CallStatus s = Runtime::open(o, &rt); !s)
      return std::fprintf(stderr, "%s\n", s.message().c_str()), 1;
    auto t = clock_type::now();
    const CallStatus s = rt->gemm(first, {fo.a, fo.b, fo.c, nullptr}, nullptr);
    const double first_s = seconds_since(t);
    t = clock_type::now();
    rt->gemm(first, {fo.a, fo.b, fo.c, nullptr}, nullptr);
    const double second_s = seconds_since(t);
    cudaDeviceSynchronize();
    report["first_call"][phase] = {{"ok", s.ok()},
                                   {"first_s", first_s},
                                   {"second_s", second_s},
                                   {"disk_hits", rt->counts().disk_hits}};
    std::printf("first call, %s cache: %.2f ms (then %.1f us)\n", phase, first_s * 1e3,
                second_s * 1e6);
  }
  fs::remove_all(cache);

  RuntimeOptions o;
  o.system_db = db;
  std::unique_ptr<Runtime> rt;
  if (CallStatus s = Runtime::open(o, &rt); !s)
    return std::fprintf(stderr, "%s\n", s.message().c_str()), 1;
  // Host overhead after warm-up, on a small problem, in the same run as cuBLAS's.
  GemmDesc small;
  small.m = 128, small.n = 128, small.k = 128, small.layout = Layout::nt;
  Operands so(small);
  rt->gemm(small, {so.a, so.b, so.c, nullptr}, nullptr);
  const double host_rt = host_seconds_per_call([&] {
    return rt->gemm(small, {so.a, so.b, so.c, nullptr}, nullptr).ok();
  });
  const double host_blas = host_seconds_per_call([&] {
    return cublas_gemm(blas, small, so.a, so.b, so.ref, nullptr) == CUBLAS_STATUS_SUCCESS;
  });
  report["host_overhead"] = {
      {"ktune_s", host_rt}, {"cublas_s", host_blas}, {"shape", "128x128x128 bf16 nt"}};
  std::printf("host overhead per call: ktune %.2f us, cublasGemmEx %.2f us\n", host_rt * 1e6,
              host_blas * 1e6);

  const std::vector<GemmDesc> set =
      shapes(std::string(KTUNE_SOURCE_DIR) + "/bench/hopper-llm-sweep.json");
  std::printf("runtime vs cuBLAS, %zu shapes:\n", set.size());
  report["runtime"] = time_shapes(*rt, blas, set, reps);
  std::printf("runtime row-wise calls vs the copy:\n");
  report["runtime_rowwise"] = bench::time_rowwise(*rt, gpu_seconds, reps);
#ifdef KTUNE_BENCH_EMITTED
  std::unique_ptr<Library> lib;
  if (CallStatus s = Library::open(ktune_emitted_tables(), &lib); s) {
    std::printf("emitted library vs cuBLAS:\n");
    report["emitted_library"] = time_shapes(*lib, blas, set, reps);
    report["emitted_library"]["database"] = lib->database();
    report["emitted_library"]["template_hashes"] = lib->template_hashes();
    std::printf("emitted library row-wise calls vs the copy:\n");
    report["emitted_library_rowwise"] = bench::time_rowwise(*lib, gpu_seconds, reps);
  }
#endif
  for (const char* which : {"runtime", "emitted_library"})
    if (report.contains(which))
      std::printf("%s: fast_1 %.2f, fast_0.9 %.2f, geomean %.3f over %d shapes\n", which,
                  report[which]["fast_1"].get<double>(), report[which]["fast_0.9"].get<double>(),
                  report[which]["geomean_speedup"].get<double>(),
                  report[which]["measured"].get<int>());
  for (const char* which : {"runtime_rowwise", "emitted_library_rowwise"})
    if (report.contains(which))
      std::printf("%s: geomean %.3f of the copy (%.0f GB/s) over %d shapes\n", which,
                  report[which]["geomean_of_copy"].get<double>(),
                  report[which]["copy_gbps"].get<double>(), report[which]["measured"].get<int>());
  cublasDestroy(blas);
  std::ofstream(fs::path(out_dir) / "runtime_bench.json") << report.dump(2) << "\n";
  return 0;
}
