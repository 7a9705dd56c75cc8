// Tests of the cost model's term model: non-negative least squares, the cost
// terms of a described main loop on hand-computed cases, calibration of the
// term weights, and the gemm main-loop description derived from the knobs.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "search/cost_model.hpp"
#include "search/nnls.hpp"
#include "tests/search/toy_device.hpp"

namespace ktune {
namespace {

std::size_t at(CostTerm t) { return static_cast<std::size_t>(t); }

TEST(NonNegativeLeastSquares, UnconstrainedOptimumWhenItIsNonNegative) {
  Eigen::MatrixXd a(3, 2);
  a << 1, 0, 0, 1, 1, 1;
  Eigen::VectorXd b(3);
  b << 1, 2, 3;  // exactly x = (1, 2)
  const Eigen::VectorXd x = nonnegative_least_squares(a, b);
  EXPECT_NEAR(x(0), 1.0, 1e-12);
  EXPECT_NEAR(x(1), 2.0, 1e-12);
}

TEST(NonNegativeLeastSquares, ClampsANegativeCoordinateAndRefitsTheRest) {
  // Unconstrained: x = (2, -1). With x >= 0: x2 = 0, and x1 minimises
  // (x1 - 2)^2 + (x1 - 1)^2 -> 1.5... on rows (1,0)->2, (1,1)->1.
  Eigen::MatrixXd a(2, 2);
  a << 1, 0, 1, 1;
  Eigen::VectorXd b(2);
  b << 2, 1;
  const Eigen::VectorXd x = nonnegative_least_squares(a, b);
  EXPECT_NEAR(x(0), 1.5, 1e-12);
  EXPECT_DOUBLE_EQ(x(1), 0.0);
}

TEST(NonNegativeLeastSquares, RidgePullsTowardsThePriorAndZeroColumnsKeepIt) {
  Eigen::MatrixXd a(2, 2);
  a << 1, 0, 1, 0;  // second column never used by the data
  Eigen::VectorXd b(2);
  b << 4, 4;
  Eigen::VectorXd prior(2);
  prior << 1, 3;
  // Column 1 has norm sqrt(2): the ridge row is sqrt(r) * (x1 - 1) * sqrt(2).
  // Minimise 2 (x1 - 4)^2 + 2 r (x1 - 1)^2 -> x1 = (4 + r) / (1 + r).
  const double r = 1.0;
  const Eigen::VectorXd x = nonnegative_least_squares(a, b, r, prior);
  EXPECT_NEAR(x(0), 2.5, 1e-12);
  EXPECT_DOUBLE_EQ(x(1), 3.0);
  EXPECT_THROW(nonnegative_least_squares(a, Eigen::VectorXd::Ones(3)), std::invalid_argument);
}

/// 300 blocks of 128 threads, 40 kB of shared memory: 2 resident per SM, 1.5 waves.
WorkEstimate toy_loop() {
  WorkEstimate w;
  w.flops = w.executed_flops = 1e12;
  w.unit = ComputeUnit::tensor_bf16;
  w.dram_bytes = 1e9;
  w.extra_bytes = 1e8;
  w.blocks = 310;  // the reduction kernel's 10 blocks do not count for the loop
  w.loop_blocks = 300;
  w.threads_per_block = 128;
  w.smem_per_block = 40000;
  w.kernels = 2;
  w.loop_iterations = 64;
  w.pipeline_stages = 3;
  w.loads_per_iteration = 16;
  w.shared_bytes = 2.56e11;
  w.predicated_loads = true;
  return w;
}

TEST(CostTerms, HandComputedLoopTerms) {
  const CostTerms t = cost_terms(toy_loop(), toy_device());
  ASSERT_TRUE(t.fits);
  ASSERT_TRUE(t.has_loop);
  EXPECT_EQ(t.resident_blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(t.waves, 1.5);
  const auto& s = t.seconds;
  const double q = 2.0 / 1.5;  // two full waves for 1.5 waves of work
  EXPECT_NEAR(s[at(CostTerm::compute)], 1e12 / 1e14 * q, 1e-15);
  EXPECT_NEAR(s[at(CostTerm::dram)], 1.1e9 / 1e12, 1e-15);
  EXPECT_NEAR(s[at(CostTerm::launch)], 2e-6, 1e-18);
  EXPECT_NEAR(s[at(CostTerm::split_reduce)], 1e-4, 1e-18);
  // 2.56e11 B / (100 SMs x 128 B x 1e9 /s) = 0.02 s, x q
  EXPECT_NEAR(s[at(CostTerm::shared_traffic)], 0.02 * q, 1e-15);
  // 2 waves x 64 iterations = 128; / (3 - 1) stages in flight; 1 us each
  EXPECT_NEAR(s[at(CostTerm::pipeline_latency)], 64e-6, 1e-15);
  EXPECT_NEAR(s[at(CostTerm::iteration_latency)], 128e-6, 1e-15);
  EXPECT_NEAR(s[at(CostTerm::block_iterations)], 256e-6, 1e-15);
  EXPECT_NEAR(s[at(CostTerm::block_load_issue)], 128 * 16 / 1e9, 1e-15);
  EXPECT_NEAR(s[at(CostTerm::predicated_load_issue)], 128 * 2 * 16 / 1e9, 1e-15);
  // 16 warp-level copies over 4 warps: 4 per thread, 10 clocks each
  EXPECT_NEAR(s[at(CostTerm::thread_load_issue_predicated)], 128 * 4 * 10 / 1e9, 1e-15);
  // 2 blocks x 4 warps = 8 resident warps: enough to feed the math units
  EXPECT_DOUBLE_EQ(s[at(CostTerm::tensor_underfill)], 0.0);
  EXPECT_NEAR(s[at(CostTerm::prologue)], 2 * 2e-6, 1e-18);

  WorkEstimate w = toy_loop();
  w.threads_per_block = 64;  // 2 warps x 2 blocks = 4: half of what the math units need
  w.predicated_loads = false;
  w.pipeline_stages = 1;     // nothing in flight: half a stage of overlap
  const CostTerms u = cost_terms(w, toy_device());
  EXPECT_NEAR(u.seconds[at(CostTerm::tensor_underfill)], u.seconds[at(CostTerm::compute)] * (8.0 / 4 - 1), 1e-15);
  EXPECT_DOUBLE_EQ(u.seconds[at(CostTerm::predicated_load_issue)], 0.0);
  EXPECT_DOUBLE_EQ(u.seconds[at(CostTerm::thread_load_issue_predicated)], 0.0);
  EXPECT_NEAR(u.seconds[at(CostTerm::pipeline_latency)], 128 / 0.5 * 1e-6, 1e-15);
}

TEST(CostTerms, WithoutALoopOnlyTheRooflineTerms) {
  WorkEstimate w = toy_loop();
  w.loop_iterations = 0;
  const CostTerms t = cost_terms(w, toy_device());
  EXPECT_FALSE(t.has_loop);
  EXPECT_GT(t.seconds[at(CostTerm::compute)], 0);
  EXPECT_DOUBLE_EQ(t.seconds[at(CostTerm::shared_traffic)], 0.0);
  EXPECT_DOUBLE_EQ(t.seconds[at(CostTerm::pipeline_latency)], 0.0);
}

TEST(TermModel, PredictsTheWeightedSumOnceWeightsExist) {
  Calibration cal;
  cal.term_weights.assign(kCostTerms, 0.0);
  cal.term_weights[at(CostTerm::shared_traffic)] = 2.0;   // compute class
  cal.term_weights[at(CostTerm::split_reduce)] = 1.0;     // memory class
  cal.term_weights[at(CostTerm::launch)] = 3.0;           // latency class
  const RooflineModel model(toy_device(), cal);
  const Prediction p = model.predict(toy_loop());
  ASSERT_TRUE(p.term_model);
  const double q = 2.0 / 1.5;
  EXPECT_NEAR(p.compute_s, 2.0 * 0.02 * q, 1e-15);
  EXPECT_NEAR(p.memory_s, 1e-4, 1e-15);
  EXPECT_NEAR(p.latency_s, 6e-6, 1e-15);
  EXPECT_NEAR(p.time_s, p.compute_s + p.memory_s + p.latency_s, 1e-15);
  EXPECT_EQ(p.bound, Bound::compute);
  // An estimate without a loop still gets the roofline.
  WorkEstimate plain = toy_loop();
  plain.loop_iterations = 0;
  EXPECT_FALSE(model.predict(plain).term_model);
}

TEST(TermModel, CalibrationRecoversKnownWeights) {
  // SYNTHETIC: times made by a known weighting of the default terms on
  // varied loop descriptions; the fit must find the weights again.
  std::vector<double> truth(kCostTerms, 0.0);
  truth[at(CostTerm::shared_traffic)] = 0.9;
  truth[at(CostTerm::launch)] = 4.0;
  truth[at(CostTerm::pipeline_latency)] = 0.07;
  truth[at(CostTerm::block_load_issue)] = 6.0;
  truth[at(CostTerm::prologue)] = 0.1;
  Calibration cal;
  cal.term_weights = truth;
  const RooflineModel truth_model(toy_device(), cal);
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> pick(0, 5);
  std::vector<WorkEstimate> works;
  std::vector<double> times;
  for (int i = 0; i < 40; ++i) {
    WorkEstimate w = toy_loop();
    w.loop_blocks = 50 * (1 + pick(rng));
    w.loop_iterations = 16 << pick(rng) % 4;
    w.pipeline_stages = 1 + pick(rng);
    w.loads_per_iteration = 4 << pick(rng) % 4;
    w.shared_bytes = 1e10 * (1 + pick(rng));
    w.kernels = 1 + pick(rng) % 2;
    w.predicated_loads = false;
    works.push_back(w);
    times.push_back(truth_model.predict(w).time_s);
  }
  RooflineModel fitted(toy_device());
  CalibrationOptions opt;
  opt.ridge = 0;
  fitted.calibrate(works, times, opt);
  ASSERT_EQ(fitted.calibration().term_weights.size(), kCostTerms);
  EXPECT_EQ(fitted.calibration().samples, 40);
  for (CostTerm t : {CostTerm::shared_traffic, CostTerm::launch, CostTerm::pipeline_latency,
                     CostTerm::block_load_issue, CostTerm::prologue})
    EXPECT_NEAR(fitted.calibration().term_weights[at(t)], truth[at(t)], 1e-6 * truth[at(t)]) << to_string(t);
  for (std::size_t i = 0; i < works.size(); ++i)
    EXPECT_NEAR(fitted.predict(works[i]).time_s, times[i], 1e-9 * times[i]);
}

TEST(TermModel, FewPointsWithoutPriorWeightsFitOnlyTheRoofline) {
  std::vector<WorkEstimate> works(5, toy_loop());
  std::vector<double> times{0.1, 0.1, 0.1, 0.1, 0.1};
  RooflineModel model(toy_device());
  model.calibrate(works, times);  // 5 < min_term_samples (12)
  EXPECT_TRUE(model.calibration().term_weights.empty());
  EXPECT_EQ(model.calibration().samples, 5);  // the roofline factors were fitted
}

}  // namespace
}  // namespace ktune
