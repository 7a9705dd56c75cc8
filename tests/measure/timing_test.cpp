// The shared timing method's pure parts (measure/timing.hpp): statistics of
// the samples, the stopping rule and the noisy mark, and the metrics record.
#include <gtest/gtest.h>

#include <vector>

#include "measure/timing.hpp"

namespace ktune {
namespace {

TEST(Timing, StatsOfHandPickedSamples) {
  // Sorted: 1..11 ms; median 6, p10 2, p90 10 -> spread (10 - 2) / 6.
  std::vector<double> ms = {6, 1, 11, 2, 10, 3, 9, 4, 8, 5, 7};
  for (double& v : ms) v *= 1e-3;
  const TimeStats t = time_stats(ms);
  EXPECT_DOUBLE_EQ(t.median_s, 6e-3);
  EXPECT_DOUBLE_EQ(t.min_s, 1e-3);
  EXPECT_DOUBLE_EQ(t.max_s, 11e-3);
  EXPECT_NEAR(t.spread, 8.0 / 6.0, 1e-12);
  EXPECT_EQ(t.repetitions, 11);
  EXPECT_EQ(time_stats({}).repetitions, 0);
}

TEST(Timing, StoppingRuleAndNoisyMark) {
  TimingOptions o;  // 10..200 repetitions, 0.5 s, spread 2%
  TimeStats t;
  t.repetitions = 10;
  t.spread = 0.01;
  EXPECT_TRUE(timing_done(t, 0.01, o));  // on target
  EXPECT_FALSE(is_noisy(t, o));
  t.repetitions = 9;
  EXPECT_FALSE(timing_done(t, 0.01, o));  // too few repetitions yet
  t.repetitions = 50;
  t.spread = 0.05;
  EXPECT_FALSE(timing_done(t, 0.1, o));  // above target, below both caps: go on
  EXPECT_TRUE(timing_done(t, 0.5, o));   // the time budget is spent
  t.repetitions = 200;
  EXPECT_TRUE(timing_done(t, 0.1, o));  // the repetition cap
  EXPECT_TRUE(is_noisy(t, o));          // ... ended above the target: noisy
}

TEST(Timing, MetricsRecord) {
  TimeStats t;
  t.repetitions = 200;
  t.spread = 0.031;
  const nlohmann::json j = timing_json(t, TimingOptions{}, true, 120u << 20);
  EXPECT_TRUE(j.at("noisy").get<bool>());
  EXPECT_EQ(j.at("reps").get<int>(), 200);
  EXPECT_DOUBLE_EQ(j.at("spread").get<double>(), 0.031);
  EXPECT_DOUBLE_EQ(j.at("target_spread").get<double>(), 0.02);
  EXPECT_EQ(j.at("flush_bytes").get<std::size_t>(), 120u << 20);
}

TEST(Timing, L2FlushIsEmptyWithoutAnL2) {
  const L2Flush none(0);
  EXPECT_EQ(none.bytes(), 0u);
  EXPECT_EQ(none.enqueue(nullptr, 0), cudaSuccess);  // nothing queued
}

}  // namespace
}  // namespace ktune
