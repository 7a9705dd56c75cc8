// Leave-one-shape-out regret of the lookup's rules on small recordings whose
// regrets are computed by hand, and the cost-model predictor's choice. Every
// time here is SYNTHETIC (made up by the test, not measured).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "cli/lookup_regret.hpp"
#include "compile/compiler.hpp"
#include "db/store.hpp"
#include "lookup/lookup_predictor.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

DeviceSpec h200() {
  auto d = find_builtin_device("h200");
  EXPECT_TRUE(d);
  return d.value_or(DeviceSpec{});
}

Problem problem(std::int64_t m, std::int64_t n = 1024, std::int64_t k = 1024) {
  // The mma.sync path (path=mma: on the H200 bf16 takes the wgmma path in
  // every layout), whose predicated tiles fit every size here.
  return parse_problem(find_family("gemm"), "m=" + std::to_string(m) + ",n=" + std::to_string(n) +
                                                ",k=" + std::to_string(k) +
                                                ",dtype=bf16,layout=nn,path=mma");
}

/// The family's general configuration with other tile sizes (all predicated).
Config variant(std::int64_t block_m, std::int64_t warp_m, std::int64_t block_n,
               std::int64_t warp_n) {
  Config c = find_family("gemm").default_config(problem(1000), h200());
  c.set("BLOCK_M", block_m);
  c.set("WARP_M", warp_m);
  c.set("BLOCK_N", block_n);
  c.set("WARP_N", warp_n);
  return c;
}

const Config kP = variant(128, 64, 128, 32), kQ = variant(64, 32, 128, 64),
             kR = variant(128, 64, 64, 32), kS = variant(64, 32, 64, 32);

class LookupRegret : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ktune_lookup_regret_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  /// A recording of `p` with these synthetic times (milliseconds).
  std::string record(const std::string& name, const Problem& p,
                     const std::map<const Config*, double>& ms) {
    const KernelFamily& gemm = find_family("gemm");
    const Space space = gemm.space(p, h200());
    RecordedSpace rec;
    rec.family = "gemm";
    rec.problem = p;
    rec.device = h200();
    rec.device_name = rec.device->name;
    rec.provenance = {{"family_hash", "synthetic-hash"},
                      {"note", "SYNTHETIC test fixture, not measured"}};
    std::vector<Result> results;
    for (const auto& [config, t] : ms) {
      EXPECT_TRUE(space.is_valid(*config)) << config->key() << " for " << p.key();
      Result r;
      r.config = *config;
      r.status = Status::ok;
      r.time.median_s = r.time.min_s = r.time.max_s = t * 1e-3;
      r.time.repetitions = 1;
      results.push_back(r);
    }
    rec.space = space_from_recorded(results);
    rec.restricted_to_recorded = true;
    for (const Result& r : results) rec.results[r.config.key()] = r;
    const std::string path = (dir_ / name).string();
    write_recorded_space(rec, path);
    return path;
  }

  fs::path dir_;
};

const RuleAnswer& answer(const LookupRegretReport& r, std::size_t shape, const std::string& rule) {
  auto it = std::find(r.rules.begin(), r.rules.end(), rule);
  EXPECT_NE(it, r.rules.end()) << rule;
  return r.shapes.at(shape).answers.at(static_cast<std::size_t>(it - r.rules.begin()));
}

TEST_F(LookupRegret, HandComputedRegretsPerRule) {
  // m = 1100 (log2 bucket 10), 1000 (bucket 9), 2000 (bucket 10); n = k = 1024.
  const std::vector<std::string> files = {
      record("a.json", problem(1100),
             {{&kP, 2}, {&kQ, 1}, {&kR, 4}, {&kS, 8}}),  // optimum Q, median 3
      record("e.json", problem(1000),
             {{&kP, 1}, {&kQ, 2}, {&kR, 3}, {&kS, 4}}),  // winner P, median 2.5
      record("d.json", problem(2000),
             {{&kR, 1}, {&kP, 2}, {&kQ, 3}, {&kS, 4}}),  // winner R, median 2.5
  };
  LookupRegretOptions options;
  options.work_dir = dir_ / "work";
  const LookupRegretReport r = leave_one_shape_out(files, options);
  ASSERT_EQ(r.shapes.size(), 3u);

  // Hidden 1100: nearest is 1000 (0.14 away) -> P, 2 / 1. The bucket of 1100
  // holds 2000 only -> R, 4 / 1. The default is not recorded -> median 3 / 1.
  EXPECT_NEAR(r.shapes[0].nearest_distance, std::log2(1100.0 / 1000.0), 1e-12);
  EXPECT_EQ(answer(r, 0, "nearest").source, "nearest");
  EXPECT_EQ(answer(r, 0, "nearest").config_key, kP.key());
  EXPECT_DOUBLE_EQ(answer(r, 0, "nearest").regret, 2.0);
  EXPECT_EQ(answer(r, 0, "bucket").config_key, kR.key());
  EXPECT_DOUBLE_EQ(answer(r, 0, "bucket").regret, 4.0);
  EXPECT_FALSE(answer(r, 0, "default").recorded);
  EXPECT_DOUBLE_EQ(answer(r, 0, "default").regret, 3.0);
  // Hidden 1000: nearest 1100 -> Q, 2 / 1; bucket 9 holds nothing -> the
  // default, unrecorded -> median 2.5 / 1.
  EXPECT_EQ(answer(r, 1, "nearest").config_key, kQ.key());
  EXPECT_DOUBLE_EQ(answer(r, 1, "nearest").regret, 2.0);
  EXPECT_EQ(answer(r, 1, "bucket").source, "default");
  EXPECT_DOUBLE_EQ(answer(r, 1, "bucket").regret, 2.5);
  // Hidden 2000: nearest 1100 (0.86 away; 1000 is 1.0) -> Q, 3 / 1; bucket
  // 10 holds 1100 -> Q, 3 / 1.
  EXPECT_EQ(answer(r, 2, "nearest").config_key, kQ.key());
  EXPECT_DOUBLE_EQ(answer(r, 2, "nearest").regret, 3.0);
  EXPECT_DOUBLE_EQ(answer(r, 2, "bucket").regret, 3.0);

  const std::size_t nearest = 0, bucket = 1;
  EXPECT_NEAR(r.geomean[nearest], std::cbrt(2.0 * 2.0 * 3.0), 1e-12);
  EXPECT_DOUBLE_EQ(r.worst[nearest], 3.0);
  EXPECT_NEAR(r.geomean[bucket], std::cbrt(4.0 * 2.5 * 3.0), 1e-12);
  EXPECT_DOUBLE_EQ(r.worst[bucket], 4.0);

  for (std::size_t s = 0; s < 3; ++s) {
    // The default switch distance is 0: the chain predicts every hidden shape.
    EXPECT_EQ(answer(r, s, "lookup").config_key, answer(r, s, "predicted").config_key);
    // The predictor's answer is scored like the others.
    const RuleAnswer& p = answer(r, s, "predicted");
    EXPECT_EQ(p.source, "predicted");
    const double expected = p.recorded ? p.time_s / r.shapes[s].optimum_s
                                       : r.shapes[s].median_s / r.shapes[s].optimum_s;
    EXPECT_DOUBLE_EQ(p.regret, expected);
  }
  // The switch table: never switching is the nearest rule, switching at 0 the predicted one.
  EXPECT_TRUE(std::isinf(r.switch_table.back().min_distance));
  EXPECT_DOUBLE_EQ(r.switch_table.back().geomean, r.geomean[nearest]);
  EXPECT_EQ(r.switch_table.front().min_distance, 0.0);
  EXPECT_DOUBLE_EQ(r.switch_table.front().geomean, r.geomean[2]);

  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["shapes"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["summary"]["nearest"]["worst"].get<double>(), 3.0);
  // Two shapes teach each predictor: too few to choose its prior weight.
  std::size_t both = 0;
  double log_sum = 0;
  for (std::size_t s = 0; s < 3; ++s) {
    EXPECT_EQ(r.shapes[s].prior_weight, kDefaultPriorWeight);
    if (answer(r, s, "nearest").recorded && answer(r, s, "predicted").recorded) {
      ++both;
      log_sum += std::log(answer(r, s, "nearest").regret);
    }
  }
  EXPECT_EQ(r.both_recorded, both);
  if (both) {
    EXPECT_NEAR(r.geomean_both_recorded[nearest], std::exp(log_sum / static_cast<double>(both)),
                1e-12);
  }
  EXPECT_NE(format_table(r).find("| 1100x1024x1024 | 0.14 | 1.0 | 2.000 | 4.000 |"),
            std::string::npos);
}

TEST_F(LookupRegret, RefusesARecordingItCannotUseNamingIt) {
  const std::string good = record("a.json", problem(1100), {{&kP, 2}});
  EXPECT_THROW(leave_one_shape_out({good, (dir_ / "missing.json").string()}),
               std::invalid_argument);
  try {
    leave_one_shape_out({good, (dir_ / "missing.json").string()});
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("missing.json"), std::string::npos);
  }
  EXPECT_THROW(leave_one_shape_out({}), std::invalid_argument);
}

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
