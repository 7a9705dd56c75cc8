// CLI tests that `ktune tune` and `ktune sweep` evaluate the family's default
// first, store a best no slower than it, and print the best's ratio over it;
// a default outside a --require sub-space is named in one line. Replays of a
// synthetic gemm recording (SYNTHETIC times).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/db/db_test_support.hpp"
#include "tests/engine/default_recording.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

using test::quote;

/// The first row of a run's results table (rank 1: its best), "" when none.
std::string first_row(const std::string& output) {
  const std::size_t at = output.find("\n1    ");
  if (at == std::string::npos) return "";
  return output.substr(at + 1, output.find('\n', at + 1) - at - 1);
}

class UntunedCli : public ::testing::Test {
 protected:
  /// `ktune ARGS` with a system database that does not exist, so that only
  /// the test's databases answer.
  test::ProcessRun ktune(const std::string& args) const {
    return test::shell("KTUNE_SYSTEM_DB=" + quote(temp_.file("no-system.db")) + " " +
                       quote(test::ktune_path()) + " " + args);
  }
  std::string tune(std::size_t budget) const {
    return "tune --replay " + quote(recording_.string()) + " --strategy random --budget " +
           std::to_string(budget) + " --db " + quote(db_);
  }

  testing::TempDir temp_;
  std::filesystem::path recording_ = temp_.path() / "gemm_default.json";
  std::string db_ = temp_.file("tune.db");
};

TEST_F(UntunedCli, TuneEvaluatesTheDefaultFirstAndPrintsTheBestsRatioOverIt) {
  // Every other recorded configuration is slower than the default.
  const testing::DefaultRecording rec = testing::write_default_recording(recording_, /*faster=*/0);
  const std::string key = rec.default_config.key();
  const test::ProcessRun r = ktune(tune(4));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("  evaluated first, as what a user gets without tuning: the default " +
                          key + "\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("\nbest 1.00x the default (" + key + ").\n"), std::string::npos)
      << r.output;
  // The best is the default: the budget spent on slower ones did not displace it.
  const std::string best = first_row(r.output);
  EXPECT_EQ(best.substr(best.size() - key.size() - 2), "  " + key) << r.output;

  // Resumed, the stored default is reused, not measured again, and stays the
  // best; the lookup now answers it from the database (exact).
  const test::ProcessRun again = ktune(tune(2));
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("4 stored results reused"), std::string::npos) << again.output;
  EXPECT_NE(again.output.find(": the default " + key +
                              ", the lookup's answer (exact), the same configuration\n"),
            std::string::npos)
      << again.output;
  EXPECT_NE(again.output.find("\nbest 1.00x the default (" + key +
                              "), 1.00x the lookup's answer (exact).\n"),
            std::string::npos)
      << again.output;
}

TEST_F(UntunedCli, ADefaultOutsideTheSubSpaceIsNamedInOneLine) {
  const testing::DefaultRecording rec = testing::write_default_recording(recording_, /*faster=*/0);
  const std::string require = testing::requirement_excluding_the_default(rec);
  ASSERT_FALSE(require.empty());
  const test::ProcessRun r = ktune(tune(2) + " --require " + quote(require));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("  note: the default " + rec.default_config.key() +
                          " is not in this run's space ("),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("evaluated first"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Stopped: budget reached. 2 evaluated"), std::string::npos) << r.output;
}

TEST_F(UntunedCli, SweepItemsStartFromTheDefaultAndTheSummaryShowsTheRatio) {
  const testing::DefaultRecording rec = testing::write_default_recording(recording_, /*faster=*/0);
  std::ofstream(temp_.path() / "sweep.json")
      << R"({"defaults": {"strategy": "random", "budget": 3}, "runs": [{"replay": "gemm_default.json"}]})";
  const test::ProcessRun r =
      ktune("sweep " + quote((temp_.path() / "sweep.json").string()) + " --db " + quote(db_));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("  best 1.00x the default (" + rec.default_config.key() + ")\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("x default"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1.00x"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace ktune
