// The profiler's and the energy reading's engine side: the results table's
// bound column when a run was profiled, and the worker options that carry
// --profile and --energy to an isolated worker. The measurements themselves
// are tested in tests/measure.
#include <sstream>

#include <gtest/gtest.h>

#include "engine/progress.hpp"
#include "engine/worker_protocol.hpp"
#include "measure/profiler_metrics.hpp"

using namespace ktune;

TEST(ResultsTable, BoundColumnOnlyWhenProfiled) {
  Result plain;
  plain.status = Status::ok;
  plain.time.median_s = 1e-3;
  plain.config = Config{{"x", std::int64_t(1)}};
  std::ostringstream without;
  print_results_table(without, {ResultRow{plain, std::nullopt}}, Throughput::tflops);
  EXPECT_EQ(without.str().find("bound"), std::string::npos) << without.str();

  Result profiled = plain;
  profiled.config = Config{{"x", std::int64_t(2)}};
  ProfileMetrics compute_bound;  // synthetic figures, not measurements
  compute_bound.compute_sol_pct = 88;
  compute_bound.memory_sol_pct = 20;
  profiled.metrics["bottleneck"] = bottleneck_to_json(classify_bottleneck(compute_bound));
  std::ostringstream with;
  print_results_table(with, {ResultRow{profiled, std::nullopt}, ResultRow{plain, std::nullopt}},
                      Throughput::tflops);
  EXPECT_NE(with.str().find("bound"), std::string::npos) << with.str();
  EXPECT_NE(with.str().find("compute"), std::string::npos) << with.str();
}

TEST(ProfileOption, TravelsToTheWorker) {
  GpuEvaluatorOptions o;
  EXPECT_FALSE(o.profile);
  EXPECT_FALSE(gpu_options_from_json(gpu_options_to_json(o)).profile);
  o.profile = true;
  EXPECT_TRUE(gpu_options_from_json(gpu_options_to_json(o)).profile);
  // Options written before the field existed read as off.
  EXPECT_FALSE(gpu_options_from_json(nlohmann::json{{"device", 0}}).profile);
}

TEST(EnergyOption, OffByDefaultAndTravelsToTheWorker) {
  GpuEvaluatorOptions o;
  EXPECT_FALSE(o.energy.enabled);  // the window costs GPU time the timing does not need
  EXPECT_FALSE(gpu_options_from_json(gpu_options_to_json(o)).energy.enabled);
  o.energy.enabled = true;
  o.energy.min_window_s = 0.3;
  const GpuEvaluatorOptions back = gpu_options_from_json(gpu_options_to_json(o));
  EXPECT_TRUE(back.energy.enabled);
  EXPECT_DOUBLE_EQ(back.energy.min_window_s, 0.3);
}
