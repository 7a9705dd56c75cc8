// The evolutionary strategy on a SYNTHETIC space with a deceptive optimum
// (an analytic function shaped after, not taken from, the H200 recording of
// 128x4096x4096 GEMM): a broad basin of split-K configurations tops out at
// 0.9375 of the optimum, and the optimum is a narrow ridge that needs two
// knobs changed at once (no split-K and the deepest pipeline). A search whose
// mutation rate runs away after the stall stops taking such steps.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <gtest/gtest.h>

#include "search/searcher.hpp"

namespace ktune {
namespace {

Space deceptive_space() {
  Space s;
  s.add(Parameter::pow2_range("BM", 64, 128, 64));
  s.add(Parameter::pow2_range("BN", 64, 256, 64));
  s.add(Parameter::pow2_range("BK", 32, 64, 32));
  s.add(Parameter::pow2_range("WM", 32, 128, 32));
  s.add(Parameter::pow2_range("WN", 32, 128, 32));
  s.add(Parameter::int_range("STAGES", 2, 6, 1, 2));
  s.add(Parameter::list("SPLIT", {Value(std::int64_t{1}), Value(std::int64_t{4})},
                        Value(std::int64_t{1})));
  s.require("WM <= BM && WN <= BN");
  return s;
}

/// Synthetic time (arbitrary units). Split 4: a broad, smooth basin whose
/// best is 0.96. Split 1: 0.90 at the ridge's end (BM=BN=BK=64, WM=WN=32,
/// STAGES=6), 0.06 more per missing stage and 0.05 per step of any other knob
/// away from it, so split 1 with few stages looks worse than the basin.
double deceptive_time(const Config& c) {
  auto lg = [&](const char* k) { return std::log2(static_cast<double>(c.integer(k))); };
  const double stages = static_cast<double>(c.integer("STAGES"));
  if (c.integer("SPLIT") == 4)
    return 0.96 + 0.04 * (lg("BM") - 6) + 0.03 * (lg("BN") - 6) + 0.12 * (6 - lg("BK")) +
           0.02 * (lg("WM") - 5) + 0.02 * (lg("WN") - 5) + 0.03 * std::abs(stages - 3);
  const double off =
      (lg("BM") - 6) + (lg("BN") - 6) + (6 - lg("BK")) + (lg("WM") - 5) + (lg("WN") - 5);
  return 0.90 + 0.06 * (6 - stages) + 0.05 * off;
}

/// Evaluations until the optimum (0.90) is measured, or budget + 1.
std::size_t evaluations_to_optimum(const Space& space, std::uint64_t seed, std::size_t budget) {
  SearchContext ctx;
  ctx.space = &space;
  ctx.seed = seed;
  auto searcher = make_searcher("evolutionary", ctx);
  for (std::size_t used = 0; used < budget;) {
    auto proposals = searcher->propose(1);
    if (proposals.empty()) break;
    Result r;
    r.config = proposals.front();
    r.status = Status::ok;
    r.time.median_s = r.time.min_s = r.time.max_s = deceptive_time(r.config);
    r.time.repetitions = 1;
    ++used;
    if (r.time.median_s < 0.90 + 1e-9) return used;
    searcher->observe({&r, 1});
  }
  return budget + 1;
}

TEST(EvolutionarySearcher, LeavesABroadBasinForANarrowRidge) {
  const Space space = deceptive_space();
  const std::size_t budget = 200;
  double total = 0;
  std::size_t reached = 0;
  const std::uint64_t runs = 30;
  for (std::uint64_t seed = 1; seed <= runs; ++seed) {
    const std::size_t n = evaluations_to_optimum(space, seed, budget);
    total += static_cast<double>(n);
    reached += n <= budget ? 1 : 0;
  }
  std::printf(
      "synthetic deceptive space (%zu valid): optimum reached in %zu of %llu runs within %zu, "
      "mean %.1f evaluations (misses counted as %zu)\n",
      space.enumerate().size(), reached, static_cast<unsigned long long>(runs), budget,
      total / static_cast<double>(runs), budget + 1);
  // With the mutation rate capped at one knob in two and restarts after 24
  // children without progress: 28 of 30 (mean 64.8, misses counted as 201);
  // with the old cap of 0.9 (no restarts): 14 of 30 (mean 115.9).
  // Random search would need about 400 (one optimum among 800).
  EXPECT_GE(reached, 24u);
}

}  // namespace
}  // namespace ktune
