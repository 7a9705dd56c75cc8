// Search CPU cost: time of a `bayes` proposal (and other strategies) after
// N observations on one core, on a SYNTHETIC GEMM-like space with analytic
// times (the cost of the strategy does not depend on where times come from).
// Goal (issue 6): a bayes proposal with 1,000 observations under 50 ms.
// Last, `auto` on ktune's own GEMM space as a tune runs it (issue 51's goal:
// under 25 ms a configuration).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include <time.h>

#include <tbb/global_control.h>

#include "engine/cost_context.hpp"
#include "kernels_templated/family.hpp"
#include "search/searcher.hpp"
#include "space/device_spec.hpp"

namespace {

using namespace ktune;

Space bench_space() {
  Space s;
  s.add(Parameter::pow2_range("BLOCK_M", 16, 256, 64));
  s.add(Parameter::pow2_range("BLOCK_N", 16, 256, 64));
  s.add(Parameter::pow2_range("BLOCK_K", 8, 128, 32));
  s.add(Parameter::int_range("STAGES", 1, 6, 1, 2));
  s.add(Parameter::pow2_range("VEC", 1, 8, 4));
  s.add(Parameter::pow2_range("WARPS", 1, 16, 4));
  s.add(Parameter::categorical("RASTER", {"row", "col", "swizzle"}, "row"));
  s.require("STAGES * (BLOCK_M + BLOCK_N) * BLOCK_K * 2 <= 232448");
  return s;
}

/// Analytic, smooth-ish synthetic time (seconds).
double synthetic_time(const Config& c) {
  const double bm = std::log2(double(c.integer("BLOCK_M"))), bn = std::log2(double(c.integer("BLOCK_N")));
  const double bk = std::log2(double(c.integer("BLOCK_K"))), st = double(c.integer("STAGES"));
  const double v = std::log2(double(c.integer("VEC"))), w = std::log2(double(c.integer("WARPS")));
  const double r = c.text("RASTER") == "swizzle" ? 0.0 : 0.1;
  return 1e-4 * (1 + 0.3 * (bm - 7) * (bm - 7) + 0.3 * (bn - 7) * (bn - 7) + 0.2 * (bk - 5) * (bk - 5) +
                 0.1 * (st - 4) * (st - 4) + 0.2 * (v - 3) * (v - 3) + 0.15 * (w - 2) * (w - 2) + r);
}

Result measure(const Config& c) {
  Result r;
  r.config = c;
  r.status = Status::ok;
  r.time.median_s = r.time.min_s = r.time.max_s = synthetic_time(c);
  r.time.repetitions = 1;
  return r;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// CPU time of this thread in ms: on a shared machine, wall time also
/// counts other processes.
double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

/// SYNTHETIC work estimate of a bench_space() configuration, with its main
/// loop described, so that a strategy's cost-model upkeep (recalibrating the
/// term model on every batch of new results) is part of what is timed.
WorkEstimate synthetic_work(const Config& c) {
  const double bm = double(c.integer("BLOCK_M")), bn = double(c.integer("BLOCK_N")), bk = double(c.integer("BLOCK_K"));
  const double warps = double(c.integer("WARPS"));
  WorkEstimate w;
  w.flops = w.executed_flops = 2.0 * 4096 * 4096 * 4096;
  w.unit = ComputeUnit::tensor_bf16;
  w.dram_bytes = 2.0 * 4096 * 4096 * 3;
  w.loop_blocks = w.blocks = static_cast<long long>((4096 / bm) * (4096 / bn));
  w.threads_per_block = static_cast<int>(32 * warps);
  w.smem_per_block = static_cast<int>(double(c.integer("STAGES")) * (bm + bn) * bk * 2);
  w.loop_iterations = static_cast<int>(4096 / bk);
  w.pipeline_stages = static_cast<int>(c.integer("STAGES"));
  w.loads_per_iteration = std::ceil((bm + bn) * bk / double(c.integer("VEC")) / (32 * warps)) * warps;
  w.shared_bytes = w.executed_flops * (1 / bm + 1 / bn) * 2;
  w.predicated_loads = c.text("RASTER") != "row";
  return w;
}

void bench(const Space& space, const char* strategy, std::size_t observations, std::size_t batch, int proposals,
           bool with_model = false) {
  SearchContext ctx;
  ctx.space = &space;
  ctx.seed = 17;
  if (with_model) {
    const DeviceSpec device = *find_builtin_device("h200");
    ctx.work_estimate = synthetic_work;
    ctx.roofline = RooflineModel(device);
    ctx.predicted_time = [device](const Config& c) { return RooflineModel(device).predict(synthetic_work(c)).time_s; };
  }
  auto searcher = make_searcher(strategy, ctx);
  std::vector<Result> history;
  for (const auto& c : space.sample(observations, 99)) history.push_back(measure(c));
  searcher->observe(history);
  std::vector<double> times, cpu;
  double first = 0, first_cpu = 0;
  for (int i = 0; i < proposals; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = thread_cpu_ms();
    const auto batch_configs = searcher->propose(batch);
    const double ms = ms_since(t0);
    const double cpu_ms = thread_cpu_ms() - c0;
    if (i == 0) {
      first = ms;
      first_cpu = cpu_ms;
    } else {
      times.push_back(ms);
      cpu.push_back(cpu_ms);
    }
    std::vector<Result> results;
    for (const auto& c : batch_configs) results.push_back(measure(c));
    searcher->observe(results);
  }
  std::sort(times.begin(), times.end());
  std::sort(cpu.begin(), cpu.end());
  auto mean = [](const std::vector<double>& v) {
    return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  };
  std::printf("%-13s%s obs %5zu batch %2zu | first proposal (with hyperparameter fit): cpu %7.1f ms, wall %7.1f ms"
              " | next %2d: cpu mean %6.1f median %6.1f max %6.1f ms; wall mean %6.1f max %6.1f ms\n",
              strategy, with_model ? " +model" : "       ", observations, batch, first_cpu, first, proposals - 1, mean(cpu),
              cpu.empty() ? 0 : cpu[cpu.size() / 2], cpu.empty() ? 0 : cpu.back(), mean(times),
              times.empty() ? 0 : times.back());
}

/// `auto` as `ktune tune` runs it (batches of `batch` from nothing measured to
/// `evaluations`) on ktune's own GEMM space, bf16 nt 4096³ on the H200's
/// spec: too many configurations to list, so candidates come from
/// Space::sample, and the family's roofline is the (uncalibrated) cost model.
/// SYNTHETIC times: the roofline's prediction times a fixed pseudo-random
/// factor in [1, 2) per configuration.
void bench_gemm_family(std::size_t batch, std::size_t evaluations) {
  const KernelFamily& family = find_family("gemm");
  const DeviceSpec device = *find_builtin_device("h200");
  const Problem problem = parse_problem(family, "m=4096,n=4096,k=4096,dtype=bf16,layout=nt");
  const Space space = family.space(problem, device);
  SearchContext ctx;
  ctx.space = &space;
  ctx.seed = 17;
  attach_cost_model(ctx, family, problem, device);
  const auto predicted = ctx.predicted_time;
  auto searcher = make_searcher("auto", ctx);
  std::vector<double> cpu;
  double first_cpu = 0;
  std::size_t measured = 0;
  while (measured < evaluations) {
    const double c0 = thread_cpu_ms();
    const auto configs = searcher->propose(std::min(batch, evaluations - measured));
    const double cpu_ms = thread_cpu_ms() - c0;
    if (configs.empty()) break;
    if (measured == 0)
      first_cpu = cpu_ms;
    else
      cpu.push_back(cpu_ms);
    std::vector<Result> results;
    for (const auto& c : configs) {
      Result r;
      r.config = c;
      r.status = Status::ok;
      const double factor = 1.0 + double(std::hash<std::string>{}(c.key()) % 1000) / 1000.0;
      r.time.median_s = r.time.min_s = r.time.max_s = predicted(c) * factor;
      r.time.repetitions = 1;
      results.push_back(std::move(r));
    }
    measured += results.size();
    searcher->observe(results);
  }
  std::sort(cpu.begin(), cpu.end());
  std::printf(
      "auto on gemm bf16 nt 4096^3 (h200 spec, %llu valid configurations) batch %zu, %zu "
      "evaluations"
      " | first proposal cpu %.1f ms | next %zu: cpu median %.1f max %.1f ms (per configuration "
      "max %.1f ms)\n",
      static_cast<unsigned long long>(space.count_valid()), batch, measured, first_cpu, cpu.size(),
      cpu.empty() ? 0 : cpu[cpu.size() / 2], cpu.empty() ? 0 : cpu.back(),
      cpu.empty() ? 0 : cpu.back() / double(batch));
}

}  // namespace

int main() {
  // One core, as the goal states.
  tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
  const Space space = bench_space();
  std::printf("search CPU cost on a SYNTHETIC space (%llu valid configurations, %d encoded features), one thread\n",
              static_cast<unsigned long long>(space.count_valid()), space.encoded_size());
  for (std::size_t n : {100u, 300u, 1000u}) bench(space, "bayes", n, 1, 21);
  // 1000 observations and 201 more proposals: the hyperparameters are
  // refitted once the data grew by a fifth (at 1200), so the maximum
  // includes a refit.
  bench(space, "bayes", 1000, 1, 202);
  bench(space, "bayes", 1000, 1, 202, /*with_model=*/true);
  bench(space, "bayes", 1000, 8, 11);
  bench(space, "bayes-lcb", 1000, 1, 21);
  bench(space, "evolutionary", 1000, 1, 21);
  bench(space, "evolutionary", 1000, 1, 21, /*with_model=*/true);
  bench(space, "random", 1000, 1, 21);
  bench(space, "auto", 1000, 1, 21);
  bench(space, "model", 1000, 1, 6);  // no cost model given: the GP of bayes
  bench(space, "model", 1000, 1, 6, /*with_model=*/true);
  bench_gemm_family(8, 200);  // as `ktune tune --budget 200` proposes (--batch 8)
  bench_gemm_family(1, 200);
  return 0;
}
