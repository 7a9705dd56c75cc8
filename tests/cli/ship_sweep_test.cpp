// The sweep files that build the shipped H200 database (tuning_db/sweeps,
// written by scripts/gen-ship-sweep): each one parses and every run fits its
// space on the H200, so no GPU time is spent on a refused run.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ktune_test_paths.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

fs::path sweeps_dir() {
  return fs::path(KTUNE_TEST_DATA_DIR).parent_path().parent_path() / "tuning_db" / "sweeps";
}

TEST(ShipSweep, EveryTierFitsTheH200) {
  int files = 0;
  for (const auto& entry : fs::directory_iterator(sweeps_dir())) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    const auto run =
        test::ktune("sweep " + test::quote(entry.path().string()) + " --dry-run --device h200");
    EXPECT_EQ(run.code, 0) << entry.path() << "\n" << run.output;
    EXPECT_NE(run.output.find("fit its space on NVIDIA H200"), std::string::npos) << run.output;
  }
  EXPECT_GE(files, 3) << "the tiers of scripts/gen-ship-sweep";
}

}  // namespace
}  // namespace ktune
