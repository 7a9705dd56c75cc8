// The cost-model predictor's choice (lookup/lookup_predictor.hpp) from
// synthetic measurements: residuals per configuration against their own
// problem's median, shrunk towards a prior whose weight is chosen by leaving
// each problem out. Every time here is SYNTHETIC (made up by the test, not
// measured).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "lookup/lookup_predictor.hpp"
#include "tests/lookup/synthetic_gemm.hpp"

namespace ktune {
namespace {

using testing::h200;
using testing::kP;
using testing::kR;
using testing::kS;
using testing::problem;

std::vector<Measurement> measurements(const Problem& p,
                                      const std::map<const Config*, double>& seconds,
                                      const DeviceSpec& device) {
  std::vector<Measurement> out;
  for (const auto& [config, t] : seconds) {
    Measurement m;
    m.key.device = device;
    m.key.family = "gemm";
    m.key.family_hash = "synthetic-hash";
    m.key.problem = p;
    m.key.shape_keys = {"m", "n", "k"};
    m.key.shape_class = find_family("gemm").shape_class(p);
    m.result.config = *config;
    m.result.status = Status::ok;
    m.result.time.median_s = t;
    out.push_back(m);
  }
  return out;
}

TEST(CostModelPredictor, ConfigurationsFastAtOtherShapesArePredictedFastAndTheProblemsAreReported) {
  const DeviceSpec device = h200();
  // S (64x64 tiles) measured 4x slower than P everywhere; the model alone
  // would not see that much difference.
  std::vector<Measurement> all;
  for (std::int64_t m : {1024, 2048, 4096})
    for (auto& x :
         measurements(problem(m), {{&kP, 1e-4 * m / 1024}, {&kS, 4e-4 * m / 1024}}, device))
      all.push_back(x);
  CostModelPredictor predictor(all);
  EXPECT_EQ(predictor.models(), 1u);
  LookupRequest req;
  req.family = "gemm";
  req.problem = problem(8192);
  req.device = device.name;
  PredictionQuery q;
  q.request = &req;
  q.arch = device.arch();
  q.family_hash = "synthetic-hash";
  q.shape_class = find_family("gemm").shape_class(req.problem);
  q.candidates = {kS, kP};
  const auto choice = predictor.choose(q);
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->index, 1u);
  EXPECT_GT(choice->predicted_s, 0);
  EXPECT_EQ(choice->learned_from.size(), 3u);
  // The calibrated model alone ranks the smaller tile first at 8192 (more
  // blocks, less quantization): the residuals are what pick P.
  const auto plain =
      CostModelPredictor(all, {.config_residuals = false, .prior_weight = {}}).choose(q);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->index, 0u);
  // Another template version (or GPU) has nothing to learn from: no choice.
  q.family_hash = "other-hash";
  EXPECT_FALSE(predictor.choose(q));
}

/// kP with another GROUP_M: the same model time wherever both operands stay in L2.
Config regrouped(Config c) {
  c.set("GROUP_M", std::int64_t{1});
  return c;
}
const Config kPg = regrouped(kP);

PredictionQuery query_for(const LookupRequest& req, std::vector<Config> candidates) {
  PredictionQuery q;
  q.request = &req;
  q.arch = h200().arch();
  q.family_hash = "synthetic-hash";
  q.shape_class = find_family("gemm").shape_class(req.problem);
  q.candidates = std::move(candidates);
  return q;
}

std::vector<Measurement> joined(std::vector<std::vector<Measurement>> parts) {
  std::vector<Measurement> out;
  for (auto& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

TEST(CostModelPredictor, ResidualsCountAgainstTheirOwnProblemsMedian) {
  const DeviceSpec device = h200();
  // At 1024 everything ran 10x slower than at 4096 would suggest, except P:
  // P is 10x faster than that problem's median. Pg (P regrouped: the same
  // model time) is 2x faster than the median at 4096. Raw residuals would
  // favour Pg (its problem is not slow); against each problem's median, P.
  const auto all = joined({
      measurements(problem(1024), {{&kP, 1e-3}, {&kS, 10e-3}, {&kR, 10e-3}}, device),
      measurements(problem(4096), {{&kPg, 0.5e-3}, {&kS, 1e-3}, {&kR, 1e-3}}, device),
  });
  LookupRequest req;
  req.family = "gemm";
  req.problem = problem(2048);  // 1 from each
  req.device = device.name;
  const CostModelPredictor predictor(all, {.config_residuals = true, .prior_weight = 0});
  const auto choice = predictor.choose(query_for(req, {kPg, kP}));
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->index, 1u);
}

TEST(CostModelPredictor, FarResidualsAreShrunkTowardsAMedianConfiguration) {
  const DeviceSpec device = h200();
  // P is 5x faster than the median at 1024 and 4096 (1 from the asked 2048);
  // Pg 20x faster at m=2048, k=65536 only (6 away). Trusting every residual
  // fully picks Pg; with a prior, the nearby evidence for P wins.
  const auto all = joined({
      measurements(problem(1024), {{&kP, 0.2e-3}, {&kS, 1e-3}, {&kR, 1e-3}}, device),
      measurements(problem(4096), {{&kP, 0.8e-3}, {&kS, 4e-3}, {&kR, 4e-3}}, device),
      measurements(problem(2048, 1024, 65536), {{&kPg, 6.4e-3}, {&kS, 128e-3}, {&kR, 128e-3}},
                   device),
  });
  LookupRequest req;
  req.family = "gemm";
  req.problem = problem(2048);
  req.device = device.name;
  const auto q = query_for(req, {kPg, kP});
  const auto trusting =
      CostModelPredictor(all, {.config_residuals = true, .prior_weight = 0}).choose(q);
  ASSERT_TRUE(trusting);
  EXPECT_EQ(trusting->index, 0u);
  const CostModelPredictor shrinking(all, {.config_residuals = true, .prior_weight = 3});
  EXPECT_EQ(shrinking.prior_weight(q), 3.0);
  const auto shrunk = shrinking.choose(q);
  ASSERT_TRUE(shrunk);
  EXPECT_EQ(shrunk->index, 1u);
  // Unset, the weight is chosen among the grid by leaving each problem out.
  const auto chosen = CostModelPredictor(all).prior_weight(q);
  ASSERT_TRUE(chosen);
  EXPECT_NE(std::find(kPriorWeightGrid.begin(), kPriorWeightGrid.end(), *chosen),
            kPriorWeightGrid.end());
}

TEST(CostModelPredictor, ThePriorWeightIsChosenByLeavingEachProblemOut) {
  const DeviceSpec device = h200();
  // P is 2x faster than the median at 1024, 2048 and 4096. Pg (P regrouped:
  // the same model time there) was measured at 2048 and, 20x faster than the
  // median, at m=2048, k=65536 (6 away). Hiding 2048, trusting Pg's far
  // residual picks Pg; a prior picks P. Which one 2048 measured faster decides
  // the weight the calibration keeps.
  auto data = [&](double pg_at_2048) {
    return joined({
        measurements(problem(1024), {{&kP, 0.5e-3}, {&kS, 1e-3}, {&kR, 1e-3}}, device),
        measurements(problem(2048), {{&kP, 1e-3}, {&kPg, pg_at_2048}, {&kS, 2e-3}, {&kR, 2e-3}},
                     device),
        measurements(problem(4096), {{&kP, 2e-3}, {&kS, 4e-3}, {&kR, 4e-3}}, device),
        measurements(problem(2048, 1024, 65536), {{&kPg, 6.4e-3}, {&kS, 128e-3}, {&kR, 128e-3}},
                     device),
    });
  };
  LookupRequest req;
  req.family = "gemm";
  req.problem = problem(2048, 1024, 2048);
  req.device = device.name;
  const auto q = query_for(req, {kP, kPg});
  // Pg slow at 2048 (4x the median): the far residual misled, a prior pays.
  const auto misled = CostModelPredictor(data(8e-3)).prior_weight(q);
  ASSERT_TRUE(misled);
  EXPECT_GT(*misled, 0.0);
  // Pg fast at 2048 too (20x): trusting every residual was right.
  const auto trusted = CostModelPredictor(data(0.1e-3)).prior_weight(q);
  ASSERT_TRUE(trusted);
  EXPECT_EQ(*trusted, 0.0);
}

}  // namespace
}  // namespace ktune
