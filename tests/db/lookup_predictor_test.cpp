// Lookup with a predictor: the switch from nearest to predicted by distance,
// the candidates a predictor is offered, its provenance, and the cache.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <mutex>

#include "db/lookup.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

const DeviceSpec kA = synthetic_device("Synthetic GPU A", 9, 0);
const Config kX = tile_config(128, 128), kY = tile_config(64, 128), kZ = tile_config(256, 128),
             kW = tile_config(64, 64), kGeneral = tile_config(32, 32, 2);

LookupRequest request(const Problem& p) { return gemm_request(p, kA.name); }

/// Picks the candidate named `pick` (else declines) and remembers what it was asked.
class FakePredictor final : public LookupPredictor {
 public:
  explicit FakePredictor(std::optional<Config> pick) : pick_(std::move(pick)) {}
  std::optional<PredictedChoice> choose(const PredictionQuery& q) const override {
    std::lock_guard lock(mutex_);
    ++calls_;
    last_ = q.candidates;
    last_arch_ = q.arch;
    last_hash_ = q.family_hash;
    if (!pick_) return std::nullopt;
    for (std::size_t i = 0; i < q.candidates.size(); ++i)
      if (q.candidates[i] == *pick_)
        return PredictedChoice{i, 7e-4, {gemm_problem(1, 2, 3)}, kA.name};
    return std::nullopt;
  }
  int calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }
  std::vector<Config> last() const {
    std::lock_guard lock(mutex_);
    return last_;
  }
  std::string last_arch() const {
    std::lock_guard lock(mutex_);
    return last_arch_;
  }
  std::string last_hash() const {
    std::lock_guard lock(mutex_);
    return last_hash_;
  }

 private:
  std::optional<Config> pick_;
  mutable std::mutex mutex_;
  mutable int calls_ = 0;
  mutable std::vector<Config> last_;
  mutable std::string last_arch_, last_hash_;
};

class LookupPredictorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Store store = Store::open(path_);
    // 1024^3: X, Y, W (fastest first); 4096^3: Z, X.
    store.record(gemm_key(gemm_problem(1024, 1024, 1024), kA),
                 std::vector<Result>{ok_result(kX, 1e-3), ok_result(kY, 2e-3), ok_result(kW, 3e-3)},
                 test_provenance("team-a"));
    store.record(gemm_key(gemm_problem(4096, 4096, 4096), kA),
                 std::vector<Result>{ok_result(kZ, 5e-2), ok_result(kX, 6e-2)},
                 test_provenance("team-a"));
  }
  TempDir dir_;
  std::string path_ = dir_.file("lookup.db");
};

TEST_F(LookupPredictorTest, FarShapesArePredictedNearOnesStayNearest) {
  Lookup lookup = Lookup::open(path_);
  auto predictor = std::make_shared<FakePredictor>(kY);
  lookup.set_predictor(predictor, PredictionRule{.min_distance = 2.0});
  // 1000x1024x1024 is 0.03 from 1024^3: nearest, the predictor is not asked.
  auto near = lookup.best(request(gemm_problem(1000, 1024, 1024)));
  ASSERT_TRUE(near);
  EXPECT_EQ(near->source, LookupSource::nearest);
  EXPECT_EQ(near->config, kX);
  EXPECT_EQ(predictor->calls(), 0);
  // 1024x1024x4096 is exactly 2 from 1024^3 (and 2.83 from 4096^3): predicted.
  auto far = lookup.best(request(gemm_problem(1024, 1024, 4096)));
  ASSERT_TRUE(far);
  EXPECT_EQ(far->source, LookupSource::predicted);
  EXPECT_EQ(far->config, kY);
  EXPECT_DOUBLE_EQ(far->predicted_s, 7e-4);
  EXPECT_NEAR(far->distance, 2.0, 1e-12);
  ASSERT_EQ(far->learned_from.size(), 1u);
  EXPECT_EQ(far->learned_from[0], gemm_problem(1, 2, 3));
  // The measurement reported is the chosen configuration's own, where measured.
  EXPECT_EQ(far->measured_problem, gemm_problem(1024, 1024, 1024));
  EXPECT_EQ(far->result.time.median_s, 2e-3);
  EXPECT_EQ(predictor->last_arch(), "sm_90");
  EXPECT_EQ(predictor->last_hash(), "hash-current");
  // Exact answers never go to the predictor.
  auto exact = lookup.best(request(gemm_problem(4096, 4096, 4096)));
  ASSERT_TRUE(exact);
  EXPECT_EQ(exact->source, LookupSource::exact);
  EXPECT_EQ(to_string(LookupSource::predicted), "predicted");
}

TEST_F(LookupPredictorTest, CandidatesAreTheFittingWinnersNearestFirstEachOnceThenTheDefault) {
  Lookup lookup = Lookup::open(path_);
  auto predictor = std::make_shared<FakePredictor>(kGeneral);
  lookup.set_predictor(
      predictor, PredictionRule{.min_distance = 0.5, .winners_per_problem = 2, .problems = 64});
  LookupRequest req = request(gemm_problem(1024, 1024, 8192));  // 3 from 1024^3, 2 from 4096^3
  req.default_config = kGeneral;
  req.fits = [](const Config& c) { return c != kZ; };  // Z does not fit this problem
  auto a = lookup.best(req);
  ASSERT_TRUE(a);
  // 4096^3 first (nearer): Z refused, X; then 1024^3: X (already offered), Y
  // (W is its third fitting winner: beyond two per problem); the default last.
  EXPECT_EQ(predictor->last(), (std::vector<Config>{kX, kY, kGeneral}));
  EXPECT_EQ(a->source, LookupSource::predicted);
  EXPECT_EQ(a->config, kGeneral);
  EXPECT_TRUE(a->measured_problem.empty());  // the general configuration was not measured
  EXPECT_EQ(a->result.time.median_s, 0);
}

TEST_F(LookupPredictorTest, ADecliningPredictorLeavesTheNearestAnswer) {
  Lookup lookup = Lookup::open(path_);
  lookup.set_predictor(std::make_shared<FakePredictor>(std::nullopt),
                       PredictionRule{.min_distance = 0});
  auto a = lookup.best(request(gemm_problem(1024, 1024, 4096)));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->source, LookupSource::nearest);
  EXPECT_EQ(a->config, kX);
}

TEST_F(LookupPredictorTest, PredictedAnswersAreCachedAndANewPredictorClearsTheCache) {
  Lookup lookup = Lookup::open(path_);
  auto first = std::make_shared<FakePredictor>(kY);
  lookup.set_predictor(first, PredictionRule{.min_distance = 1});
  const LookupRequest req = request(gemm_problem(1024, 1024, 4096));
  auto a = lookup.best(req);
  auto b = lookup.best(req);
  EXPECT_EQ(a, b);  // the same cached answer
  EXPECT_EQ(first->calls(), 1);
  auto second = std::make_shared<FakePredictor>(kW);
  lookup.set_predictor(second, PredictionRule{.min_distance = 1});
  auto c = lookup.best(req);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->config, kW);
  EXPECT_EQ(second->calls(), 1);
  lookup.set_predictor(nullptr);
  auto d = lookup.best(req);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->source, LookupSource::nearest);
}

}  // namespace
}  // namespace ktune
