// bench_gemm_check_bench: host time to verify one GEMM output against its
// reference, as the harness does after every launch (two input sets per
// configuration): check_gemm_output on every core, against one
// verify::Checker pass on one core. No GPU: the output is synthetic, every
// element within its bound.
// Usage: bench_gemm_check_bench [--m 8192] [--n 11008] [--repeats 5]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "kernels_templated/gemm/gpu/gemm_output_check.hpp"

using namespace ktune;
using Clock = std::chrono::steady_clock;

namespace {

template <class Fn>
double median_seconds(int repeats, Fn&& fn) {
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    fn();
    t.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  long long m = 8192, n = 11008;
  int repeats = 5;
  CLI::App app("Host time to verify one bf16 GEMM output");
  app.add_option("--m", m)->check(CLI::PositiveNumber);
  app.add_option("--n", n)->check(CLI::PositiveNumber);
  app.add_option("--repeats", repeats)->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  std::vector<float> reference(m * n), magnitude(m * n);
  std::vector<std::uint16_t> out(m * n);
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  for (long long i = 0; i < m * n; ++i) {
    reference[i] = normal(rng);
    magnitude[i] = std::fabs(reference[i]) + 1;
    std::uint32_t bits;
    std::memcpy(&bits, &reference[i], 4);
    out[i] = static_cast<std::uint16_t>(bits >> 16);  // bf16 by truncation: within the bound
  }
  const verify::ElementBound bound{1e-3, 1e-2, 1e-2};
  const gemm_gpu::HostOutput c{reinterpret_cast<const unsigned char*>(out.data()),
                               gemm_gpu::Elem::bf16,
                               m,
                               n,
                               n,
                               0x7FDEu,
                               true};

  verify::CheckStats parallel, serial;
  const double t_parallel = median_seconds(repeats, [&] {
    parallel = gemm_gpu::check_gemm_output(c, reference.data(), magnitude.data(), bound);
  });
  const double t_serial = median_seconds(repeats, [&] {
    verify::Checker checker(bound);
    for (long long row = 0; row < m; ++row)
      for (long long col = 0; col < n; ++col) {
        std::uint32_t bits = 0;
        const float got = gemm_gpu::output_element(c, row, col, &bits);
        checker.add(row * n + col, got, reference[row * n + col], magnitude[row * n + col]);
      }
    serial = checker.finish();
  });
  std::printf("bf16 output %lldx%lld, %u hardware threads, median of %d\n", m, n,
              std::thread::hardware_concurrency(), repeats);
  std::printf("one Checker pass, one core: %.3f s\n", t_serial);
  std::printf("check_gemm_output:          %.3f s (%.1fx)\n", t_parallel, t_serial / t_parallel);
  if (parallel.checked != serial.checked || parallel.off != serial.off || parallel.off != 0) {
    std::fprintf(stderr, "the two checks disagree (checked %lld / %lld, off %lld / %lld)\n",
                 parallel.checked, serial.checked, parallel.off, serial.off);
    return 1;
  }
  return 0;
}
