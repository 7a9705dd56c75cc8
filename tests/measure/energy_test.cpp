// Energy per launch (measure/energy.hpp) without a GPU: how many launches a
// window takes, and what a reading stores (never a zero for "no figure").
#include "measure/energy.hpp"

#include <gtest/gtest.h>

namespace ktune {
namespace {

TEST(Energy, ChunksHoldAboutTwoMillisecondsWithinBounds) {
  EXPECT_EQ(energy_chunk_launches(1e-4), 20);   // 2 ms of 0.1 ms launches
  EXPECT_EQ(energy_chunk_launches(0.1), 1);     // long kernels: one a chunk
  EXPECT_EQ(energy_chunk_launches(1e-7), 256);  // tiny kernels: bounded
  EXPECT_EQ(energy_chunk_launches(0), 1);       // unknown time: one at a time
}

TEST(Energy, StoresJoulesPerLaunchAndMeanPower) {
  EnergyReading reading;
  reading.counter_mj = 90000;  // 90 J over 0.25 s of the counter's window: 360 W
  reading.counted_s = 0.25;
  reading.launches = 400;  // 1 ms each: 0.36 J per launch
  reading.window_s = 0.4;
  nlohmann::json metrics = nlohmann::json::object();
  store_energy(metrics, reading);
  EXPECT_DOUBLE_EQ(metrics.at("power_w").get<double>(), 360.0);
  EXPECT_DOUBLE_EQ(metrics.at("energy_j").get<double>(), 0.36);
  EXPECT_EQ(metrics.at("energy").at("launches"), 400);
  EXPECT_EQ(metrics.at("energy").at("method"), "nvml_total_energy_counter");
  EXPECT_FALSE(metrics.at("energy").contains("unavailable"));
}

TEST(Energy, ACounterThatDidNotMoveIsUnavailableNotZero) {
  EnergyReading reading;
  reading.counter_mj = 0;
  reading.launches = 20;
  reading.window_s = 0.2;
  reading.counted_s = 0.2;
  nlohmann::json metrics = {{"energy_j", 1.0}, {"power_w", 5.0}};  // stale figures go
  store_energy(metrics, reading);
  EXPECT_FALSE(metrics.contains("energy_j"));
  EXPECT_FALSE(metrics.contains("power_w"));
  EXPECT_NE(metrics.at("energy").at("unavailable").get<std::string>().find("did not advance"),
            std::string::npos);
  EXPECT_EQ(metrics.at("energy").at("launches"), 20);
}

TEST(Energy, UnavailableSaysWhy) {
  nlohmann::json metrics = nlohmann::json::object();
  store_energy_unavailable(metrics, "NVML is not available");
  EXPECT_EQ(metrics.at("energy").at("unavailable"), "NVML is not available");
  EXPECT_FALSE(metrics.contains("energy_j"));
}

}  // namespace
}  // namespace ktune
