// Tests of the roofline cost model: occupancy, waves, terms, bound, calibration.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "search/cost_model.hpp"
#include "search/rank_metrics.hpp"
#include "tests/search/toy_device.hpp"

namespace ktune {
namespace {

WorkEstimate toy_work() {
  WorkEstimate w;
  w.flops = 1e12;
  w.executed_flops = 1e12;
  w.unit = ComputeUnit::simt_fp32;
  w.dram_bytes = 1e11;
  w.blocks = 300;
  w.threads_per_block = 256;
  w.smem_per_block = 40000;
  w.kernels = 2;
  return w;
}

TEST(RooflineModel, HandComputedComputeBoundCase) {
  RooflineModel model(toy_device(), Calibration{0.5, 0.8, 1e-5, 0, {}});
  const Prediction p = model.predict(toy_work());
  // threads: 2048/256 = 8, shared memory: 100000/40000 = 2 -> 2 resident blocks.
  EXPECT_EQ(p.resident_blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(p.waves, 1.5);  // 300 / (100 x 2)
  // 1e12 / 1e13 = 0.1 s, x ceil(1.5)/1.5, / 0.5
  EXPECT_NEAR(p.compute_s, 0.1 * (2.0 / 1.5) / 0.5, 1e-12);
  EXPECT_NEAR(p.memory_s, 0.1 / 0.8, 1e-12);
  EXPECT_NEAR(p.latency_s, 2e-5, 1e-15);
  EXPECT_NEAR(p.time_s, p.compute_s + 2e-5, 1e-12);
  EXPECT_EQ(p.bound, Bound::compute);
}

TEST(RooflineModel, MemoryBoundAndPaddingWasteAndExtraBytes) {
  RooflineModel model(toy_device(), Calibration{1.0, 1.0, 0.0, 0, {}});
  WorkEstimate w = toy_work();
  w.blocks = 200;  // exactly one wave
  w.executed_flops = 2e11;
  w.flops = 1e11;
  w.extra_bytes = 1e11;
  const Prediction p = model.predict(w);
  EXPECT_NEAR(p.compute_s, 0.02, 1e-12);  // executed (padded) flops count, not useful ones
  EXPECT_NEAR(p.memory_s, 0.2, 1e-12);    // (1e11 + 1e11) / 1e12
  EXPECT_EQ(p.bound, Bound::memory);
}

TEST(RooflineModel, LatencyBoundWhenOverheadDominates) {
  RooflineModel model(toy_device(), Calibration{1.0, 1.0, 1e-3, 0, {}});
  WorkEstimate w = toy_work();
  w.flops = w.executed_flops = 1e6;
  w.dram_bytes = 1e6;
  const Prediction p = model.predict(w);
  EXPECT_EQ(p.bound, Bound::latency);
  EXPECT_NEAR(p.time_s, 2e-3 + 1e-6, 1e-12);  // overhead + the larger (memory) term
}

TEST(RooflineModel, RegistersLimitOccupancyAndOversizedBlocksNeverFit) {
  RooflineModel model(toy_device());
  WorkEstimate w = toy_work();
  w.smem_per_block = 0;
  w.regs_per_thread = 128;  // 128 x 32 = 4096 per warp, 8 warps -> 32768 -> 2 blocks
  EXPECT_EQ(model.predict(w).resident_blocks_per_sm, 2);
  w.regs_per_thread = 100;  // 3200 rounds up to 3328 per warp -> 26624 per block -> 2 blocks
  EXPECT_EQ(model.predict(w).resident_blocks_per_sm, 2);
  w.regs_per_thread = 0;
  w.smem_per_block = 120000;  // above the opt-in limit
  const Prediction p = model.predict(w);
  EXPECT_EQ(p.resident_blocks_per_sm, 0);
  EXPECT_TRUE(std::isinf(p.time_s));
}

TEST(RooflineModel, SmallGridPaysAFullWave) {
  RooflineModel model(toy_device(), Calibration{1.0, 1.0, 0.0, 0, {}});
  WorkEstimate w = toy_work();
  w.blocks = 50;  // a quarter of one wave (200 slots)
  w.dram_bytes = 0;
  const Prediction p = model.predict(w);
  EXPECT_DOUBLE_EQ(p.waves, 0.25);
  EXPECT_NEAR(p.compute_s, 0.1 * 4, 1e-12);
}

TEST(RooflineModel, CalibrationRecoversKnownFactors) {
  const Calibration truth{0.6, 0.9, 5e-6, 0, {}};
  RooflineModel truth_model(toy_device(), truth);
  std::vector<WorkEstimate> works;
  std::vector<double> times;
  for (int i = 0; i < 12; ++i) {
    WorkEstimate w = toy_work();
    w.blocks = 200;
    w.flops = w.executed_flops = 1e9 * (i + 1);
    w.dram_bytes = (i % 2 == 0) ? 1e7 * (i + 1) : 1e9 * (i + 1);  // alternate compute/memory bound
    w.kernels = 1 + i % 3;
    works.push_back(w);
    times.push_back(truth_model.predict(w).time_s);
  }
  RooflineModel fitted(toy_device());  // starts from the defaults (0.7, 0.8, 4us)
  fitted.calibrate(works, times);
  EXPECT_EQ(fitted.calibration().samples, 12);
  EXPECT_NEAR(fitted.calibration().compute_efficiency, 0.6, 1e-6);
  EXPECT_NEAR(fitted.calibration().memory_efficiency, 0.9, 1e-6);
  EXPECT_NEAR(fitted.calibration().launch_overhead_s, 5e-6, 1e-9);
}

TEST(RooflineModel, CalibrationKeepsDefaultsWithFewerThanThreePoints) {
  RooflineModel model(toy_device());
  model.calibrate({toy_work(), toy_work()}, {0.3, 0.3});
  EXPECT_EQ(model.calibration().samples, 0);
  EXPECT_DOUBLE_EQ(model.calibration().compute_efficiency, Calibration{}.compute_efficiency);
  // Points with no usable time do not count either.
  model.calibrate({toy_work(), toy_work(), toy_work()}, {0.3, 0.0, std::nan("")});
  EXPECT_EQ(model.calibration().samples, 0);
}

TEST(RankMetrics, SpearmanOnHandComputedSeries) {
  const std::vector<double> a{1, 2, 3, 4, 5};
  const std::vector<double> same{10, 20, 30, 40, 50};
  const std::vector<double> reversed{5, 4, 3, 2, 1};
  EXPECT_DOUBLE_EQ(spearman(a, same), 1.0);
  EXPECT_DOUBLE_EQ(spearman(a, reversed), -1.0);
  // d = (0,0,1,-1,0): 1 - 6*2/(5*24) = 0.9
  const std::vector<double> swapped{1, 2, 4, 3, 5};
  EXPECT_NEAR(spearman(a, swapped), 0.9, 1e-12);
  const std::vector<double> ties{1, 1, 2};
  const auto ranks = average_ranks(ties);
  EXPECT_DOUBLE_EQ(ranks[0], 1.5);
  EXPECT_DOUBLE_EQ(ranks[2], 3.0);
  EXPECT_THROW(spearman(a, ties), std::invalid_argument);
}

TEST(RankMetrics, OptimumRankPercentile) {
  const std::vector<double> measured{3.0, 1.0, 2.0, 4.0, 5.0};
  const std::vector<double> perfect{3.0, 1.0, 2.0, 4.0, 5.0};
  const std::vector<double> worst{1.0, 9.0, 2.0, 3.0, 4.0};
  const std::vector<double> middle{1.0, 3.0, 2.0, 4.0, 5.0};
  EXPECT_DOUBLE_EQ(optimum_rank_percentile(perfect, measured), 0.0);
  EXPECT_DOUBLE_EQ(optimum_rank_percentile(worst, measured), 100.0);
  EXPECT_DOUBLE_EQ(optimum_rank_percentile(middle, measured), 50.0);
}

}  // namespace
}  // namespace ktune
