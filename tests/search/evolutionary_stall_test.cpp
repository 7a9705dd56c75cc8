// The evolutionary strategy on a SYNTHETIC space with a deceptive optimum
// (an analytic function shaped after, not taken from, the H200 recording of
// 128x4096x4096 GEMM): a broad basin of split-K configurations tops out at
// 0.9375 of the optimum, and the optimum is a narrow ridge that needs two
// knobs changed at once (no split-K and the deepest pipeline). A search whose
// mutation rate runs away after the stall stops taking such steps. Also: how
// many knobs a child changes (mostly one or two), and the option that sets it.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

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
  // With k knobs mutated, P(k) ~ k^-2, and restarts after 24 children
  // without progress: 28 of 30 (mean 86.6, misses counted as 201); with a
  // per-knob rate of at most one in two (the 1/5 rule): 28 of 30 (64.8); with
  // the rule's old cap of 0.9 (no restarts): 14 of 30 (mean 115.9).
  // Random search would need about 400 (one optimum among 800).
  EXPECT_GE(reached, 24u);
}

/// Ten ordinal knobs of eight values, a smooth bowl: every knob counts.
Space bowl_space() {
  Space s;
  for (int i = 0; i < 10; ++i) s.add(Parameter::int_range("k" + std::to_string(i), 0, 7, 1, 0));
  return s;
}

double bowl_time(const Config& c) {
  double t = 1;
  for (int i = 0; i < 10; ++i)
    t += 0.1 * std::abs(static_cast<double>(c.integer("k" + std::to_string(i))) - 5);
  return t;
}

/// The share of proposals after the initial population that lie one or two
/// knobs from a configuration already measured.
double share_of_small_steps(const std::string& tail, std::uint64_t seed) {
  const Space space = bowl_space();
  SearchContext ctx;
  ctx.space = &space;
  ctx.seed = seed;
  if (!tail.empty()) ctx.options.set("mutation_tail", value_from_text(tail));
  auto searcher = make_searcher("evolutionary", ctx);
  std::vector<Config> measured;
  std::size_t small = 0, counted = 0;
  for (std::size_t used = 0; used < 150; ++used) {
    auto proposals = searcher->propose(1);
    if (proposals.empty()) break;
    const Config& c = proposals.front();
    if (used >= 24) {
      std::size_t nearest = 10;
      for (const Config& m : measured) {
        std::size_t d = 0;
        for (int i = 0; i < 10; ++i) {
          const std::string k = "k" + std::to_string(i);
          d += c.integer(k) != m.integer(k) ? 1 : 0;
        }
        nearest = std::min(nearest, d);
      }
      small += nearest <= 2 ? 1 : 0;
      ++counted;
    }
    Result r;
    r.config = c;
    r.status = Status::ok;
    r.time.median_s = r.time.min_s = r.time.max_s = bowl_time(c);
    r.time.repetitions = 1;
    measured.push_back(c);
    searcher->observe({&r, 1});
  }
  return counted ? static_cast<double>(small) / static_cast<double>(counted) : 0;
}

// Children mostly take the one- and two-knob steps that cross from one basin
// to the next; with every k equally likely (tail 0) they scatter.
TEST(EvolutionarySearcher, ChildrenMostlyChangeOneOrTwoKnobs) {
  double heavy = 0, uniform = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    heavy += share_of_small_steps("", seed) / 10;
    uniform += share_of_small_steps("0", seed) / 10;
  }
  std::printf("proposals one or two knobs from a measured one: %.2f (tail 2), %.2f (tail 0)\n",
              heavy, uniform);
  EXPECT_GE(heavy, 0.5);
  EXPECT_GT(heavy, uniform + 0.1);
}

TEST(EvolutionarySearcher, RefusesANegativeMutationTail) {
  const Space space = bowl_space();
  SearchContext ctx;
  ctx.space = &space;
  ctx.options.set("mutation_tail", -1.0);
  EXPECT_THROW(make_searcher("evolutionary", ctx), std::invalid_argument);
  ctx.options.set("mutation_tail", 0.0);
  EXPECT_NO_THROW(make_searcher("evolutionary", ctx));
}

}  // namespace
}  // namespace ktune
