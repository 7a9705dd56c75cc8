// Lookup by objective (LookupRequest::objective): the energy-optimal and the
// EDP-optimal configuration among verified results that carry energy
// (metrics.energy_j); SYNTHETIC results.
#include <gtest/gtest.h>

#include "db/lookup.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

const DeviceSpec kA = synthetic_device("Synthetic GPU A", 9, 0);
const Config kFast = tile_config(256, 128), kFrugal = tile_config(64, 64),
             kMiddle = tile_config(128, 128), kNoEnergy = tile_config(256, 256),
             kFailed = tile_config(32, 32);

Result with_energy(Result r, double joules) {
  r.metrics["energy_j"] = joules;
  r.metrics["power_w"] = joules / r.time.median_s;
  return r;
}

LookupRequest request(const Problem& p, Objective objective) {
  LookupRequest r = gemm_request(p, kA.name);
  r.objective = objective;
  return r;
}

class LookupEnergy : public ::testing::Test {
 protected:
  void SetUp() override {
    Store store = Store::open(path_);
    // time: NoEnergy < Fast < Middle < Frugal; energy: Frugal < Middle < Fast;
    // edp: Middle (0.6 x 1.5e-3 = 9e-4) < Fast (1.0 x 1e-3) < Frugal (0.5 x 3e-3).
    // kFailed would win every objective, but it also failed once: never served.
    const RunKey key = gemm_key(gemm_problem(4096, 4096, 4096), kA);
    const std::vector<Result> measured = {
        with_energy(ok_result(kFast, 1e-3), 1.0), with_energy(ok_result(kMiddle, 1.5e-3), 0.6),
        with_energy(ok_result(kFrugal, 3e-3), 0.5), ok_result(kNoEnergy, 0.5e-3),
        with_energy(ok_result(kFailed, 1e-4), 0.1)};
    store.record(key, measured, test_provenance());
    const std::vector<Result> failed = {failed_result(kFailed, Status::wrong_result)};
    store.record(key, failed, test_provenance());
    const std::vector<Result> small = {ok_result(kFast, 1e-4)};
    store.record(gemm_key(gemm_problem(1024, 1024, 1024), kA), small, test_provenance());
  }
  TempDir dir_;
  std::string path_ = dir_.file("energy.db");
};

TEST_F(LookupEnergy, EachObjectiveServesItsOwnOptimum) {
  Lookup lookup = Lookup::open(path_);
  const Problem p = gemm_problem(4096, 4096, 4096);
  auto time = lookup.best(request(p, Objective::time));
  auto energy = lookup.best(request(p, Objective::energy));
  auto edp = lookup.best(request(p, Objective::edp));
  ASSERT_TRUE(time && energy && edp);
  EXPECT_EQ(time->config, kNoEnergy);
  EXPECT_EQ(energy->config, kFrugal);
  EXPECT_EQ(edp->config, kMiddle);
  EXPECT_EQ(energy->source, LookupSource::exact);
  EXPECT_DOUBLE_EQ(energy_per_launch(energy->result).value_or(0), 0.5);
}

TEST_F(LookupEnergy, ResultsWithoutEnergyAreNeverServedForEnergy) {
  Lookup lookup = Lookup::open(path_);
  // 1024^3 holds only a result without energy: the nearest shape with
  // energy answers instead, and without any, the default.
  LookupRequest req = request(gemm_problem(1024, 1024, 1024), Objective::energy);
  auto a = lookup.best(req);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->source, LookupSource::nearest);
  EXPECT_EQ(a->config, kFrugal);
  req.fits = [](const Config& c) { return c != kFrugal && c != kMiddle && c != kFast; };
  req.default_config = tile_config(16, 16);
  auto fallback = lookup.best(req);
  ASSERT_TRUE(fallback);
  EXPECT_EQ(fallback->source, LookupSource::default_config);
  // Time is unaffected: the same request by time is an exact answer.
  auto by_time = lookup.best(request(gemm_problem(1024, 1024, 1024), Objective::time));
  ASSERT_TRUE(by_time);
  EXPECT_EQ(by_time->source, LookupSource::exact);
}

TEST_F(LookupEnergy, AnswersAreCachedPerObjective) {
  Lookup lookup = Lookup::open(path_);
  const Problem p = gemm_problem(4096, 4096, 4096);
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(lookup.best(request(p, Objective::time))->config, kNoEnergy);
    EXPECT_EQ(lookup.best(request(p, Objective::energy))->config, kFrugal);
  }
}

}  // namespace
}  // namespace ktune
