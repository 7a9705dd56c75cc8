// Tests of the replay evaluator: recorded status and times, unrecorded
// configurations, the recorded device, and a full loop over a recording.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "engine/replay_evaluator.hpp"
#include "engine/tuner.hpp"
#include "tuner_fakes.hpp"

namespace ktune {
namespace {

using testing::cfg;
using testing::x_of;

// A synthetic recording of x = 0..9 (x = 7 not recorded): time
// 1 ms + 0.1 ms * |x - 6|, x = 3 failed verification.
std::shared_ptr<const RecordedSpace> synthetic_recording() {
  auto rec = std::make_shared<RecordedSpace>();
  rec->family = "synthetic";
  rec->device_name = "Synthetic GPU";
  rec->source = "synthetic test fixture";
  rec->space = testing::line_space(10);
  for (int x = 0; x < 10; ++x) {
    if (x == 7) continue;
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
    rec->results[r.config.key()] = r;
  }
  return rec;
}

TEST(ReplayEvaluator, AnswersRecordedStatusAndTimes) {
  ReplayEvaluator replay(synthetic_recording());
  EXPECT_EQ(replay.device().name, "Synthetic GPU");
  std::vector<Config> ask = {cfg(6), cfg(3), cfg(7)};
  std::vector<Result> out = replay.evaluate(ask);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].status, Status::ok);
  EXPECT_DOUBLE_EQ(out[0].time.median_s, 1e-3);
  EXPECT_EQ(out[1].status, Status::wrong_result);
  EXPECT_EQ(out[1].message, "synthetic mismatch");
  EXPECT_EQ(out[2].status, Status::invalid_config);
  EXPECT_EQ(x_of(out[2].config), 7);
  EXPECT_EQ(replay.answered(), 3u);
}

TEST(ReplayEvaluator, RecordedDeviceFallsBackToTheBuiltInSpec) {
  RecordedSpace rec;
  rec.device_name = "NVIDIA H200";
  DeviceSpec d = recorded_device(rec);
  EXPECT_EQ(d.name, "NVIDIA H200");
  if (find_builtin_device("NVIDIA H200")) {
    EXPECT_GT(d.sm_count, 0);
  }
  rec.device_name.clear();
  EXPECT_FALSE(recorded_device(rec).name.empty());
}

TEST(ReplayEvaluator, TheLoopFindsTheRecordedOptimumWithoutCountingUnrecorded) {
  auto rec = synthetic_recording();
  ReplayEvaluator replay(rec);
  testing::ListSearcher searcher({9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
  testing::MemoryLog log;
  TuneInputs in = testing::inputs(rec->space, searcher, replay, log);
  TuneReport report = Tuner(in, testing::options(9, 3)).run();
  ASSERT_TRUE(report.best);
  EXPECT_EQ(x_of(report.best->config), 6);
  EXPECT_EQ(report.measured.size(), 9u);  // all recorded; x = 7 is not counted
  EXPECT_EQ(report.skipped_invalid, 1u);
  EXPECT_EQ(report.failures, 1u);
  EXPECT_EQ(log.stored_count(), 9u);
  EXPECT_EQ(report.stop, StopReason::budget);
}

}  // namespace
}  // namespace ktune
