// CLI tests of the test families' registration: `ktune` offers test_faulty
// only where KTUNE_TEST_FAMILIES=1 (set by the test suites), never to users.
#include <gtest/gtest.h>

#include <string>

#include "kernels_templated/family.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

using test::ktune;

std::string without_test_families(const std::string& args) {
  return std::string("env -u ") + kTestFamiliesEnv + " " + args;
}

TEST(TestFamilies, AreHiddenFromUsersHelp) {
  auto help = test::shell(without_test_families(test::quote(test::ktune_path()) + " tune --help"));
  ASSERT_EQ(help.code, 0) << help.output;
  EXPECT_NE(help.output.find("gemm"), std::string::npos) << help.output;
  EXPECT_EQ(help.output.find("test_faulty"), std::string::npos) << help.output;
}

TEST(TestFamilies, AreUnknownToUsersTune) {
  auto run = test::shell(without_test_families(
      test::quote(test::ktune_path()) +
      " tune --kernel test_faulty --problem n=64 --budget 2 --db /dev/null/never"));
  EXPECT_EQ(run.code, 2) << run.output;
  EXPECT_NE(run.output.find("unknown kernel family 'test_faulty'"), std::string::npos)
      << run.output;
}

TEST(TestFamilies, AreRegisteredForTheTestsAndTheirSubprocesses) {
  EXPECT_NO_THROW(find_family("test_faulty"));
  auto help = ktune("tune --help");
  ASSERT_EQ(help.code, 0) << help.output;
  EXPECT_NE(help.output.find("test_faulty"), std::string::npos) << help.output;
}

}  // namespace
}  // namespace ktune
