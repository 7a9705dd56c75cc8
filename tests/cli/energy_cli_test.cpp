// CLI tests of the energy objective, run as a subprocess on the SYNTHETIC
// recording tests/data/recorded/synthetic_energy.json: `ktune tune
// --objective` changes the winner, bad input exits 2 untouched, and `ktune
// lookup --objective` serves the energy-optimal configuration.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/db/db_test_support.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

using test::ktune;
using test::quote;

const std::string kEnergyRecording =
    std::string(KTUNE_TEST_DATA_DIR) + "/recorded/synthetic_energy.json";

std::string tune_args(const std::string& recording, const std::string& objective,
                      const std::string& db) {
  return "tune --replay " + quote(recording) + " --strategy exhaustive --budget 20 --objective " +
         objective + " --db " + quote(db);
}

/// The configuration key `ktune lookup --objective` serves from `db`.
std::string looked_up(const std::string& db, const std::string& objective) {
  const auto run = ktune("lookup --kernel synthetic_energy --problem n=1024 --device " +
                         quote("none (synthetic)") + " --db " + quote(db) + " --system-db " +
                         quote(db) + " --objective " + objective + " --json");
  EXPECT_EQ(run.code, 0) << run.output;
  const auto brace = run.output.find('{');
  if (brace == std::string::npos) return "(no JSON)";
  const auto j = nlohmann::json::parse(run.output.substr(brace));
  EXPECT_EQ(j.value("objective", ""), objective);
  return j.value("config_key", "");
}

TEST(EnergyCli, TuneByEnergyThenLookUpEitherOptimum) {
  testing::TempDir dir;
  const std::string db = dir.file("energy.db");
  const auto run = ktune(tune_args(kEnergyRecording, "energy", db));
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("objective energy"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("J/call"), std::string::npos) << run.output;
  // The table's first row is the least-energy configuration.
  const auto first_row = run.output.find("\n1 ");
  ASSERT_NE(first_row, std::string::npos) << run.output;
  const auto line = run.output.substr(first_row, run.output.find('\n', first_row + 1) - first_row);
  EXPECT_NE(line.find("VEC=4,WARPS=8"), std::string::npos) << line;

  EXPECT_EQ(looked_up(db, "energy"), "VEC=4,WARPS=8");
  EXPECT_EQ(looked_up(db, "time"), "VEC=4,WARPS=16");  // fastest, though without energy
}

TEST(EnergyCli, BadObjectivesAndRecordingsWithoutEnergyExit2Untouched) {
  testing::TempDir dir;
  const std::string db = dir.file("never.db");
  const auto unknown = ktune(tune_args(kEnergyRecording, "watts", db));
  EXPECT_EQ(unknown.code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("watts"), std::string::npos) << unknown.output;
  const auto no_energy = ktune(tune_args(
      std::string(KTUNE_TEST_DATA_DIR) + "/recorded/synthetic_gemm_like.json", "energy", db));
  EXPECT_EQ(no_energy.code, 2) << no_energy.output;
  EXPECT_NE(no_energy.output.find("records no energy"), std::string::npos) << no_energy.output;
  EXPECT_FALSE(std::filesystem::exists(db));
}

}  // namespace
}  // namespace ktune
