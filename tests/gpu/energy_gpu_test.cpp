// GPU test of the energy figure (skips without a device or without NVML's
// energy counter): a verified configuration gets joules per launch and a mean
// board power within what this board may draw, over a counter window of the
// chosen length.
#include <cstdio>

#include <gtest/gtest.h>

#include "engine/gpu_evaluator.hpp"
#include "kernels_templated/family.hpp"
#include "measure/device_query.hpp"
#include "measure/nvml.hpp"

using namespace ktune;

TEST(EnergyGpu, AVerifiedConfigurationCarriesEnergyAndPower) {
  const DeviceQuery q = query_devices();
  if (q.devices.empty()) GTEST_SKIP() << "no GPU: " << q.none_reason;
  GpuEvaluatorOptions options;
  options.energy.enabled = true;
  options.energy.min_window_s = 0.2;
  // 128 MiB read and written per launch: far beyond L2, a steady DRAM stream.
  GpuEvaluator ev(find_family("test_faulty"), Problem{{"n", std::int64_t{1} << 25}}, options);
  const Config config{{"threads", std::int64_t{256}},
                      {"items", std::int64_t{4}},
                      {"mode", std::string("normal")},
                      {"smem_stage", false}};
  const Result r = ev.evaluate({&config, 1}).front();
  ASSERT_EQ(r.status, Status::ok) << r.message;
  ASSERT_TRUE(r.metrics.contains("energy")) << r.metrics.dump();
  const auto& energy = r.metrics.at("energy");
  if (energy.contains("unavailable"))
    GTEST_SKIP() << "no energy on this machine: " << energy.at("unavailable").get<std::string>();
  const double joules = r.metrics.at("energy_j").get<double>();
  const double watts = r.metrics.at("power_w").get<double>();
  std::printf(
      "  %s: %.4g ms, %.4g J per launch, %.0f W over %d launches in %.3f s (%.3f s counted)\n",
      ev.device().name.c_str(), r.time.median_s * 1e3, joules, watts,
      energy.at("launches").get<int>(), energy.at("window_s").get<double>(),
      energy.at("counted_s").get<double>());
  EXPECT_GT(joules, 0.0);
  EXPECT_GT(watts, 20.0);  // a busy GPU draws more than this
  // Mean power over a busy window cannot exceed the board's limit by more
  // than the limiter's overshoot: a figure above it counted more than the
  // launches (idle time after them, or another window's energy).
  if (const auto limit_mw = Nvml::instance().power_limit_mw(q.devices.front().pci_bus_id)) {
    EXPECT_LE(watts, 1.1 * *limit_mw * 1e-3) << "board power limit " << *limit_mw * 1e-3 << " W";
  }
  EXPECT_LT(watts, 1500.0);  // no board draws this much
  EXPECT_GE(energy.at("counted_s").get<double>(), options.energy.min_window_s);
  // All launches ran longer than the counter's window, which lies inside them.
  EXPECT_GE(energy.at("window_s").get<double>(), energy.at("counted_s").get<double>());
}
