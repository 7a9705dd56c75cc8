// Tests of Parameter: the five kinds, their value lists, defaults and errors.
#include <gtest/gtest.h>

#include "space/parameter.hpp"

namespace ktune {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const SpaceError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Parameter, IntRangeWithStep) {
  Parameter p = Parameter::int_range("STAGES", 2, 9, 3, 5, "pipeline stages");
  ASSERT_EQ(p.size(), 3u);  // 2, 5, 8
  EXPECT_EQ(p.values()[2], Value(std::int64_t{8}));
  EXPECT_EQ(p.default_index(), 1u);
  EXPECT_EQ(p.kind(), ParamKind::int_range);
  EXPECT_TRUE(p.ordinal());
  EXPECT_EQ(p.description(), "pipeline stages");
  EXPECT_EQ(p.index_of(Value(std::int64_t{5})), 1u);
  EXPECT_EQ(p.index_of(Value(5.0)), 1u);  // an equal real matches
  EXPECT_EQ(p.index_of(Value(std::int64_t{6})), std::nullopt);
  EXPECT_EQ(p.index_of(Value(std::int64_t{11})), std::nullopt);
  EXPECT_EQ(p.index_of(Value(std::string("5"))), std::nullopt);
}

TEST(Parameter, Pow2Range) {
  Parameter p = Parameter::pow2_range("BLOCK_M", 16, 256, 64);
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p.values().back(), Value(std::int64_t{256}));
  EXPECT_EQ(p.default_index(), 2u);
  EXPECT_EQ(to_string(p.kind()), "pow2_range");
}

TEST(Parameter, ListOfIntsOrReals) {
  Parameter ints = Parameter::list("VEC", {std::int64_t{1}, std::int64_t{2}, std::int64_t{4}}, std::int64_t{4});
  EXPECT_EQ(ints.default_index(), 2u);
  Parameter reals = Parameter::list("ALPHA", {0.5, 1.0, 2.0}, 1.0);
  EXPECT_EQ(reals.index_of(Value(std::int64_t{2})), 2u);  // an equal integer matches
  EXPECT_NE(error_of([] { Parameter::list("X", {std::int64_t{1}, 2.5}, std::int64_t{1}); }).find("mixes"),
            std::string::npos);
  EXPECT_NE(error_of([] { Parameter::list("X", {std::int64_t{1}, std::int64_t{1}}, std::int64_t{1}); })
                .find("listed twice"),
            std::string::npos);
  EXPECT_NE(error_of([] { Parameter::list("X", {}, std::int64_t{1}); }).find("empty"), std::string::npos);
  EXPECT_NE(error_of([] { Parameter::list("X", {std::string("a")}, std::string("a")); }).find("not a number"),
            std::string::npos);
}

TEST(Parameter, CategoricalAndBoolean) {
  Parameter c = Parameter::categorical("LOAD", {"plain", "cp_async", "tma"}, "cp_async");
  EXPECT_FALSE(c.ordinal());
  EXPECT_EQ(c.default_index(), 1u);
  EXPECT_EQ(c.index_of(Value(std::string("tma"))), 2u);
  EXPECT_EQ(c.index_of(Value(std::string("TMA"))), std::nullopt);
  Parameter b = Parameter::boolean("SWIZZLE", true);
  EXPECT_TRUE(b.ordinal());
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b.default_value(), Value(true));
  EXPECT_EQ(b.index_of(Value(false)), 0u);
}

TEST(Parameter, ErrorsNameTheParameter) {
  EXPECT_NE(error_of([] { Parameter::int_range("STAGES", 5, 2, 1, 3); }).find("'STAGES'"), std::string::npos);
  EXPECT_NE(error_of([] { Parameter::int_range("STAGES", 1, 8, 0, 1); }).find("step"), std::string::npos);
  const std::string bad_default = error_of([] { Parameter::int_range("STAGES", 2, 8, 2, 3); });
  EXPECT_NE(bad_default.find("'STAGES'"), std::string::npos) << bad_default;
  EXPECT_NE(bad_default.find("default 3"), std::string::npos) << bad_default;
  EXPECT_NE(error_of([] { Parameter::pow2_range("BM", 16, 100, 16); }).find("powers of two"), std::string::npos);
  EXPECT_NE(error_of([] { Parameter::pow2_range("BM", 16, 128, 48); }).find("'BM'"), std::string::npos);
  EXPECT_NE(error_of([] { Parameter::categorical("DT", {"a", "b"}, "c"); }).find("default 'c'"),
            std::string::npos);
  EXPECT_NE(error_of([] { Parameter::boolean("1abc", false); }).find("not an identifier"), std::string::npos);
  EXPECT_NE(error_of([] { Parameter::int_range("HUGE", 1, 1'000'000'000'000, 1, 1); }).find("limit"),
            std::string::npos);
}

}  // namespace
}  // namespace ktune
