// Tests of ValueMap: parsing, canonical key, typed access and JSON round trip.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "space/result.hpp"
#include "space/value_map.hpp"

namespace ktune {
namespace {

TEST(ValueMap, KeyIsIndependentOfInsertionOrder) {
  ValueMap a;
  a.set("n", std::int64_t{64});
  a.set("m", std::int64_t{128});
  a.set("dtype", std::string("bf16"));
  ValueMap b = ValueMap::parse(" m=128, dtype=bf16 ,n=64");
  EXPECT_EQ(a.key(), "dtype=bf16,m=128,n=64");
  EXPECT_EQ(a.key(), b.key());
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a, b);
}

TEST(ValueMap, ParsesTypedValues) {
  ValueMap m = ValueMap::parse("i=-3,r=2.5,b=true,s=nt,e=1e3");
  EXPECT_EQ(m.integer("i"), -3);
  EXPECT_DOUBLE_EQ(m.real("r"), 2.5);
  EXPECT_TRUE(m.boolean("b"));
  EXPECT_EQ(m.text("s"), "nt");
  EXPECT_DOUBLE_EQ(m.real("e"), 1000.0);
  EXPECT_THROW(m.integer("s"), std::invalid_argument);
  EXPECT_THROW(m.text("i"), std::invalid_argument);
  EXPECT_THROW(m.at("missing"), std::out_of_range);
}

TEST(ValueMap, RejectsMalformedText) {
  EXPECT_THROW(ValueMap::parse("m=1,,n=2"), std::invalid_argument);
  EXPECT_THROW(ValueMap::parse("m"), std::invalid_argument);
  EXPECT_THROW(ValueMap::parse("=3"), std::invalid_argument);
  EXPECT_THROW(ValueMap::parse("m="), std::invalid_argument);
  EXPECT_THROW(ValueMap::parse("m=1,m=2"), std::invalid_argument);
  EXPECT_TRUE(ValueMap::parse("").empty());
}

TEST(ValueMap, JsonRoundTripKeepsTypes) {
  ValueMap m = ValueMap::parse("a=1,b=1.0,c=false,d=x");
  ValueMap back = ValueMap::from_json(nlohmann::json::parse(m.to_json().dump()));
  EXPECT_EQ(back, m);
  EXPECT_EQ(back.key(), "a=1,b=1.0,c=false,d=x");
  EXPECT_THROW(ValueMap::from_json(nlohmann::json::parse("{\"a\":[1]}")), std::invalid_argument);
}

TEST(ValueMap, StableHashIsFnv1a) {
  // FNV-1a 64 of "a" is a published constant: the hash must not change across builds.
  EXPECT_EQ(stable_hash("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(stable_hash_hex(""), "cbf29ce484222325");
}

TEST(Result, StatusNamesRoundTrip) {
  for (Status s : {Status::ok, Status::wrong_result, Status::compile_error, Status::launch_error,
                   Status::timeout, Status::invalid_config})
    EXPECT_EQ(status_from_string(to_string(s)), s);
  EXPECT_THROW(status_from_string("fast"), std::invalid_argument);
}

TEST(Result, JsonRoundTrip) {
  Result r;
  r.config = ValueMap::parse("bm=128,bn=64");
  r.status = Status::ok;
  r.time = {1e-3, 0.9e-3, 1.2e-3, 0.05, 50};
  r.tflops = 123.5;
  r.error = 1e-4;
  r.deterministic = true;
  r.metrics["registers"] = 96;
  Result back = result_from_json(result_to_json(r));
  EXPECT_EQ(back.config, r.config);
  EXPECT_EQ(back.status, Status::ok);
  EXPECT_DOUBLE_EQ(back.time.median_s, 1e-3);
  EXPECT_EQ(back.time.repetitions, 50);
  EXPECT_EQ(back.deterministic, std::optional<bool>(true));
  EXPECT_EQ(back.metrics["registers"], 96);
}

TEST(Result, OkWithoutTimeIsRejected) {
  Result r;
  r.status = Status::ok;
  nlohmann::json j = result_to_json(r);
  EXPECT_THROW(result_from_json(j), std::invalid_argument);
}

}  // namespace
}  // namespace ktune
