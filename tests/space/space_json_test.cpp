// Tests of the Space JSON form: round trip, C++ constraints flagged, errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "space/space.hpp"

namespace ktune {
namespace {

std::int64_t I(std::int64_t v) { return v; }

Space every_kind() {
  Space s(ValueMap{{"smem_max", I(49152)}, {"dtype", std::string("bf16")}});
  s.add(Parameter::int_range("STAGES", 1, 7, 2, 3, "pipeline stages"));
  s.add(Parameter::pow2_range("BM", 16, 128, 64, "block rows"));
  s.add(Parameter::list("VEC", {I(1), I(2), I(4)}, I(4)));
  s.add(Parameter::list("SCALE", {0.5, 1.0, 1.5}, 1.0));
  s.add(Parameter::categorical("LOAD", {"plain", "cp_async"}, "plain", "global loads"));
  s.add(Parameter::boolean("SWIZZLE", true));
  s.require("STAGES * BM * 64 * 2 <= smem_max", "shared memory fits");
  s.require("LOAD == 'cp_async' || STAGES == 1 || dtype != 'bf16'");
  s.require("SCALE * VEC <= 4");
  return s;
}

TEST(SpaceJson, RoundTripKeepsParametersConstraintsAndValidSet) {
  const Space s = every_kind();
  const nlohmann::json j = s.to_json();
  EXPECT_EQ(j["format"], "ktune-space/1");
  EXPECT_EQ(j["parameters"][0]["kind"], "int_range");
  EXPECT_EQ(j["parameters"][0]["step"], 2);
  EXPECT_EQ(j["parameters"][1]["max"], 128);
  EXPECT_EQ(j["constraints"][0]["description"], "shared memory fits");
  const Space back = Space::from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back.to_json(), j);
  ASSERT_EQ(back.parameters().size(), s.parameters().size());
  for (std::size_t p = 0; p < s.parameters().size(); ++p) {
    EXPECT_EQ(back.parameters()[p].values(), s.parameters()[p].values());
    EXPECT_EQ(back.parameters()[p].kind(), s.parameters()[p].kind());
    EXPECT_EQ(back.parameters()[p].default_index(), s.parameters()[p].default_index());
    EXPECT_EQ(back.parameters()[p].description(), s.parameters()[p].description());
  }
  EXPECT_EQ(back.constants(), s.constants());
  EXPECT_GT(s.count_valid(), 0u);
  EXPECT_LT(static_cast<double>(s.count_valid()), s.cartesian_size());
  EXPECT_EQ(back.enumerate(), s.enumerate());
}

TEST(SpaceJson, CallerConstantsOverrideStoredOnes) {
  const nlohmann::json j = every_kind().to_json();
  const Space small = Space::from_json(j, ValueMap{{"smem_max", I(8192)}});
  EXPECT_EQ(small.constants().integer("smem_max"), 8192);
  EXPECT_LT(small.count_valid(), every_kind().count_valid());
}

TEST(SpaceJson, CppConstraintsAreFlaggedAndSkipped) {
  Space s;
  s.add(Parameter::int_range("A", 1, 4, 1, 1));
  s.require("A is even", {"A"}, [](const Assignment& a) { return a.i("A") % 2 == 0; });
  const nlohmann::json j = s.to_json();
  EXPECT_EQ(j["constraints"][0]["round_trippable"], false);
  EXPECT_EQ(j["constraints"][0]["names"], nlohmann::json::array({"A"}));
  EXPECT_FALSE(j["constraints"][0].contains("expression"));
  const Space back = Space::from_json(j);
  EXPECT_TRUE(back.constraints().empty());
  EXPECT_EQ(back.count_valid(), 4u);
  EXPECT_EQ(s.count_valid(), 2u);
}

TEST(SpaceJson, ShorthandAndDefaults) {
  const Space s = Space::from_json(nlohmann::json::parse(R"({
    "parameters": [
      {"name": "A", "kind": "int_range", "min": 1, "max": 4},
      {"name": "B", "kind": "pow2_range", "min": 1, "max": 8, "default": 4},
      {"name": "C", "kind": "categorical", "values": ["x", "y"]}
    ],
    "constraints": ["A * B <= 8"]
  })"));
  EXPECT_EQ(s.parameter("A").default_value(), Value(I(1)));
  EXPECT_EQ(s.parameter("C").default_value(), Value(std::string("x")));
  EXPECT_EQ(s.constraints()[0].expression, "A * B <= 8");
  EXPECT_EQ(s.count_valid(), 2u * (4 + 3 + 2 + 2));  // A=1: B 1..8; A=2: 1..4; A=3,4: 1,2
}

std::string error_of(const char* text) {
  try {
    Space::from_json(nlohmann::json::parse(text));
  } catch (const SpaceError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SpaceJson, ErrorsNameTheParameter) {
  EXPECT_EQ(error_of(R"({"parameters": [{"name": "BM", "kind": "pow2_range", "min": 16}]})"),
            "parameter 'BM': missing 'max' (needed by kind pow2_range)");
  EXPECT_EQ(error_of(R"({"parameters": [{"name": "BM", "kind": "triangle"}]})"),
            "parameter 'BM': unknown kind 'triangle' (accepted: int_range, pow2_range, list, "
            "categorical, boolean)");
  EXPECT_EQ(error_of(R"({"parameters": [{"kind": "boolean"}]})"), "parameter 1: missing 'name'");
  EXPECT_NE(error_of(R"({"parameters": [{"name": "S", "kind": "int_range", "min": 1, "max": 4, "default": 9}]})")
                .find("parameter 'S': default 9"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"parameters": [{"name": "S", "kind": "int_range", "min": "one", "max": 4}]})")
                .find("parameter 'S'"),
            std::string::npos);
  EXPECT_EQ(error_of(R"({"format": "other/2", "parameters": []})"),
            "space JSON: unknown format \"other/2\" (expected \"ktune-space/1\")");
  EXPECT_EQ(error_of(R"({"params": []})"), "space JSON: missing 'parameters' array");
  EXPECT_NE(error_of(R"({"parameters": [{"name": "A", "kind": "boolean"}], "constraints": ["A && B"]})")
                .find("unknown name 'B'"),
            std::string::npos);
}

}  // namespace
}  // namespace ktune
