// bench_engine_throughput: evaluated configurations per second, end to end
// (compile, load, verify, time): with a cold compile cache and NVRTC's
// precompiled header off, with a cold cache (the header on, the default), and
// with a warm cache.
// Usage: bench_engine_throughput [--family gemm] [--problem TEXT] [--configs N]
//                                [--seed S] [--isolated] [--out DIR]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>
#include <algorithm>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "compile/version.hpp"
#include "engine/gpu_evaluator.hpp"
#include "engine/isolated_evaluator.hpp"
#include "measure/device_query.hpp"
#include "space/space.hpp"

namespace fs = std::filesystem;
using namespace ktune;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  std::string family;
  std::string problem;
  int configs = 64;
  std::uint64_t seed = 1;
  bool isolated = false;
  std::string out;
};

Args parse(int argc, char** argv) {
  Args a;
  CLI::App app{"bench_engine_throughput: evaluated configurations per second, cold and warm compile cache"};
  app.add_option("--family", a.family, "Kernel family (default: gemm, else test_faulty)");
  app.add_option("--problem", a.problem, "Problem keys (default: a 2048^3 bf16 GEMM, or n=16777216)");
  app.add_option("--configs", a.configs, "Configurations per pass")->capture_default_str();
  app.add_option("--seed", a.seed, "Seed of the sampled configurations")->capture_default_str();
  app.add_flag("--isolated", a.isolated, "Evaluate in a ktune worker process (IsolatedEvaluator)");
  app.add_option("--out", a.out, "Folder for the JSON result");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  if (a.family.empty()) {
    auto names = family_names();
    a.family = std::find(names.begin(), names.end(), "gemm") != names.end() ? "gemm" : "test_faulty";
  }
  if (a.problem.empty()) a.problem = a.family == "gemm" ? "m=2048,n=2048,k=2048,dtype=bf16" : "n=16777216";
  return a;
}

struct Pass {
  double seconds = 0;
  double setup_seconds = 0;
  double compile_seconds = 0;  // summed over configurations (parallel)
  int cache_hits = 0;
  std::map<std::string, int> statuses;
  double best_median_s = 0;
  std::string best_key;
};

Pass run_pass(const KernelFamily& family, const Problem& problem, const std::vector<Config>& configs,
              const std::string& cache_dir, bool isolated, std::uint64_t seed, bool precompiled_headers = true) {
  Pass pass;
  auto t0 = Clock::now();
  GpuEvaluatorOptions gpu;
  gpu.seed = seed;
  gpu.compiler.cache_dir = cache_dir;
  gpu.compiler.precompiled_headers = precompiled_headers;
  std::unique_ptr<Evaluator> ev;
  if (isolated) {
    IsolatedEvaluatorOptions o;
    o.gpu = gpu;
    ev = std::make_unique<IsolatedEvaluator>(family, problem, o);
  } else {
    ev = std::make_unique<GpuEvaluator>(family, problem, gpu);
  }
  auto t1 = Clock::now();
  auto results = ev->evaluate(configs);
  auto t2 = Clock::now();
  pass.setup_seconds = std::chrono::duration<double>(t1 - t0).count();
  pass.seconds = std::chrono::duration<double>(t2 - t1).count();
  for (const auto& r : results) {
    pass.statuses[std::string(to_string(r.status))]++;
    pass.compile_seconds += r.metrics.value("compile_seconds", 0.0);
    if (r.metrics.value("compile_cache_hit", false)) ++pass.cache_hits;
    if (r.ok() && (pass.best_median_s == 0 || r.time.median_s < pass.best_median_s)) {
      pass.best_median_s = r.time.median_s;
      pass.best_key = r.config.key();
    }
  }
  return pass;
}

nlohmann::json pass_json(const Pass& p, std::size_t n) {
  return {{"configs_per_second", n / p.seconds},
          {"seconds", p.seconds},
          {"setup_seconds", p.setup_seconds},
          {"compile_seconds_summed", p.compile_seconds},
          {"cache_hits", p.cache_hits},
          {"statuses", p.statuses},
          {"best_median_us", p.best_median_s * 1e6},
          {"best_config", p.best_key}};
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Args args = parse(argc, argv);
    DeviceQuery q = query_devices();
    if (q.devices.empty()) {
      std::printf("bench_engine_throughput: skipped, no GPU (%s)\n", q.none_reason.c_str());
      return 0;
    }
    const KernelFamily& family = find_family(args.family);
    Problem problem = parse_problem(family, args.problem);
    Space space = family.space(problem, q.devices[0].spec);
    // The sample is drawn from the whole space; test_faulty's deliberate
    // faults are left out (they measure the watchdog, not throughput).
    std::vector<Config> configs;
    for (const auto& c : space.sample(static_cast<std::size_t>(args.configs) * 4, args.seed)) {
      if (c.contains("mode") && c.text("mode") != "normal") continue;
      if (configs.size() < static_cast<std::size_t>(args.configs)) configs.push_back(c);
    }
    fs::path cache = fs::temp_directory_path() / ("ktune_bench_cache_" + std::to_string(std::random_device{}()));
    fs::path cache_no_pch = cache.string() + "_no_pch";
    fs::create_directories(cache);
    fs::create_directories(cache_no_pch);
    std::printf("engine throughput: family %s, problem %s, %zu configurations, %s, %u host threads, GPU %s\n",
                args.family.c_str(), problem.key().c_str(), configs.size(), args.isolated ? "isolated worker" : "in process",
                std::thread::hardware_concurrency(), q.devices[0].spec.name.c_str());
    // First without the precompiled header: NVRTC keeps it in the process once made.
    Pass cold_no_pch = run_pass(family, problem, configs, cache_no_pch.string(), args.isolated, args.seed, false);
    Pass cold = run_pass(family, problem, configs, cache.string(), args.isolated, args.seed);
    Pass warm = run_pass(family, problem, configs, cache.string(), args.isolated, args.seed);
    std::error_code ec;
    fs::remove_all(cache, ec);
    fs::remove_all(cache_no_pch, ec);
    for (const auto& [name, p] : {std::pair<const char*, const Pass&>{"cold, no precompiled header,", cold_no_pch},
                                  {"cold", cold},
                                  {"warm", warm}}) {
      std::printf("  %s cache: %.2f configs/s (%.2f s for %zu; setup %.2f s; compile %.1f s summed; %d cache hits);",
                  name, configs.size() / p.seconds, p.seconds, configs.size(), p.setup_seconds, p.compile_seconds,
                  p.cache_hits);
      for (const auto& [s, n] : p.statuses) std::printf(" %s=%d", s.c_str(), n);
      std::printf("; best %.2f us %s\n", p.best_median_s * 1e6, p.best_key.c_str());
    }
    nlohmann::json out = {{"bench", "engine_throughput"},
                          {"family", args.family},
                          {"problem", problem.key()},
                          {"configs", configs.size()},
                          {"isolated", args.isolated},
                          {"host_threads", std::thread::hardware_concurrency()},
                          {"device", q.devices[0].spec.to_json()},
                          {"ktune", version_text()},
                          {"cold_no_precompiled_header", pass_json(cold_no_pch, configs.size())},
                          {"cold", pass_json(cold, configs.size())},
                          {"warm", pass_json(warm, configs.size())}};
    if (!args.out.empty()) {
      fs::create_directories(args.out);
      std::ofstream(fs::path(args.out) / "engine_throughput.json") << out.dump(2) << "\n";
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_engine_throughput: %s\n", e.what());
    return 1;
  }
}
