// Tests of Space: validity, enumeration against brute force, counting,
// sampling (uniformity included), neighbours, repair, defaults, encoding.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "space/expression.hpp"
#include "space/space.hpp"

namespace ktune {
namespace {

std::int64_t I(std::int64_t v) { return v; }

/// PREFIX followed by I ("X3"), built by appending: GCC 12 at -O3 takes the
/// inlined `"X" + std::to_string(i)` for a buffer overflow (a false positive).
std::string indexed_name(const char* prefix, int i) {
  std::string name = prefix;
  name += std::to_string(i);
  return name;
}

/// A GEMM-like space: tiles, warps, stages, with a shared-memory limit.
Space gemm_like() {
  Space s(ValueMap{{"smem_max", I(48 * 1024)}, {"max_threads", I(1024)}});
  s.add(Parameter::pow2_range("BM", 16, 256, 64));
  s.add(Parameter::pow2_range("BN", 16, 256, 64));
  s.add(Parameter::pow2_range("BK", 8, 64, 16));
  s.add(Parameter::pow2_range("WM", 16, 128, 32));
  s.add(Parameter::pow2_range("WN", 16, 128, 32));
  s.add(Parameter::int_range("STAGES", 1, 5, 1, 2));
  s.add(Parameter::categorical("LOAD", {"plain", "cp_async"}, "cp_async"));
  s.add(Parameter::boolean("SWIZZLE", false));
  s.require("BM % WM == 0 && BN % WN == 0");
  s.require("(BM / WM) * (BN / WN) * 32 <= max_threads", "threads per block within the device limit");
  s.require("STAGES * (BM + BN) * BK * 4 <= smem_max");
  s.require("LOAD == 'cp_async' || STAGES == 1");
  return s;
}

TEST(Space, ValidityAndReasons) {
  Space s = gemm_like();
  Config c = s.default_config();
  EXPECT_TRUE(s.is_valid(c));
  std::string why;
  Config bad = c;
  bad.set("BM", I(48));
  EXPECT_FALSE(s.is_valid(bad, &why));
  EXPECT_NE(why.find("'BM'"), std::string::npos) << why;
  bad = c;
  bad.erase("STAGES");
  EXPECT_FALSE(s.is_valid(bad, &why));
  EXPECT_NE(why.find("missing parameter 'STAGES'"), std::string::npos) << why;
  bad = c;
  bad.set("EXTRA", I(1));
  EXPECT_FALSE(s.is_valid(bad, &why));
  EXPECT_NE(why.find("unknown parameter 'EXTRA'"), std::string::npos) << why;
  bad = c;
  bad.set("BM", I(16));
  bad.set("WM", I(32));
  EXPECT_FALSE(s.is_valid(bad, &why));
  EXPECT_EQ(why, "constraint failed: BM % WM == 0 && BN % WN == 0");
  bad = c;
  bad.set("LOAD", std::string("plain"));
  bad.set("STAGES", I(3));
  EXPECT_THROW(s.check(bad), SpaceError);
}

TEST(Space, AddRejectsDuplicatesAndConstantNames) {
  Space s(ValueMap{{"m", I(128)}});
  s.add(Parameter::boolean("A", false));
  EXPECT_THROW(s.add(Parameter::boolean("A", true)), SpaceError);
  EXPECT_THROW(s.add(Parameter::boolean("m", true)), SpaceError);
  EXPECT_THROW(s.require("A reads B", {"A", "B"}, [](const Assignment&) { return true; }), SpaceError);
}

/// Brute force: every point of the Cartesian product, each constraint
/// evaluated from scratch with every name a constant (no slots, no pruning,
/// no groups).
std::set<std::string> brute_force(const Space& s) {
  std::set<std::string> out;
  const auto& params = s.parameters();
  std::vector<ValueIndex> idx(params.size(), 0);
  while (true) {
    Config c = s.config_at(idx);
    ValueMap names = s.constants();
    for (const auto& [k, v] : c) names.set(k, v);
    bool ok = true;
    for (const auto& constraint : s.constraints())
      if (!Expression::compile(constraint.expression, names).test()) ok = false;
    if (ok) out.insert(c.key());
    std::size_t p = 0;
    for (; p < params.size(); ++p) {
      if (++idx[p] < params[p].size()) break;
      idx[p] = 0;
    }
    if (p == params.size()) break;
  }
  return out;
}

/// A random space of 2-6 small parameters and 0-4 random arithmetic constraints
/// over random pairs/triples (some parameters left unconstrained, so there are
/// several independent groups).
Space random_space(std::mt19937_64& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  Space s(ValueMap{{"limit", I(12)}});
  const int n = 2 + pick(5);
  std::vector<std::string> names;
  for (int p = 0; p < n; ++p) {
    const std::string name = indexed_name("P", p);
    names.push_back(name);
    switch (pick(4)) {
      case 0: s.add(Parameter::int_range(name, 0, 1 + pick(5), 1, 0)); break;
      case 1: s.add(Parameter::pow2_range(name, 1, 1 << pick(4), 1)); break;
      case 2: s.add(Parameter::list(name, {I(3), I(1), I(2)}, I(1))); break;
      default: s.add(Parameter::int_range(name, 1, 7, 2, 1)); break;
    }
  }
  const int constraints = pick(5);
  for (int k = 0; k < constraints; ++k) {
    const std::string& a = names[static_cast<std::size_t>(pick(n))];
    const std::string& b = names[static_cast<std::size_t>(pick(n))];
    const std::string& c = names[static_cast<std::size_t>(pick(n))];
    switch (pick(4)) {
      case 0: s.require(a + " + " + b + " <= limit / 2"); break;
      case 1: s.require("(" + a + " * " + b + ") % 3 != 1"); break;
      case 2: s.require(a + " <= " + b + " || " + c + " == 2"); break;
      default: s.require("max(" + a + ", " + c + ") - min(" + b + ", 1) < 4"); break;
    }
  }
  return s;
}

TEST(Space, EnumerationMatchesBruteForceOnRandomSpaces) {
  std::mt19937_64 rng(20261129);
  int non_trivial = 0;
  for (int trial = 0; trial < 60; ++trial) {
    Space s = random_space(rng);
    const std::set<std::string> expected = brute_force(s);
    const std::vector<Config> got = s.enumerate();
    std::set<std::string> keys;
    for (const auto& c : got) keys.insert(c.key());
    ASSERT_EQ(keys.size(), got.size()) << "duplicates, trial " << trial;
    ASSERT_EQ(keys, expected) << "trial " << trial << " " << s.to_json().dump();
    EXPECT_EQ(s.count_valid(), expected.size()) << "trial " << trial;
    std::size_t visited = 0;
    s.for_each_valid([&](std::span<const ValueIndex> idx) {
      ++visited;
      EXPECT_TRUE(s.is_valid_indices(idx));
    });
    EXPECT_EQ(visited, expected.size());
    if (expected.size() > 0 && expected.size() < s.cartesian_size()) ++non_trivial;
  }
  EXPECT_GT(non_trivial, 20);  // the trials must exercise pruning, not only full/empty spaces
}

TEST(Space, EnumerationIsLexicographicOverPositions) {
  Space s = gemm_like();
  const auto all = s.enumerate();
  ASSERT_GT(all.size(), 10u);
  for (std::size_t k = 1; k < all.size(); ++k)
    ASSERT_TRUE(std::lexicographical_compare(
        s.indices_of(all[k - 1]).begin(), s.indices_of(all[k - 1]).end(),
        s.indices_of(all[k]).begin(), s.indices_of(all[k]).end()))
        << k;
}

TEST(Space, CppConstraintsPruneLikeExpressions) {
  Space a = gemm_like();
  Space b(a.constants());
  for (const auto& p : a.parameters()) b.add(p);
  b.require("tiles divide", {"BM", "WM", "BN", "WN"}, [](const Assignment& x) {
    return x.i("BM") % x.i("WM") == 0 && x.i("BN") % x.i("WN") == 0;
  });
  b.require("threads", {"BM", "WM", "BN", "WN", "max_threads"}, [](const Assignment& x) {
    return (x.i("BM") / x.i("WM")) * (x.i("BN") / x.i("WN")) * 32 <= x.i("max_threads");
  });
  b.require("smem", {"STAGES", "BM", "BN", "BK", "smem_max"}, [](const Assignment& x) {
    return x.i("STAGES") * (x.i("BM") + x.i("BN")) * x.i("BK") * 4 <= x.i("smem_max");
  });
  b.require("load", {"LOAD", "STAGES"}, [](const Assignment& x) {
    return x.s("LOAD") == "cp_async" || x.i("STAGES") == 1;
  });
  EXPECT_EQ(a.count_valid(), b.count_valid());
  EXPECT_EQ(a.enumerate(), b.enumerate());
  // The callable form of expression constraints agrees too.
  const Config c = a.default_config();
  for (const auto& constraint : a.constraints()) {
    struct MapAssignment : Assignment {
      ValueMap m;
      const Value& get(std::string_view n) const override { return m.at(n); }
    } assignment;
    assignment.m = c;
    for (const auto& [k, v] : a.constants()) assignment.m.set(k, v);
    EXPECT_TRUE(constraint.test(assignment)) << constraint.description;
  }
}

TEST(Space, UndeclaredNameInCppConstraintIsReported) {
  Space s;
  s.add(Parameter::int_range("A", 1, 3, 1, 1));
  s.add(Parameter::int_range("B", 1, 3, 1, 1));
  s.require("A below B", {"A"}, [](const Assignment& x) { return x.i("A") < x.i("B"); });
  try {
    s.count_valid();
    FAIL() << "expected SpaceError";
  } catch (const SpaceError& e) {
    EXPECT_NE(std::string(e.what()).find("'B'"), std::string::npos) << e.what();
  }
}

TEST(Space, SampleIsDistinctValidAndDeterministic) {
  Space s = gemm_like();
  const auto a = s.sample(50, 7);
  const auto b = s.sample(50, 7);
  const auto c = s.sample(50, 8);
  ASSERT_EQ(a.size(), 50u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::set<std::string> keys;
  for (const auto& x : a) {
    EXPECT_TRUE(s.is_valid(x));
    keys.insert(x.key());
  }
  EXPECT_EQ(keys.size(), a.size());
  // Asking for more than there is gives all of it.
  const auto all = s.sample(1'000'000, 1);
  EXPECT_EQ(all.size(), s.count_valid());
}

TEST(Space, SampleIsUniform) {
  // 3 x 4 x 4 = 48 points, constraint keeps A + B + C <= 6 (synthetic fixture).
  // Each single draw must hit every valid point with equal probability:
  // chi-square over many seeded one-point samples.
  Space s;
  s.add(Parameter::int_range("A", 0, 2, 1, 0));
  s.add(Parameter::int_range("B", 0, 3, 1, 0));
  s.add(Parameter::int_range("C", 0, 3, 1, 0));
  s.require("A + B + C <= 4");
  const std::uint64_t valid = s.count_valid();
  ASSERT_GT(valid, 10u);
  std::map<std::string, int> counts;
  const int draws = 20000;
  for (int k = 0; k < draws; ++k) counts[s.sample(1, 1000 + static_cast<std::uint64_t>(k))[0].key()]++;
  ASSERT_EQ(counts.size(), valid);
  const double expected = static_cast<double>(draws) / static_cast<double>(valid);
  double chi2 = 0;
  for (const auto& [key, n] : counts) chi2 += (n - expected) * (n - expected) / expected;
  // dof = valid - 1 (~30); the 99.9% quantile of chi-square(30) is about 59.7.
  EXPECT_LT(chi2, 60.0) << "valid=" << valid;
}

TEST(Space, SampleUniformWithRejection) {
  // A group too large to tabulate (2^20 Cartesian points) goes through
  // rejection sampling; check the marginal of one parameter against the
  // exact count (synthetic fixture).
  Space s;
  for (int p = 0; p < 5; ++p) s.add(Parameter::int_range(indexed_name("X", p), 0, 15, 1, 0));
  s.require("X0 + X1 + X2 + X3 + X4 <= 40");
  std::vector<double> exact(16, 0);
  s.for_each_valid([&](std::span<const ValueIndex> idx) { exact[idx[0]] += 1; });
  const double total = static_cast<double>(s.count_valid());
  const auto samples = s.sample(20000, 3);
  ASSERT_EQ(samples.size(), 20000u);
  std::vector<double> seen(16, 0);
  for (const auto& c : samples) seen[static_cast<std::size_t>(c.integer("X0"))] += 1;
  double chi2 = 0;
  for (int v = 0; v < 16; ++v) {
    const double e = exact[static_cast<std::size_t>(v)] / total * 20000;
    chi2 += (seen[static_cast<std::size_t>(v)] - e) * (seen[static_cast<std::size_t>(v)] - e) / e;
  }
  EXPECT_LT(chi2, 37.7);  // chi-square(15) 99.9% quantile
}

TEST(Space, FewerRejectionSamplesAreAPrefixOfMore) {
  // The searchers ask for a few more draws than they need and keep the first
  // unseen ones: that gives what asking for twice as many did only because a
  // seed's draws come in a fixed order, whatever the count asked.
  Space s;
  for (int p = 0; p < 5; ++p) s.add(Parameter::int_range(indexed_name("X", p), 0, 15, 1, 0));
  s.require("X0 + X1 + X2 + X3 + X4 <= 40");
  const auto few = s.sample(458, 11);
  const auto many = s.sample(808, 11);
  ASSERT_EQ(few.size(), 458u);
  ASSERT_EQ(many.size(), 808u);
  for (std::size_t i = 0; i < few.size(); ++i)
    ASSERT_EQ(few[i].key(), many[i].key()) << "draw " << i;
}

TEST(Space, SampleFallsBackToEnumerationWhenAcceptanceIsTiny) {
  // 16^5 = 2^20 Cartesian points, 56 valid (sum <= 3): rejection would need
  // ~18,000 draws per sample, so the group is enumerated instead.
  Space s;
  for (int p = 0; p < 5; ++p) s.add(Parameter::int_range(indexed_name("X", p), 0, 15, 1, 0));
  s.require("X0 + X1 + X2 + X3 + X4 <= 3");
  ASSERT_EQ(s.count_valid(), 56u);
  const auto some = s.sample(10, 5);
  ASSERT_EQ(some.size(), 10u);
  for (const auto& c : some) EXPECT_TRUE(s.is_valid(c));
  const auto all = s.sample(100, 5);
  EXPECT_EQ(all.size(), 56u);
  std::set<std::string> keys;
  for (const auto& c : all) keys.insert(c.key());
  EXPECT_EQ(keys.size(), 56u);
}

TEST(Space, ConcurrentQueriesOnASharedSpace) {
  // The plan and group tables are built lazily; concurrent first calls must
  // agree (run under -DKTUNE_SANITIZE=ON for the race checks).
  const Space s = gemm_like();
  const std::uint64_t expected = gemm_like().count_valid();
  std::vector<std::thread> threads;
  std::vector<std::uint64_t> counts(4, 0), samples(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      counts[static_cast<std::size_t>(t)] = s.count_valid();
      samples[static_cast<std::size_t>(t)] = s.sample(20, static_cast<std::uint64_t>(t)).size();
      std::size_t n = 0;
      s.for_each_valid([&](std::span<const ValueIndex>) { ++n; });
      EXPECT_EQ(n, expected);
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(counts[static_cast<std::size_t>(t)], expected);
    EXPECT_EQ(samples[static_cast<std::size_t>(t)], 20u);
  }
}

TEST(Space, NeighboursDifferInOneParameterAndAreValid) {
  Space s = gemm_like();
  const Config c = s.default_config();
  const auto ns = s.neighbours(c);
  ASSERT_FALSE(ns.empty());
  for (const auto& n : ns) {
    EXPECT_TRUE(s.is_valid(n)) << n.key();
    int changed = 0;
    for (const auto& p : s.parameters()) {
      if (n.at(p.name()) == c.at(p.name())) continue;
      ++changed;
      const auto a = *p.index_of(c.at(p.name()));
      const auto b = *p.index_of(n.at(p.name()));
      if (p.ordinal()) {
        EXPECT_EQ(a > b ? a - b : b - a, 1u) << p.name();
      }
    }
    EXPECT_EQ(changed, 1) << n.key();
  }
  // Every one-step valid move is listed: count them independently.
  std::size_t expected = 0;
  for (const auto& p : s.parameters()) {
    const auto at = *p.index_of(c.at(p.name()));
    for (std::size_t v = 0; v < p.size(); ++v) {
      if (v == at) continue;
      if (p.ordinal() && v + 1 != at && v != at + 1) continue;
      Config m = c;
      m.set(p.name(), p.values()[v]);
      if (s.is_valid(m)) ++expected;
    }
  }
  EXPECT_EQ(ns.size(), expected);
}

TEST(Space, RepairFindsNearestValid) {
  Space s = gemm_like();
  Config c = s.default_config();
  EXPECT_EQ(s.repair(c), c);  // valid stays as is

  Config broken = c;  // STAGES=5 with BM=BN=64, BK=16: 5*128*16*4 = 40960 fits; make it not fit
  broken.set("BK", I(64));
  broken.set("STAGES", I(5));
  ASSERT_FALSE(s.is_valid(broken));
  auto fixed = s.repair(broken);
  ASSERT_TRUE(fixed);
  EXPECT_TRUE(s.is_valid(*fixed));
  int changed = 0;
  for (const auto& p : s.parameters())
    if (fixed->at(p.name()) != broken.at(p.name())) ++changed;
  EXPECT_EQ(changed, 1) << fixed->key();

  // Off-list values snap to the nearest listed value first.
  Config off = c;
  off.set("BM", I(60));      // nearest power of two: 64
  off.set("STAGES", I(99));  // nearest: 5, then repaired down if needed
  off.set("LOAD", std::string("nonsense"));
  off.erase("SWIZZLE");
  auto snapped = s.repair(off);
  ASSERT_TRUE(snapped);
  EXPECT_TRUE(s.is_valid(*snapped));
  EXPECT_EQ(snapped->integer("BM"), 64);
  EXPECT_EQ(s.snap(off).integer("STAGES"), 5);
  EXPECT_EQ(s.snap(off).text("LOAD"), "cp_async");
}

TEST(Space, DefaultConfigIsRepairedWhenInvalid) {
  Space s;
  s.add(Parameter::int_range("A", 1, 8, 1, 8));
  s.add(Parameter::int_range("B", 1, 8, 1, 8));
  s.require("A * B <= 20");
  const Config d = s.default_config();
  EXPECT_TRUE(s.is_valid(d));
  EXPECT_TRUE(d.integer("A") == 8 || d.integer("B") == 8) << d.key();  // one change only
}

TEST(Space, EncodingScalesOrdinalsAndOneHotsCategoricals) {
  Space s = gemm_like();
  EXPECT_EQ(s.encoded_size(), 7 + 2);
  Config c = s.default_config();
  c.set("BM", I(16));
  c.set("BN", I(256));
  c.set("WM", I(16));
  c.set("WN", I(32));
  c.set("BK", I(16));
  c.set("STAGES", I(1));
  c.set("LOAD", std::string("plain"));
  c.set("SWIZZLE", true);
  const Eigen::VectorXd x = s.encode(c);
  ASSERT_EQ(x.size(), 9);
  EXPECT_DOUBLE_EQ(x[0], 0.0);        // BM 16 of 16..256
  EXPECT_DOUBLE_EQ(x[1], 1.0);        // BN 256
  EXPECT_DOUBLE_EQ(x[2], 1.0 / 3.0);  // BK 16 of 8..64: log2 position 1 of 3
  EXPECT_DOUBLE_EQ(x[5], 0.0);        // STAGES 1 of 1..5
  EXPECT_DOUBLE_EQ(x[6], 1.0);        // LOAD one-hot: plain
  EXPECT_DOUBLE_EQ(x[7], 0.0);
  EXPECT_DOUBLE_EQ(x[8], 1.0);        // SWIZZLE true
  EXPECT_THROW(s.encode(Config{}), SpaceError);
}

TEST(Space, IndicesRoundTrip) {
  Space s = gemm_like();
  const Config c = s.default_config();
  const auto idx = s.indices_of(c);
  EXPECT_EQ(s.config_at(idx), c);
  EXPECT_TRUE(s.is_valid_indices(idx));
  EXPECT_EQ(s.parameter_index("STAGES"), 5u);
  EXPECT_THROW(s.parameter("NOPE"), SpaceError);
  std::vector<ValueIndex> out_of_range = idx;
  out_of_range[0] = 99;
  EXPECT_THROW(s.config_at(out_of_range), SpaceError);
  EXPECT_FALSE(s.is_valid_indices(out_of_range));
}

TEST(Space, ContradictoryConstraintsAreNamed) {
  Space s;
  s.add(Parameter::int_range("A", 1, 8, 1, 1));
  s.add(Parameter::int_range("B", 1, 8, 1, 1));
  s.add(Parameter::int_range("C", 1, 8, 1, 1));
  s.require("A + B <= 16");   // harmless
  s.require("A > B + 3");
  s.require("B > A");
  s.require("C <= 4");
  EXPECT_EQ(s.count_valid(), 0u);
  EXPECT_TRUE(s.enumerate().empty());
  EXPECT_TRUE(s.sample(5, 1).empty());
  EXPECT_FALSE(s.repair(Config{}));
  try {
    s.require_nonempty();
    FAIL() << "expected SpaceError";
  } catch (const SpaceError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("contradictory constraints"), std::string::npos) << what;
    EXPECT_NE(what.find("'A > B + 3'"), std::string::npos) << what;
    EXPECT_NE(what.find("'B > A'"), std::string::npos) << what;
    EXPECT_EQ(what.find("A + B <= 16"), std::string::npos) << what;  // not needed for the contradiction
  }
  EXPECT_THROW(s.default_config(), SpaceError);
}

TEST(Space, ConstantOnlyConstraints) {
  Space s(ValueMap{{"smem_max", I(1000)}});
  s.add(Parameter::int_range("A", 1, 4, 1, 1));
  s.require("smem_max >= 4096", "needs 4 KiB of shared memory");
  EXPECT_EQ(s.count_valid(), 0u);
  try {
    s.require_nonempty();
    FAIL();
  } catch (const SpaceError& e) {
    EXPECT_NE(std::string(e.what()).find("smem_max=1000"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("needs 4 KiB"), std::string::npos) << e.what();
  }
  Space empty;
  EXPECT_THROW(empty.require_nonempty(), SpaceError);
}

TEST(Space, CopiesAreIndependent) {
  Space a = gemm_like();
  const auto n = a.count_valid();
  Space b = a;
  b.require("BM == 64");
  EXPECT_EQ(a.count_valid(), n);
  EXPECT_LT(b.count_valid(), n);
  Space c = std::move(b);
  EXPECT_LT(c.count_valid(), n);
}

}  // namespace
}  // namespace ktune
