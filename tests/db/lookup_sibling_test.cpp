// Lookup across GPUs of one arch: a sibling's exact answer before the asked
// GPU's nearest one, its nearest and predicted answers after the asked GPU's
// own, the chain's order as a policy, the arch-wide failure rule, "own
// measurements only", and each answer's origin.
#include <gtest/gtest.h>

#include <mutex>

#include "db/lookup.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

// A measured the bf16 class at 1024^3 only (its own V); B (same arch) at 1024^3 and
// 2048^3 and 8192x8192x1024; H (another arch) at 2048^3.
const DeviceSpec kA = synthetic_device("Synthetic GPU A", 9, 0);
const DeviceSpec kB = synthetic_device("Synthetic GPU B", 9, 0);
const DeviceSpec kH = synthetic_device("Synthetic GPU H", 8, 9);
const char* kNew = "Synthetic GPU N";  // of sm_90, never measured

const Config kX = tile_config(128, 128), kY = tile_config(64, 128), kZ = tile_config(256, 128),
             kW = tile_config(64, 64), kV = tile_config(128, 64);

LookupRequest request(const Problem& p, const std::string& device) {
  return gemm_request(p, device, "sm_90");
}

/// Picks the first candidate and remembers what it was asked.
class RecordingPredictor final : public LookupPredictor {
 public:
  std::optional<PredictedChoice> choose(const PredictionQuery& q) const override {
    std::lock_guard lock(mutex_);
    measured_on = q.measured_on;
    device = q.device;
    candidates = q.candidates;
    if (q.candidates.empty()) return std::nullopt;
    return PredictedChoice{0, 1e-3, {gemm_problem(2048, 2048, 2048)}, "Synthetic GPU B"};
  }
  mutable std::mutex mutex_;
  mutable std::string measured_on;
  mutable std::optional<DeviceSpec> device;
  mutable std::vector<Config> candidates;
};

class LookupSiblingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Store store = Store::open(path_);
    auto rec = [&](const Problem& p, const DeviceSpec& d, std::vector<Result> rs) {
      store.record(gemm_key(p, d), rs, test_provenance("team"));
    };
    rec(gemm_problem(1024, 1024, 1024), kA, {ok_result(kV, 1e-3)});
    rec(gemm_problem(1024, 1024, 1024), kB, {ok_result(kW, 0.9e-3)});
    rec(gemm_problem(2048, 2048, 2048), kB, {ok_result(kY, 5e-3), ok_result(kX, 6e-3)});
    rec(gemm_problem(8192, 8192, 1024), kB, {ok_result(kZ, 2e-2)});
    rec(gemm_problem(2048, 2048, 2048), kH, {ok_result(kW, 4e-3)});
  }
  TempDir dir_;
  std::string path_ = dir_.file("siblings.db");
};

TEST_F(LookupSiblingTest, ASiblingsExactShapeServesAGpuThatNeverMeasuredIt) {
  Lookup lookup = Lookup::open(path_);
  // B's exact 2048^3 comes before A's own nearest shape (1024^3) in the
  // default order; the new GPU has no own measurements at all.
  for (const std::string device : {kNew, "Synthetic GPU A"}) {
    auto a = lookup.best(request(gemm_problem(2048, 2048, 2048), device));
    ASSERT_TRUE(a) << device;
    EXPECT_EQ(a->source, LookupSource::exact);
    EXPECT_EQ(a->reach, LookupReach::sibling);
    EXPECT_EQ(a->measured_device, "Synthetic GPU B");
    EXPECT_EQ(a->config, kY);
    EXPECT_EQ(describe(*a), "exact (measured on Synthetic GPU B)");
  }
}

TEST_F(LookupSiblingTest, TheChainOrderIsOnePolicyThatDecidesOwnNearestAgainstSiblingExact) {
  Lookup lookup = Lookup::open(path_);
  lookup.set_chain_order({LookupTier::own_exact, LookupTier::own_nearest, LookupTier::sibling_exact,
                          LookupTier::sibling_nearest});
  auto a = lookup.best(request(gemm_problem(2048, 2048, 2048), "Synthetic GPU A"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->source, LookupSource::nearest);
  EXPECT_EQ(a->reach, LookupReach::own);
  EXPECT_EQ(a->config, kV);
  EXPECT_EQ(describe(*a), "nearest (measured on Synthetic GPU A, distance 1.73)");
  // Own exact still comes first, and a tier left out is skipped: no other arch.
  auto own = lookup.best(request(gemm_problem(1024, 1024, 1024), "Synthetic GPU A"));
  ASSERT_TRUE(own);
  EXPECT_EQ(own->reach, LookupReach::own);
  EXPECT_EQ(own->config, kV);
  lookup.set_chain_order({LookupTier::own_exact});
  EXPECT_EQ(lookup.best(request(gemm_problem(2048, 2048, 2048), kNew)), nullptr);
}

TEST_F(LookupSiblingTest, ASiblingsNearestShapeServesWhenNothingOwnFits) {
  Lookup lookup = Lookup::open(path_);
  auto a = lookup.best(request(gemm_problem(8000, 8192, 1024), kNew));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->source, LookupSource::nearest);
  EXPECT_EQ(a->reach, LookupReach::sibling);
  EXPECT_EQ(a->measured_device, "Synthetic GPU B");
  EXPECT_EQ(a->config, kZ);
  EXPECT_GT(a->distance, 0);
}

TEST_F(LookupSiblingTest, ASiblingsPredictionIsCalibratedThereAndEvaluatedForTheAskedGpu) {
  Lookup lookup = Lookup::open(path_);
  auto predictor = std::make_shared<RecordingPredictor>();
  lookup.set_predictor(predictor);
  LookupRequest r = request(gemm_problem(4096, 4096, 4096), kNew);
  DeviceSpec asked = synthetic_device(kNew, 9, 0);
  asked.sm_count = 114;
  asked.dram_gbps = 2000;
  r.device_spec = asked;
  auto a = lookup.best(r);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->source, LookupSource::predicted);
  EXPECT_EQ(a->reach, LookupReach::sibling);
  EXPECT_EQ(a->learned_on, "Synthetic GPU B");
  EXPECT_EQ(a->config, kY);
  EXPECT_EQ(describe(*a),
            "predicted from 1 problems measured on Synthetic GPU B (nearest at distance 1.73)");
  std::lock_guard lock(predictor->mutex_);
  EXPECT_EQ(predictor->measured_on, "Synthetic GPU B");
  ASSERT_TRUE(predictor->device);
  EXPECT_EQ(predictor->device->sm_count, 114);
  // B's winners only, nearest problem first: never A's V, never H's.
  EXPECT_EQ(predictor->candidates, (std::vector<Config>{kY, kX, kZ, kW}));
}

TEST_F(LookupSiblingTest, AFailureOnAnyGpuOfTheArchIsNeverServed) {
  {
    Store store = Store::open(path_);
    // Y computes wrong numbers at 2048^3 on A: B's fastest there is ruled out
    // for the whole arch, for B's own request and for a new GPU's.
    store.record(gemm_key(gemm_problem(2048, 2048, 2048), kA),
                 std::vector<Result>{failed_result(kY, Status::wrong_result)},
                 test_provenance("team"));
  }
  Lookup lookup = Lookup::open(path_);
  for (const char* device : {kNew, "Synthetic GPU B"}) {
    auto a = lookup.best(request(gemm_problem(2048, 2048, 2048), device));
    ASSERT_TRUE(a) << device;
    EXPECT_EQ(a->source, LookupSource::exact) << device;
    EXPECT_EQ(a->config, kX) << device;
  }
  // Nor lent to a neighbouring shape by nearest.
  auto near = lookup.best(request(gemm_problem(2000, 2048, 2048), kNew));
  ASSERT_TRUE(near);
  EXPECT_NE(near->config, kY);
}

TEST_F(LookupSiblingTest, OwnMeasurementsOnlyStopsBeforeAnySibling) {
  Lookup lookup = Lookup::open(path_);
  LookupRequest r = request(gemm_problem(2048, 2048, 2048), kNew);
  r.own_device_only = true;
  EXPECT_EQ(lookup.best(r), nullptr);
  r.default_config = tile_config(64, 64, 2);
  auto d = lookup.best(r);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->source, LookupSource::default_config);
  EXPECT_EQ(describe(*d), "default (nothing measured fits)");
  // A's own nearest still serves A; the same request without the option
  // answers from B (the cache keeps the two apart).
  LookupRequest own = request(gemm_problem(2048, 2048, 2048), "Synthetic GPU A");
  own.own_device_only = true;
  ASSERT_TRUE(lookup.best(own));
  EXPECT_EQ(lookup.best(own)->reach, LookupReach::own);
  r.own_device_only = false;
  EXPECT_EQ(lookup.best(r)->reach, LookupReach::sibling);
}

TEST_F(LookupSiblingTest, AnotherArchServesOnlyAfterEverySiblingTier) {
  Lookup lookup = Lookup::open(path_);
  // 2048^3 on sm_89 (H) is exact there, yet B (sm_90) measured it: B serves.
  auto a = lookup.best(request(gemm_problem(2048, 2048, 2048), kNew));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->reach, LookupReach::sibling);
  // An sm_90 GPU asking a class only sm_89 measured gets sm_89's exact shape.
  LookupRequest r = request(gemm_problem(2048, 2048, 2048), kNew);
  r.problem = gemm_problem(2048, 2048, 2048, "fp32");
  r.shape_class = "dtype=fp32,layout=nn";
  {
    Store store = Store::open(path_);
    store.record(gemm_key(r.problem, kH), std::vector<Result>{ok_result(kW, 4e-3)},
                 test_provenance("team"));
  }
  Lookup reopened = Lookup::open(path_);
  auto other = reopened.best(r);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->source, LookupSource::arch_fallback);
  EXPECT_EQ(other->reach, LookupReach::other_arch);
  EXPECT_EQ(describe(*other), "arch_fallback (this problem measured on Synthetic GPU H, sm_89)");
}

}  // namespace
}  // namespace ktune
