// Leave-one-shape-out regret of the lookup's rules on small recordings whose
// regrets are computed by hand (the predictor's own tests:
// tests/lookup/lookup_predictor_test.cpp). Every time here is SYNTHETIC (made
// up by the test, not measured).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "cli/lookup_regret.hpp"
#include "compile/compiler.hpp"
#include "db/store.hpp"
#include "lookup/lookup_predictor.hpp"
#include "tests/lookup/synthetic_gemm.hpp"
#include "tests/support/recording.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using testing::h200;
using testing::kP;
using testing::kQ;
using testing::kR;
using testing::kS;
using testing::problem;

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
    const std::string path = (dir_ / name).string();
    testing::write_recording(rec, std::move(results), path);
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

}  // namespace
}  // namespace ktune
