// CLI tests of the database guarantees: `ktune db import` checks records of
// this build's templates against their family (exit 2, nothing written), `db export`
// publishes whole or not at all, `db checkpoint` ships a file alone.
#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <filesystem>
#include <string>

#include "compile/family_hash.hpp"
#include "db/exchange.hpp"
#include "db/store.hpp"
#include "db/store_impl.hpp"
#include "tests/db/db_test_support.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using test::ktune;
using test::quote;

// One JSON Lines record of gemm on a synthetic H100-like device, with the
// configuration given as JSON, stored under this build's template hash (the
// import checks such records against the family) or under `hash`.
std::string gemm_record(const std::string& family, const std::string& config_json,
                        const std::string& hash = "") {
  Measurement m;
  m.key = testing::gemm_key(testing::gemm_problem(1024, 1024, 1024));
  m.key.family = family;
  m.key.family_hash =
      !hash.empty()
          ? hash
          : current_hash_resolver()("gemm", m.key.problem, m.key.device.name, m.key.device.arch());
  m.result = testing::ok_result(Config{}, 1e-3);
  m.provenance = testing::test_provenance_at("2026-11-29T14:35:00.123456Z");
  nlohmann::json j = measurement_to_json(m);
  j["result"]["config"] = nlohmann::json::parse(config_json);
  return j.dump() + "\n";
}

std::vector<std::string> partial_files(const testing::TempDir& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir.path()))
    if (e.path().filename().string().find(".ktune-partial-") != std::string::npos)
      out.push_back(e.path().string());
  return out;
}

// Kernels this build does not register (replayed Kernel Tuner caches, user
// kernels) are records ktune writes: they import, and the note names them, so
// that a misspelt family is seen.
TEST(DbImportCli, AFamilyThisBuildDoesNotRegisterImportsAndIsNamed) {
  testing::TempDir dir;
  const std::string file = dir.file("foreign.jsonl"), db = dir.file("ktune.db");
  testing::write_bytes(file, gemm_record("gemmm", R"({"BLOCK_M": 64})"));
  auto run = ktune("db import " + quote(file) + " --db " + quote(db));
  EXPECT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("note: kernels this build does not register, stored without a space "
                            "check: gemmm (1)"),
            std::string::npos)
      << run.output;
  EXPECT_EQ(Store::open_read_only(db).result_count(), 1);
}

// An older template version's parameters are not today's (an mma recording
// without PATH): its records keep them.
TEST(DbImportCli, ARecordOfAnotherTemplateVersionIsNotJudgedByTodaysSpace) {
  testing::TempDir dir;
  const std::string file = dir.file("old.jsonl"), db = dir.file("ktune.db");
  testing::write_bytes(file,
                       gemm_record("gemm", R"({"NOT_A_PARAMETER": 3})", "hash-of-older-templates"));
  auto run = ktune("db import " + quote(file) + " --db " + quote(db));
  EXPECT_EQ(run.code, 0) << run.output;
  EXPECT_EQ(Store::open_read_only(db).result_count(), 1);
}

TEST(DbImportCli, AConfigurationOutsideTheFamilysSpaceIsAUsageError) {
  testing::TempDir dir;
  const std::string file = dir.file("bad.jsonl"), db = dir.file("ktune.db");
  testing::write_bytes(file, gemm_record("gemm", R"({"NOT_A_PARAMETER": 3})"));
  auto run = ktune("db import " + quote(file) + " --db " + quote(db));
  EXPECT_EQ(run.code, 2) << run.output;
  EXPECT_NE(run.output.find("line 1: 'result.config'"), std::string::npos) << run.output;
  EXPECT_FALSE(fs::exists(db));
}

TEST(DbImportCli, AnEmptyFileIsAUsageError) {
  testing::TempDir dir;
  const std::string file = dir.file("empty.jsonl"), db = dir.file("ktune.db");
  testing::write_bytes(file, "");
  auto run = ktune("db import " + quote(file) + " --db " + quote(db));
  EXPECT_EQ(run.code, 2) << run.output;
  EXPECT_NE(run.output.find("empty"), std::string::npos) << run.output;
  EXPECT_FALSE(fs::exists(db));
}

// The shipped database's round trip through every format: round_trip_cli_test.cpp.

TEST(DbExportCli, AFailedExportLeavesThePreviousFile) {
  testing::TempDir dir;
  const std::string db = dir.file("ktune.db"), file = dir.file("out.jsonl");
  {
    Store store = Store::open(db);
    for (int i = 0; i < 50; ++i)
      store.record(testing::gemm_key(testing::gemm_problem(64 * (i + 1), 64, 64)),
                   std::vector<Result>{testing::ok_result(testing::tile_config(64, 64), 1e-3)},
                   testing::test_provenance());
    // The last row exported cannot be read: the export fails midway.
    store.impl().db.exec(
        "UPDATE results SET metrics = 'not json' WHERE id = (SELECT max(id) FROM results)");
  }
  testing::write_bytes(file, "the previous export\n");
  auto run = ktune("db export --db " + quote(db) + " -o " + quote(file));
  EXPECT_NE(run.code, 0) << run.output;
  EXPECT_EQ(testing::read_bytes(file), "the previous export\n");
  EXPECT_TRUE(partial_files(dir).empty());
}

TEST(DbCheckpointCli, FoldsTheWalIntoTheFile) {
  testing::TempDir dir;
  const std::string db = dir.file("ktune.db");
  {
    Store store = Store::open(db);
    testing::record_one_result(store, testing::synthetic_device());
  }
  auto run = ktune("db checkpoint " + quote(db));
  EXPECT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("1 results"), std::string::npos) << run.output;
  EXPECT_FALSE(fs::exists(db + "-wal"));
  SQLite::Database file(db, SQLite::OPEN_READONLY);
  EXPECT_EQ(file.execAndGet("PRAGMA journal_mode").getString(), "delete");

  auto absent = ktune("db checkpoint " + quote(dir.file("absent.db")));
  EXPECT_NE(absent.code, 0) << absent.output;
  EXPECT_FALSE(fs::exists(dir.file("absent.db")));
}

}  // namespace
}  // namespace ktune
