// gemm_bench_case.hpp: one case of bench_gemm_bench: the starting
// configurations, their compiles and timings, a hill climb, verification of
// the fastest, and the winner against cuBLAS in turns.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/gemm_bench_timing.hpp"
#include "compile/compiler.hpp"
#include "kernels_templated/gemm/gemm_family.hpp"
#include "kernels_templated/gemm/gpu/gemm_harness.hpp"

namespace ktune::gemm_bench {

struct Candidate {
  Config config;
  double ms = 0;
  bool verified = false;
  std::string note;
};

struct CaseResult {
  std::string label;
  Problem problem;
  Candidate best;
  double cublas_ms = 0;
  std::vector<Candidate> ranked;  ///< every timed candidate, fastest first
  double tflops(double ms) const { return gemm_family().flops(problem) / (ms * 1e-3) / 1e12; }
};

/// A configuration of the mma.sync or SIMT path: aligned fast path, no split.
inline Config tile(int bm, int bn, int bk, int wm, int wn, int vec, const char* smem, int group) {
  Config c;
  c.set("BLOCK_M", std::int64_t{bm});
  c.set("BLOCK_N", std::int64_t{bn});
  c.set("BLOCK_K", std::int64_t{bk});
  c.set("WARP_M", std::int64_t{wm});
  c.set("WARP_N", std::int64_t{wn});
  c.set("VEC", std::int64_t{vec});
  c.set("SMEM", std::string(smem));
  c.set("GROUP_M", std::int64_t{group});
  c.set("SPLIT_K", std::int64_t{1});
  c.set("REDUCE", std::string("workspace"));
  c.set("PREDICATED", false);
  c.set("MIN_BLOCKS", std::int64_t{1});
  return c;
}

/// mma.sync path: 16-byte copies, XOR-swizzled shared memory, `st` stages,
/// C straight from the fragments (STAGE_C false).
inline Config tc(int bm, int bn, int bk, int wm, int wn, int st, int group) {
  Config c = tile(bm, bn, bk, wm, wn, 8, "xor", group);
  c.set("STAGES", std::int64_t{st});
  c.set("STAGE_C", false);
  return c;
}

inline Config wg(int bm, int bn, int wm, int stages, int group, bool persistent, int split = 1,
                 int cluster = 1, bool pingpong = false, bool stage_c = false) {
  Config c;
  c.set("PATH", std::string("wgmma"));
  c.set("BLOCK_M", std::int64_t{bm});
  c.set("BLOCK_N", std::int64_t{bn});
  c.set("BLOCK_K", std::int64_t{64});
  c.set("WARP_M", std::int64_t{wm});
  c.set("STAGES", std::int64_t{stages});
  c.set("GROUP_M", std::int64_t{group});
  c.set("PERSISTENT", persistent);
  c.set("PINGPONG", pingpong);
  c.set("STAGE_C", stage_c);
  c.set("CLUSTER_M", std::int64_t{cluster});
  c.set("CLUSTER_N", std::int64_t{1});
  c.set("SPLIT_K", std::int64_t{split});
  c.set("REDUCE", std::string("workspace"));
  return c;
}

/// SIMT path: 4-element copies, padded shared memory.
inline Config simt(int bm, int bn, int bk, int wm, int wn, int group) {
  return tile(bm, bn, bk, wm, wn, 4, "pad", group);
}

/// Hand-picked starting points (the usual mma.sync / SIMT tile shapes) plus a
/// seeded random sample of the space without split-K, repaired to validity.
inline std::vector<Config> candidates(const Problem& p, const DeviceSpec& d,
                                      const std::vector<Config>& seeds, std::size_t random_count,
                                      std::uint64_t seed, bool allow_split = false) {
  const Space s = gemm_family().space(p, d);
  std::vector<Config> out;
  auto add = [&](const Config& c) {
    auto r = s.repair(c);
    if (r && std::find(out.begin(), out.end(), *r) == out.end()) out.push_back(*r);
  };
  for (const Config& c : seeds) add(c);
  for (Config c : s.sample(random_count * 3, seed)) {
    if (out.size() >= seeds.size() + random_count) break;
    if (!allow_split && c.integer("SPLIT_K") != 1) continue;
    add(c);
  }
  return out;
}

/// What a --problem run adds to its case (see run_case).
struct CaseExtras {
  bool all_in_turns = false;  ///< time every verified configuration and cuBLAS in turns
  int sustain_ms = 0;         ///< and run each of them back to back for this long (run_sustained)
  std::string bus;            ///< the device's PCI bus id, for NVML
};

inline CaseResult run_case(const std::string& label, const Problem& p, const DeviceSpec& d,
                           const std::vector<Config>& start, int climb_rounds,
                           const Compiler& compiler, cudaStream_t stream, const L2Flush* flush,
                           std::ostream& log, std::size_t verify_top, bool allow_split = false,
                           const CaseExtras& extras = {}) {
  CaseResult result{label, p, {}, 0, {}};
  GemmHarness harness;
  harness.prepare(p, 2026);
  const Space space = gemm_family().space(p, d);
  std::vector<Config> configs;  // everything evaluated, index-aligned with kernels_of
  std::vector<std::vector<cudaKernel_t>> kernels_of;
  std::vector<cudaLibrary_t> libraries;
  std::vector<Candidate> timed;
  log << "## " << label << " (" << p.key() << ")\n";
  // The position of an evaluated configuration, its launch, and one checked run
  // of it (outputs poisoned first, compared with cuBLAS on random and edge inputs).
  auto index_of = [&](const Config& c) {
    return static_cast<std::size_t>(std::find(configs.begin(), configs.end(), c) - configs.begin());
  };
  auto launch_of = [&](std::size_t idx) -> Launch {
    return [&, idx](cudaStream_t s) { return harness.launch(configs[idx], kernels_of[idx], s); };
  };
  // Random inputs, then the edge inputs; the first failure, else the last check.
  auto run_and_verify = [&](std::size_t idx) {
    Verification v;
    for (int set = 0; set < harness.input_sets() && (set == 0 || v.passed); ++set) {
      harness.select_inputs(set);
      harness.poison_outputs(stream);
      check(harness.launch(configs[idx], kernels_of[idx], stream), "verify launch");
      v = harness.verify(configs[idx], stream);
    }
    harness.select_inputs(0);
    return v;
  };

  auto evaluate = [&](const std::vector<Config>& batch) {
    std::vector<KernelSource> sources;
    for (const Config& c : batch) sources.push_back(gemm_family().source(p, c));
    const auto t0 = std::chrono::steady_clock::now();
    const auto compiled = compiler.compile_all(sources);
    log << "  compiled " << batch.size() << " in "
        << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s\n";
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (!compiled[i].ok) {
        log << "  compile failed: " << batch[i].key() << "\n";
        continue;
      }
      cudaLibrary_t lib = nullptr;
      check(cudaLibraryLoadData(&lib, compiled[i].cubin.data(), nullptr, nullptr, 0, nullptr,
                                nullptr, 0),
            "load cubin");
      libraries.push_back(lib);
      std::vector<cudaKernel_t> ks;
      for (const auto& r : compiled[i].kernels) {
        cudaKernel_t k;
        check(cudaLibraryGetKernel(&k, lib, r.lowered_name.c_str()), "get kernel");
        ks.push_back(k);
      }
      configs.push_back(batch[i]);
      kernels_of.push_back(ks);
      Candidate c{batch[i], 0, false, ""};
      bool noisy = false;
      c.ms = time_median_ms(launch_of(configs.size() - 1), stream, flush, &noisy);
      std::ostringstream regs;
      if (noisy) regs << "noisy ";
      for (const auto& r : compiled[i].kernels)
        regs << r.registers << "r/" << r.spill_store_bytes << "spill ";
      c.note = regs.str();
      timed.push_back(c);
      log << "  " << batch[i].key() << "  " << c.ms << " ms  " << result.tflops(c.ms)
          << " TFLOP/s  " << c.note << "\n";
    }
    std::sort(timed.begin(), timed.end(),
              [](const Candidate& a, const Candidate& b) { return a.ms < b.ms; });
  };
  evaluate(start);
  // Hill climbing: the untried one-step neighbours of the best so far (no split-K).
  for (int round = 0; round < climb_rounds && !timed.empty(); ++round) {
    std::vector<Config> batch;
    for (const Config& n : space.neighbours(timed.front().config)) {
      if ((!allow_split && n.integer("SPLIT_K") != 1) ||
          std::find(configs.begin(), configs.end(), n) != configs.end())
        continue;
      if (std::find(batch.begin(), batch.end(), n) == batch.end()) batch.push_back(n);
    }
    if (batch.empty()) break;
    log << "  climb round " << round + 1 << " from " << timed.front().config.key() << "\n";
    evaluate(batch);
  }
  result.ranked = timed;
  // Correct first: the fastest candidate that verifies wins.
  for (std::size_t i = 0; i < timed.size() && i < verify_top; ++i) {
    const Verification v = run_and_verify(index_of(timed[i].config));
    log << "  verify " << timed[i].config.key() << ": " << (v.passed ? "passed" : "FAILED")
        << " rel_l2 " << v.rel_l2_error << " " << v.detail << "\n";
    if (v.passed) {
      result.best = timed[i];
      result.best.verified = true;
      break;
    }
  }
  const Launch cublas = [&](cudaStream_t s) { return harness.launch_cublas(s); };
  if (result.best.verified) {
    // The reported ratio: the winner and cuBLAS timed in turns.
    const std::vector<double> ms =
        interleaved_medians_ms({launch_of(index_of(result.best.config)), cublas}, stream, flush);
    log << "  winner and cuBLAS in turns: " << ms[0] << " ms  " << result.tflops(ms[0])
        << " TFLOP/s (timed alone: " << result.best.ms << " ms)\n";
    result.best.ms = ms[0];
    result.cublas_ms = ms[1];
  } else {
    result.cublas_ms = time_median_ms(cublas, stream, flush);
  }
  log << "  cuBLAS " << result.cublas_ms << " ms  " << result.tflops(result.cublas_ms)
      << " TFLOP/s; " << configs.size() << " configurations timed\n";
  if (extras.all_in_turns || extras.sustain_ms > 0) {
    // Every configuration that verifies, and cuBLAS.
    std::vector<Launch> launches;
    std::vector<std::string> names;
    for (const Candidate& c : timed) {
      const std::size_t idx = index_of(c.config);
      if (!run_and_verify(idx).passed) {
        log << "  left out (verification FAILED): " << c.config.key() << "\n";
        continue;
      }
      launches.push_back(launch_of(idx));
      names.push_back(c.config.key() + " (verified; alone " + std::to_string(c.ms) + " ms)");
    }
    const double cublas_alone = time_median_ms(cublas, stream, flush);
    launches.push_back(cublas);
    names.push_back("cuBLAS (alone " + std::to_string(cublas_alone) + " ms)");
    if (extras.all_in_turns) {
      // In turns with one another, next to each one's time alone: what running
      // between other kernels costs each (a kernel timed alone finds its own
      // code and constants still cached on the SMs; the L2 is flushed either way).
      const std::vector<double> ms = interleaved_medians_ms(launches, stream, flush);
      for (std::size_t i = 0; i < ms.size(); ++i)
        log << "  all in turns: " << ms[i] << " ms  " << result.tflops(ms[i]) << " TFLOP/s  "
            << names[i] << "\n";
    }
    // Twice round, so that a drift of temperature between the first and the
    // last shows as a difference between the rounds.
    for (int round = 1; extras.sustain_ms > 0 && round <= 2; ++round) {
      for (std::size_t i = 0; i < launches.size(); ++i) {
        const SustainedRun r = run_sustained(launches[i], stream, extras.sustain_ms, extras.bus);
        char line[400];
        std::snprintf(line, sizeof line,
                      "  sustained (round %d, %d ms): %.5f ms  %.1f TFLOP/s over %d launches; SM "
                      "clock %u MHz "
                      "(%u-%u, %d samples); power %.0f W; clock-event reasons 0x%llx  ",
                      round, extras.sustain_ms, r.median_ms, result.tflops(r.median_ms), r.launches,
                      r.clock_median_mhz, r.clock_min_mhz, r.clock_max_mhz, r.samples,
                      r.power_median_w, r.reasons);
        log << line << names[i] << "\n";
      }
    }
  }
  for (cudaLibrary_t lib : libraries) cudaLibraryUnload(lib);
  return result;
}

}  // namespace ktune::gemm_bench
