// Energy per launch (measure/energy.hpp) without a GPU: how many launches a
// window takes, and what a reading stores (never a zero for "no figure").
#include "measure/energy.hpp"

#include <gtest/gtest.h>

namespace ktune {
namespace {

TEST(Energy, LaunchCountFillsTheWindowWithinBounds) {
  EnergyOptions o;
  o.min_window_s = 0.2;
  o.min_launches = 10;
  o.max_launches = 1000;
  EXPECT_EQ(energy_launch_count(1e-3, o), 200);   // 0.2 s of 1 ms launches
  EXPECT_EQ(energy_launch_count(0.1, o), 10);     // long kernels: at least min_launches
  EXPECT_EQ(energy_launch_count(1e-6, o), 1000);  // tiny kernels: at most max_launches
  EXPECT_EQ(energy_launch_count(0, o), 1000);     // unknown time: the cap
}

TEST(Energy, StoresJoulesPerLaunchAndMeanPower) {
  EnergyReading reading;
  reading.counter_mj = 90000;  // 90 J
  reading.launches = 300;
  reading.window_s = 0.25;
  reading.counted_s = 0.26;
  nlohmann::json metrics = nlohmann::json::object();
  store_energy(metrics, reading);
  EXPECT_DOUBLE_EQ(metrics.at("energy_j").get<double>(), 0.3);
  EXPECT_DOUBLE_EQ(metrics.at("power_w").get<double>(), 360.0);
  EXPECT_EQ(metrics.at("energy").at("launches"), 300);
  EXPECT_EQ(metrics.at("energy").at("method"), "nvml_total_energy_counter");
  EXPECT_FALSE(metrics.at("energy").contains("unavailable"));
}

TEST(Energy, ACounterThatDidNotMoveIsUnavailableNotZero) {
  EnergyReading reading;
  reading.counter_mj = 0;
  reading.launches = 20;
  reading.window_s = 0.2;
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
