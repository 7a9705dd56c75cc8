// The Gaussian process's power-of-two features: on a SYNTHETIC space whose
// time depends on the power of two dividing two knobs (as a block size that
// must be a multiple of the wavefront, a tile of 3 that breaks alignment),
// `bayes` with them finds the optimum sooner than without.
#include <gtest/gtest.h>

#include "search/strategy_benchmark.hpp"

namespace ktune {
namespace {

/// SYNTHETIC recording (analytic times, never a measurement): block 16..256
/// in steps of 16, tile 1..4, unroll 0..5. Blocks that are not multiples of
/// 64 are 30x slower, a tile of 3 20x; otherwise a smooth bowl in tile and
/// unroll, best at block 128, tile 4, unroll 3.
std::shared_ptr<const RecordedSpace> power_of_two_recording() {
  std::vector<Result> results;
  for (std::int64_t block = 16; block <= 256; block += 16)
    for (std::int64_t tile = 1; tile <= 4; ++tile)
      for (std::int64_t unroll = 0; unroll < 6; ++unroll) {
        Result r;
        r.config = Config{{"block", block}, {"tile", tile}, {"unroll", unroll}};
        r.status = Status::ok;
        double t =
            1e-4 * (1.0 + 0.3 * double(4 - tile) + 0.05 * double((unroll - 3) * (unroll - 3)));
        if (block % 64 != 0) t *= 30;
        if (tile == 3) t *= 20;
        if (block != 128) t *= 1.02;
        r.time.median_s = t;
        results.push_back(r);
      }
  auto rs = std::make_shared<RecordedSpace>();
  rs->family = "synthetic_power_of_two";
  rs->source = "synthetic (in-test power-of-two cliffs)";
  rs->provenance["synthetic"] = true;
  rs->space = space_from_recorded(results);
  rs->restricted_to_recorded = true;
  for (auto& r : results) rs->results.emplace(r.config.key(), r);
  return rs;
}

double mean_fraction_at(const std::string& options, std::size_t budget) {
  StrategyBenchmarkOptions opt;
  opt.strategies = {"bayes"};
  opt.budgets = {budget};
  opt.repeats = 16;
  opt.seed = 3;
  if (!options.empty()) opt.search_options = ValueMap::parse(options);
  return run_strategy_benchmark({power_of_two_recording()}, opt)
      .spaces[0]
      .runs[0]
      .budgets[0]
      .mean_fraction;
}

TEST(BayesDivisibility, FindsPowerOfTwoOptimaSooner) {
  const double with = mean_fraction_at("", 30);
  const double without = mean_fraction_at("divisibility=0", 30);
  EXPECT_GT(with, without + 0.05) << "with " << with << ", without " << without;
}

}  // namespace
}  // namespace ktune
