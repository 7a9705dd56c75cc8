// Tests of Space::list_positions (every valid configuration, in lexicographic
// order over positions, as Space::enumerate lists them) and of
// Assignment::declared_position.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <random>

#include "space/space.hpp"

namespace ktune {
namespace {

std::int64_t I(std::int64_t v) { return v; }

/// Every valid point of the Cartesian product in lexicographic order over
/// positions (the last parameter fastest), each checked on its own: no
/// groups, no pruning, no sorting.
std::vector<std::vector<ValueIndex>> brute_force_rows(const Space& s) {
  const auto& params = s.parameters();
  std::vector<std::vector<ValueIndex>> out;
  std::vector<ValueIndex> idx(params.size(), 0);
  while (true) {
    if (s.is_valid_indices(idx)) out.push_back(idx);
    std::size_t p = params.size();
    for (; p > 0; --p) {
      if (++idx[p - 1] < params[p - 1].size()) break;
      idx[p - 1] = 0;
    }
    if (p == 0) return out;
  }
}

/// The listing holds exactly the brute-force rows in their order, and
/// enumerate() the same configurations.
void expect_listing_is_exact(const Space& s, const std::string& what) {
  const auto expected = brute_force_rows(s);
  const PositionListing listing = s.list_positions();
  ASSERT_EQ(listing.size(), expected.size()) << what;
  ASSERT_EQ(listing.width(), s.parameters().size()) << what;
  EXPECT_EQ(listing.empty(), expected.empty()) << what;
  const std::vector<Config> configs = s.enumerate();
  ASSERT_EQ(configs.size(), expected.size()) << what;
  for (std::size_t r = 0; r < listing.size(); ++r) {
    const auto row = listing.row(r);
    ASSERT_EQ(std::vector<ValueIndex>(row.begin(), row.end()), expected[r])
        << what << ", row " << r;
    ASSERT_EQ(s.config_at(row), configs[r]) << what << ", row " << r;
  }
}

/// Two groups linked by constraints (one through a C++ callable reading a
/// constant), a categorical knob and an unconstrained one: the listing is
/// the product of the groups' tables, re-sorted into declaration order.
Space grouped() {
  Space s(ValueMap{{"limit", I(20)}});
  s.add(Parameter::pow2_range("BM", 16, 128, 32));
  s.add(Parameter::int_range("X", 0, 4, 1, 0));
  s.add(Parameter::pow2_range("WM", 8, 64, 16));
  s.add(Parameter::categorical("LOAD", {"plain", "async", "tma"}, "plain"));
  s.add(Parameter::int_range("STAGES", 1, 5, 1, 2));
  s.add(Parameter::boolean("FREE", false));
  s.require("BM % WM == 0 && BM / WM <= 4");
  s.require("load stages", {"LOAD", "STAGES", "limit"}, [](const Assignment& a) {
    return (a.s("LOAD") != "plain" || a.i("STAGES") == 1) && a.i("STAGES") * 4 <= a.i("limit");
  });
  s.require("X != STAGES");
  return s;
}

TEST(PositionListing, ListsTheValidConfigurationsInLexicographicOrder) {
  const Space s = grouped();
  const PositionListing listing = s.list_positions();
  ASSERT_GT(listing.size(), 20u);
  EXPECT_LT(static_cast<double>(listing.size()), s.cartesian_size());  // the constraints prune
  EXPECT_EQ(listing.size(), s.count_valid());
  expect_listing_is_exact(s, "grouped");
}

TEST(PositionListing, MatchesBruteForceOnRandomSpaces) {
  std::mt19937_64 rng(20261206);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const char* const forms[] = {"A + B <= 6", "(A * B) % 3 != 1", "A <= B || C == 2", "A != C"};
  for (int trial = 0; trial < 40; ++trial) {
    Space s;
    const int n = 3 + pick(4);
    for (int p = 0; p < n; ++p)
      s.add(Parameter::int_range(std::string(1, static_cast<char>('A' + p)), 0, 1 + pick(4), 1, 0));
    for (int k = pick(4); k > 0; --k) {
      std::string form = forms[pick(4)];
      // Rename A, B, C to random parameters, so groups form at random.
      for (char& ch : form)
        if (ch >= 'A' && ch <= 'C') ch = static_cast<char>('A' + pick(n));
      s.require(form);
    }
    expect_listing_is_exact(s, "trial " + std::to_string(trial));
  }
}

TEST(PositionListing, EdgeCases) {
  const Space none;
  const PositionListing one = none.list_positions();
  EXPECT_EQ(one.size(), 1u);  // the empty configuration
  EXPECT_EQ(one.width(), 0u);
  EXPECT_TRUE(one.row(0).empty());
  expect_listing_is_exact(none, "no parameters");

  Space contradictory;
  contradictory.add(Parameter::int_range("A", 1, 4, 1, 1));
  contradictory.require("A > 4");
  EXPECT_TRUE(contradictory.list_positions().empty());
  expect_listing_is_exact(contradictory, "contradictory");

  Space constants(ValueMap{{"smem_max", I(1000)}});
  constants.add(Parameter::int_range("A", 1, 4, 1, 1));
  constants.require("smem_max >= 4096");
  EXPECT_TRUE(constants.list_positions().empty());
}

TEST(Assignment, DeclaredPositionsAreThePositionsOfTheDeclaredNames) {
  // The constraint declares a constant between two parameters: positions
  // follow its names list, and the constant has none.
  Space s(ValueMap{{"limit", I(64)}});
  s.add(Parameter::pow2_range("BM", 16, 128, 32));
  s.add(Parameter::categorical("LOAD", {"plain", "async"}, "plain"));
  s.add(Parameter::int_range("STAGES", 1, 4, 1, 1));
  auto params = std::make_shared<std::vector<Parameter>>(s.parameters());
  auto checks = std::make_shared<std::atomic<int>>(0);
  auto mismatches = std::make_shared<std::atomic<int>>(0);
  s.require("positions", {"STAGES", "limit", "BM"},
            [params, checks, mismatches](const Assignment& a) {
              ++*checks;
              const auto stages = (*params)[2].index_of(a.get("STAGES"));
              const auto bm = (*params)[0].index_of(a.get("BM"));
              if (a.declared_position(0) != stages || a.declared_position(1).has_value() ||
                  a.declared_position(2) != bm || a.declared_position(3).has_value())
                ++*mismatches;
              return a.i("STAGES") * a.i("BM") <= a.i("limit");
            });
  const std::size_t valid = s.list_positions().size();
  EXPECT_GT(valid, 0u);
  EXPECT_LT(static_cast<double>(valid), s.cartesian_size());
  EXPECT_TRUE(s.is_valid(Config{{"BM", I(16)}, {"LOAD", std::string("async")}, {"STAGES", I(4)}}));
  EXPECT_GT(checks->load(), 0);
  EXPECT_EQ(mismatches->load(), 0);

  // An assignment of values has no positions.
  struct Values final : Assignment {
    const Value& get(std::string_view) const override { return value; }
    Value value = I(1);
  } values;
  EXPECT_FALSE(values.declared_position(0).has_value());
}

}  // namespace
}  // namespace ktune
