// CLI tests of predicted lookups and `ktune bench-lookup`: a far shape is
// answered `predicted` with what the model learned from, --no-predict keeps
// the nearest, and inputs bench-lookup cannot use exit 2 naming them.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

using test::ktune;
using test::quote;

const std::string kShippedDb = std::string(KTUNE_TEST_DATA_DIR) + "/../../tuning_db/ktune.db";

std::string lookup(const std::string& problem, const std::string& extra = "") {
  return "lookup --kernel gemm --problem " + quote(problem) + " --device " + quote("NVIDIA H200") +
         " --db /nonexistent/user.db --system-db " + quote(kShippedDb) + " --json " + extra;
}

TEST(BenchLookupCli, AFarShapeIsPredictedAndNoPredictKeepsTheNearest) {
  // A wide decode GEMV: every measured gemm shape is more than 4 (log2 space) away.
  const std::string gemv = "m=1,n=65536,k=1024,dtype=bf16,layout=nt";
  auto run = ktune(lookup(gemv));
  ASSERT_EQ(run.code, 0) << run.output;
  const auto j = nlohmann::json::parse(run.output);
  EXPECT_EQ(j["source"], "predicted");
  EXPECT_GT(j["predicted_s"].get<double>(), 0);
  EXPECT_GE(j["learned_from"].size(), 2u);
  EXPECT_GE(j["distance"].get<double>(), 1.0);

  auto nearest = ktune(lookup(gemv, "--no-predict"));
  ASSERT_EQ(nearest.code, 0) << nearest.output;
  EXPECT_EQ(nlohmann::json::parse(nearest.output)["source"], "nearest");
  // Below the switch distance the nearest answers even with the predictor.
  auto below = ktune(lookup(gemv, "--min-distance 100"));
  ASSERT_EQ(below.code, 0) << below.output;
  EXPECT_EQ(nlohmann::json::parse(below.output)["source"], "nearest");
}

TEST(BenchLookupCli, UnusableInputsExitTwoNamingThem) {
  auto missing = ktune("bench-lookup --recorded /nonexistent/shape.json");
  EXPECT_EQ(missing.code, 2) << missing.output;
  EXPECT_NE(missing.output.find("/nonexistent/shape.json"), std::string::npos) << missing.output;
  const std::string foreign =
      std::string(KTUNE_TEST_DATA_DIR) +
      "/../../tuning_db/recorded/foreign/kernel_tuner_vector_add_RTX_A4000.json";
  auto not_ours = ktune("bench-lookup --recorded " + quote(foreign));
  EXPECT_EQ(not_ours.code, 2) << not_ours.output;
  EXPECT_NE(not_ours.output.find("not registered"), std::string::npos) << not_ours.output;
  auto bad_distance = ktune(lookup("m=1,n=8192,k=8192,dtype=bf16,layout=nt", "--min-distance -1"));
  EXPECT_EQ(bad_distance.code, 2) << bad_distance.output;
}

}  // namespace
}  // namespace ktune
