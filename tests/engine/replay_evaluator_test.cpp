// Tests of the replay evaluator: recorded status and times, missing
// configurations, the recorded device, and a full loop over a recording.
#include <gtest/gtest.h>

#include <cstdlib>

#include "engine/replay_evaluator.hpp"
#include "engine/tuner.hpp"
#include "tuner_fakes.hpp"

namespace ktune {
namespace {

using testing::cfg;
using testing::x_of;

// A synthetic recording of x = 0..9: time 1 ms + 0.1 ms * |x - 6|, x = 3 failed.
std::vector<Result> synthetic_recording() {
  std::vector<Result> rec;
  for (int x = 0; x < 10; ++x) {
    Result r;
    r.config = cfg(x);
    if (x == 3) {
      r.status = Status::wrong_result;
      r.message = "synthetic mismatch";
    } else {
      r.status = Status::ok;
      r.time.median_s = 1e-3 + 1e-4 * std::abs(x - 6);
      r.tflops = 1.0 / r.time.median_s;
    }
    rec.push_back(r);
  }
  return rec;
}

DeviceSpec recorded_device() {
  DeviceSpec d;
  d.name = "Synthetic GPU";
  d.cc_major = 9;
  return d;
}

TEST(ReplayEvaluator, AnswersRecordedStatusAndTimes) {
  auto rec = synthetic_recording();
  ReplayEvaluator replay(recorded_device(), rec, "synthetic.json");
  EXPECT_EQ(replay.device().name, "Synthetic GPU");
  EXPECT_EQ(replay.size(), 10u);
  std::vector<Config> ask = {cfg(6), cfg(3), cfg(42)};
  std::vector<Result> out = replay.evaluate(ask);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].status, Status::ok);
  EXPECT_DOUBLE_EQ(out[0].time.median_s, 1e-3);
  EXPECT_EQ(out[1].status, Status::wrong_result);
  EXPECT_EQ(out[1].message, "synthetic mismatch");
  EXPECT_EQ(out[2].status, Status::invalid_config);
  EXPECT_EQ(x_of(out[2].config), 42);
  EXPECT_NE(out[2].message.find("synthetic.json"), std::string::npos);
  EXPECT_EQ(replay.answered(), 3u);
}

TEST(ReplayEvaluator, TheLoopFindsTheRecordedOptimum) {
  auto rec = synthetic_recording();
  ReplayEvaluator replay(recorded_device(), rec);
  Space space = testing::line_space(10);
  testing::ListSearcher searcher({9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
  testing::MemoryLog log;
  TuneInputs in;
  in.space = &space;
  in.searcher = &searcher;
  in.evaluator = &replay;
  in.log = &log;
  TuneReport report = Tuner(in, testing::options(10, 3)).run();
  ASSERT_TRUE(report.best);
  EXPECT_EQ(x_of(report.best->config), 6);
  EXPECT_EQ(report.failures, 1u);
  EXPECT_EQ(report.stop, StopReason::budget);
}

}  // namespace
}  // namespace ktune
