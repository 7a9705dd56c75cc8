// CLI tests of the one database convention: every command's default database
// is $KTUNE_DB, else ./ktune.db; the system database is $KTUNE_SYSTEM_DB, else
// share/ktune/ktune.db beside the binary's folder; a database file that is not
// one (garbage, corrupt) is bad input, exit 2, for every command.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ktune_test_paths.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

using test::quote;

// The synthetic replay fixture (made-up times, not a measurement) and its problem.
const std::string kRecording =
    std::string(KTUNE_TEST_DATA_DIR) + "/recorded/synthetic_gemm_like.json";
const std::string kLookup =
    "lookup --kernel synthetic_gemm_like --problem m=2048,n=2048,k=2048 --device 'none "
    "(synthetic)' --json";

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class DbPathsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           (std::string("ktune_db_paths_test_") +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "work");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  /// Runs `ktune ARGS` in dir_/work with `env` (e.g. "KTUNE_DB=x") and
  /// neither database variable inherited.
  test::ProcessRun run(const std::string& args, const std::string& env = "") const {
    return test::shell("cd " + quote((dir_ / "work").string()) +
                       " && env -u KTUNE_DB -u KTUNE_SYSTEM_DB " + env + " " +
                       quote(test::ktune_path()) + " " + args);
  }
  std::string tune_args() const {
    return "tune --replay " + quote(kRecording) + " --strategy random --seed 1 --budget 4";
  }

  fs::path dir_;
};

TEST_F(DbPathsCli, TuneThenLookupWithoutDbFindTheSameDatabase) {
  auto tune = run(tune_args());
  ASSERT_EQ(tune.code, 0) << tune.output;
  EXPECT_TRUE(fs::exists(dir_ / "work" / "ktune.db")) << tune.output;
  EXPECT_FALSE(fs::exists(dir_ / "work" / "out")) << "no other default folder: " << tune.output;

  auto lookup = run(kLookup + " --system-db ''");
  ASSERT_EQ(lookup.code, 0) << lookup.output;
  EXPECT_NE(lookup.output.find("\"found\": true"), std::string::npos) << lookup.output;
  EXPECT_NE(lookup.output.find("\"database\": \"ktune.db\""), std::string::npos) << lookup.output;

  auto stats = run("db stats");
  ASSERT_EQ(stats.code, 0) << stats.output;
  EXPECT_NE(stats.output.find("synthetic_gemm_like"), std::string::npos) << stats.output;
}

// A family that is neither built in nor stored in a database given is a wrong
// name: exit 2 and one line, where a stored one is served as stored.
TEST_F(DbPathsCli, ALookupOfAFamilyNoDatabaseHoldsIsBadInput) {
  ASSERT_EQ(run(tune_args()).code, 0);
  const std::string typo =
      "lookup --kernel synthetic_gemm_lik --problem m=2048,n=2048,k=2048 --device 'none "
      "(synthetic)' --system-db ''";
  for (const std::string& args : {typo, typo + " --json"}) {
    const auto r = run(args);
    EXPECT_EQ(r.code, 2) << r.output;
    // One line; the built-in families it lists depend on the build (tests add theirs).
    EXPECT_EQ(r.output.rfind("ktune: unknown kernel family 'synthetic_gemm_lik' (known: ", 0), 0u)
        << r.output;
    EXPECT_NE(r.output.find("gemm"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
    EXPECT_NE(r.output.find("), and no database given holds it\n"), std::string::npos) << r.output;
  }
  const auto stored = run(kLookup + " --system-db ''");
  EXPECT_EQ(stored.code, 0) << stored.output;
  EXPECT_NE(stored.output.find("note: family 'synthetic_gemm_like' is not registered"),
            std::string::npos)
      << stored.output;
}

TEST_F(DbPathsCli, KtuneDbNamesTheDefaultOfEveryCommand) {
  const std::string db = (dir_ / "elsewhere.db").string();
  auto tune = run(tune_args(), "KTUNE_DB=" + quote(db));
  ASSERT_EQ(tune.code, 0) << tune.output;
  EXPECT_TRUE(fs::exists(db)) << tune.output;
  EXPECT_FALSE(fs::exists(dir_ / "work" / "ktune.db"));
  auto lookup = run(kLookup + " --system-db ''", "KTUNE_DB=" + quote(db));
  ASSERT_EQ(lookup.code, 0) << lookup.output;
  EXPECT_NE(lookup.output.find(db), std::string::npos) << lookup.output;
}

TEST_F(DbPathsCli, KtuneSystemDbIsTheSystemDatabase) {
  const std::string system = (dir_ / "system.db").string();
  ASSERT_EQ(run(tune_args() + " --db " + quote(system)).code, 0);
  // No user database in the working folder: the answer comes from the system one.
  auto lookup = run(kLookup, "KTUNE_SYSTEM_DB=" + quote(system));
  ASSERT_EQ(lookup.code, 0) << lookup.output;
  EXPECT_NE(lookup.output.find(system), std::string::npos) << lookup.output;
  // Without it, the shipped database beside the binary knows nothing of this
  // family (nor of the fixture's GPU): the family is named first.
  auto shipped = run(kLookup);
  EXPECT_EQ(shipped.code, 2) << shipped.output;
  EXPECT_NE(shipped.output.find("unknown kernel family 'synthetic_gemm_like'"), std::string::npos)
      << shipped.output;
}

TEST_F(DbPathsCli, TheShippedDatabaseIsFoundBesideTheBinary) {
  ASSERT_TRUE(fs::exists(fs::path(KTUNE_BINARY_DIR) / "share" / "ktune" / "ktune.db"));
  auto lookup =
      run("lookup --kernel gemm --problem m=4096,n=4096,k=4096,dtype=bf16,layout=nt "
          "--device 'NVIDIA H200' --json");
  ASSERT_EQ(lookup.code, 0) << lookup.output;
  EXPECT_NE(lookup.output.find("\"found\": true"), std::string::npos) << lookup.output;
  EXPECT_NE(lookup.output.find("share/ktune/ktune.db"), std::string::npos) << lookup.output;
}

TEST_F(DbPathsCli, ACorruptOrForeignDatabaseIsBadInputForEveryCommand) {
  const fs::path garbage = dir_ / "work" / "garbage.db", corrupt = dir_ / "work" / "corrupt.db";
  std::ofstream(garbage) << "not a database, and it must stay exactly like this\n";
  // An SQLite header and nothing SQLite can read after it.
  std::string bad("SQLite format 3\0", 16);
  bad += std::string(4096, '\x5a');
  std::ofstream(corrupt, std::ios::binary) << bad;
  for (const fs::path& file : {garbage, corrupt}) {
    SCOPED_TRACE(file.filename().string());
    const std::string before = read_file(file);
    const std::string db = " --db " + quote(file.string());
    for (const std::string& args : {kLookup + " --system-db ''" + db, std::string("db stats") + db,
                                    std::string("db query --kernel gemm") + db, tune_args() + db}) {
      auto r = run(args);
      EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
      EXPECT_NE(r.output.find(file.string()), std::string::npos) << "names the file: " << r.output;
    }
    EXPECT_EQ(read_file(file), before) << "left untouched";
  }
}

}  // namespace
}  // namespace ktune
