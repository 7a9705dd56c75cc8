// The install tree serves an application: scripts/install-check installs the
// runtime's files into a temporary prefix and builds examples/app against
// them with find_package(ktune) (the example skips its GPU work without a
// GPU). ~10 s.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "ktune_test_paths.hpp"

namespace {

TEST(InstallCheck, TheExampleBuildsFromTheInstallTreeAndRuns) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(KTUNE_TEST_DATA_DIR).parent_path().parent_path();
  const fs::path script = root / "scripts" / "install-check";
  ASSERT_TRUE(fs::exists(script));
  const std::string cmd = script.string() + " " + KTUNE_BINARY_DIR +
                          " > " + ::testing::TempDir() + "ktune_install_check.log 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "see " << ::testing::TempDir() << "ktune_install_check.log";
}

}  // namespace
