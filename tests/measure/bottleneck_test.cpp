// Tests of the profiler's CPU side (measure/profiler_metrics.hpp,
// measure/profiler.hpp): bottleneck classification from hand-made (synthetic)
// speed-of-light figures, how an outcome lands in a Result's metrics, the
// metric plan, and a profiler asked to run without a GPU.
#include <cmath>

#include <gtest/gtest.h>

#include "measure/device_query.hpp"
#include "measure/profiler.hpp"
#include "measure/profiler_metrics.hpp"

using namespace ktune;

namespace {

// Synthetic figures, not measurements.
ProfileMetrics sol(double compute, double memory) {
  ProfileMetrics m;
  m.compute_sol_pct = compute;
  m.memory_sol_pct = memory;
  return m;
}

}  // namespace

TEST(Bottleneck, MemoryWhenMemorySolIsHighAndLarger) {
  ProfileMetrics m = sol(20, 85);
  m.l2_hit_rate_pct = 3;
  m.dram_sol_pct = 84;
  Bottleneck b = classify_bottleneck(m);
  EXPECT_EQ(b.kind, BottleneckClass::memory);
  EXPECT_DOUBLE_EQ(b.memory_sol_pct, 85);
  EXPECT_DOUBLE_EQ(b.compute_sol_pct, 20);
  EXPECT_NE(b.reason.find("memory SOL 85.0%"), std::string::npos) << b.reason;
  EXPECT_NE(b.reason.find("L2 hit rate 3.0%"), std::string::npos) << b.reason;
}

TEST(Bottleneck, ComputeWhenComputeSolIsHighAndLarger) {
  ProfileMetrics m = sol(92, 30);
  m.achieved_occupancy_pct = 48;
  Bottleneck b = classify_bottleneck(m);
  EXPECT_EQ(b.kind, BottleneckClass::compute);
  EXPECT_NE(b.reason.find("compute SOL 92.0%"), std::string::npos) << b.reason;
  EXPECT_NE(b.reason.find("achieved occupancy 48.0%"), std::string::npos) << b.reason;
}

TEST(Bottleneck, BothHighGoesToTheLargerOne) {
  EXPECT_EQ(classify_bottleneck(sol(75, 70)).kind, BottleneckClass::compute);
  EXPECT_EQ(classify_bottleneck(sol(70, 75)).kind, BottleneckClass::memory);
  // A tie is memory (the reason says "not below").
  EXPECT_EQ(classify_bottleneck(sol(80, 80)).kind, BottleneckClass::memory);
}

TEST(Bottleneck, LatencyWhenBothAreUnderTheThreshold) {
  ProfileMetrics m = sol(25, 35);
  m.achieved_occupancy_pct = 18;
  Bottleneck b = classify_bottleneck(m);
  EXPECT_EQ(b.kind, BottleneckClass::latency);
  EXPECT_NE(b.reason.find("both under 60.0%"), std::string::npos) << b.reason;
  EXPECT_NE(b.reason.find("too few warps"), std::string::npos) << b.reason;

  m.achieved_occupancy_pct = 90;
  b = classify_bottleneck(m);
  EXPECT_EQ(b.kind, BottleneckClass::latency);
  EXPECT_NE(b.reason.find("stalled"), std::string::npos) << b.reason;
}

TEST(Bottleneck, ThresholdIsInclusive) {
  EXPECT_EQ(kSolBoundPct, 60.0);
  EXPECT_EQ(classify_bottleneck(sol(10, 60)).kind, BottleneckClass::memory);
  EXPECT_EQ(classify_bottleneck(sol(60, 10)).kind, BottleneckClass::compute);
  EXPECT_EQ(classify_bottleneck(sol(59.9, 59.9)).kind, BottleneckClass::latency);
}

TEST(Bottleneck, DramSolStandsInForAMissingMemorySol) {
  ProfileMetrics m;
  m.compute_sol_pct = 10;
  m.dram_sol_pct = 88;
  Bottleneck b = classify_bottleneck(m);
  EXPECT_EQ(b.kind, BottleneckClass::memory);
  EXPECT_DOUBLE_EQ(b.memory_sol_pct, 88);
}

TEST(Bottleneck, MissingOrNegativeFiguresAreRejected) {
  ProfileMetrics no_compute;
  no_compute.memory_sol_pct = 50;
  EXPECT_THROW(classify_bottleneck(no_compute), std::invalid_argument);
  ProfileMetrics no_memory;
  no_memory.compute_sol_pct = 50;
  EXPECT_THROW(classify_bottleneck(no_memory), std::invalid_argument);
  EXPECT_THROW(classify_bottleneck(sol(-1, 50)), std::invalid_argument);
}

TEST(Bottleneck, ClassNames) {
  EXPECT_EQ(to_string(BottleneckClass::memory), "memory");
  EXPECT_EQ(to_string(BottleneckClass::compute), "compute");
  EXPECT_EQ(to_string(BottleneckClass::latency), "latency");
}

TEST(StoreProfile, OkOutcomeGivesProfileBottleneckAndBound) {
  ProfileOutcome o;  // synthetic
  o.ok = true;
  o.metrics = sol(15, 91);
  o.metrics.dram_bytes_read = 1.0e9;
  o.metrics.dram_bytes_written = 0.5e9;
  o.metrics.duration_s = 4e-4;
  o.metrics.kernels = 1;
  o.metrics.passes = 3;
  o.counters["dram__bytes_read.sum"] = 1.0e9;
  nlohmann::json metrics = {{"registers", 40}};
  store_profile(metrics, o);
  EXPECT_EQ(metrics["registers"], 40);  // what was there stays
  EXPECT_DOUBLE_EQ(metrics["profile"]["dram_bytes_read"].get<double>(), 1.0e9);
  EXPECT_DOUBLE_EQ(metrics["profile"]["dram_bytes_written"].get<double>(), 0.5e9);
  EXPECT_DOUBLE_EQ(metrics["profile"]["duration_s"].get<double>(), 4e-4);
  EXPECT_EQ(metrics["profile"]["passes"], 3);
  EXPECT_FALSE(metrics["profile"].contains("l2_hit_rate_pct"));  // not measured: left out
  EXPECT_DOUBLE_EQ(metrics["profile"]["counters"]["dram__bytes_read.sum"].get<double>(), 1.0e9);
  EXPECT_EQ(metrics["bottleneck"]["class"], "memory");
  EXPECT_DOUBLE_EQ(metrics["bottleneck"]["memory_sol_pct"].get<double>(), 91);
  EXPECT_DOUBLE_EQ(metrics["bottleneck"]["compute_sol_pct"].get<double>(), 15);
  EXPECT_FALSE(metrics["bottleneck"]["reason"].get<std::string>().empty());
  EXPECT_EQ(metrics["bound"], "memory");  // what the model searcher steers by
}

TEST(StoreProfile, FailedOutcomeSaysWhyAndClassifiesNothing) {
  ProfileOutcome o;
  o.error = "counters not permitted";
  nlohmann::json metrics = nlohmann::json::object();
  store_profile(metrics, o);
  EXPECT_EQ(metrics["profile"]["error"], "counters not permitted");
  EXPECT_FALSE(metrics.contains("bottleneck"));
  EXPECT_FALSE(metrics.contains("bound"));
}

TEST(StoreProfile, UnclassifiableOutcomeKeepsItsMetrics) {
  ProfileOutcome o;
  o.ok = true;
  o.metrics.dram_bytes_read = 123;  // no SOL figures: synthetic partial outcome
  nlohmann::json metrics;
  store_profile(metrics, o);
  EXPECT_DOUBLE_EQ(metrics["profile"]["dram_bytes_read"].get<double>(), 123);
  EXPECT_TRUE(metrics["profile"].contains("classification_error"));
  EXPECT_FALSE(metrics.contains("bottleneck"));
}

TEST(KernelProfilerNoGpu, ReportsWhyInsteadOfThrowing) {
  DeviceQuery q = query_devices();
  if (!q.devices.empty())
    GTEST_SKIP() << "a GPU is present: tests/gpu/profiler_test.cpp covers this case";
  KernelProfiler profiler(0);
  bool launched = false;
  ProfileOutcome o = profiler.profile(
      [&](cudaStream_t) {
        launched = true;
        return cudaSuccess;
      },
      nullptr);
  EXPECT_FALSE(o.ok);
  EXPECT_FALSE(launched);
  EXPECT_NE(o.error.find("GPU"), std::string::npos) << o.error;
  EXPECT_TRUE(profiled_metric_names().size() >= 7);
}

TEST(KernelProfilerPlan, HopperSupportsEveryRequestedMetric) {
  // CUPTI's host API needs no GPU: this checks the metric names themselves.
  MetricPlan plan = plan_profiler_metrics("GH100");
  if (plan.error.find("could not be loaded") != std::string::npos) GTEST_SKIP() << plan.error;
  ASSERT_TRUE(plan.error.empty()) << plan.error;
  EXPECT_EQ(plan.metrics, profiled_metric_names());
  EXPECT_TRUE(plan.notes.empty()) << plan.notes.front();
  EXPECT_GT(plan.passes, 0u);
  EXPECT_DOUBLE_EQ(plan.duration_to_s, 1e-9);  // gpu__time_duration in nanoseconds
}

TEST(KernelProfilerPlan, UnknownChipIsAnErrorNotACrash) {
  MetricPlan plan = plan_profiler_metrics("NO_SUCH_CHIP");
  EXPECT_FALSE(plan.error.empty());
  EXPECT_TRUE(plan.metrics.empty());
}

TEST(KernelProfilerPlan, AnUnknownMetricIsLeftOutNotFatal) {
  MetricPlan plan = plan_profiler_metrics(
      "GH100", {"dram__bytes_read.sum", "no_such__metric.sum", "lts__t_sector_hit_rate.pct"});
  if (plan.error.find("could not be loaded") != std::string::npos) GTEST_SKIP() << plan.error;
  ASSERT_TRUE(plan.error.empty()) << plan.error;
  EXPECT_EQ(plan.metrics,
            (std::vector<std::string>{"dram__bytes_read.sum", "lts__t_sector_hit_rate.pct"}));
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes.front().find("no_such__metric.sum"), std::string::npos)
      << plan.notes.front();
  EXPECT_GT(plan.passes, 0u);
}
