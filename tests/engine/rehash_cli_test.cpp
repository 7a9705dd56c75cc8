// `ktune db rehash` / `stats` / `prune` / `lookup` through the built binary on
// a database keyed by the legacy whole-family gemm hash: stale before, re-keyed
// once (idempotent), then served. Times are SYNTHETIC, never measured.
#include <gtest/gtest.h>

#include <filesystem>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "../ktune_process.hpp"
#include "compile/compiler.hpp"
#include "db/store.hpp"
#include "tests/db/db_test_support.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using test::ktune_path;
using test::quote;
using test::shell;

/// A fresh database file in a temporary folder, removed at scope exit.
struct CliDb {
  ktune::testing::TempDir dir;
  std::string path() const { return dir.file("legacy.db"); }
};

TEST(RehashCli, ReKeysLegacyRowsOnceAndLookupServesThemAsFresh) {
  const KernelFamily& gemm = find_family("gemm");
  const DeviceSpec h200 = find_builtin_device("NVIDIA H200").value();
  const Problem problem = parse_problem(gemm, "m=1024,n=1024,k=1024,dtype=bf16,layout=nt");
  const Config config = gemm.default_config(problem, h200);
  CliDb db;
  {
    Store store = Store::open(db.path());
    RunKey key;
    key.device = h200;
    key.family = "gemm";
    key.family_hash = family_source_hash(gemm);  // how results were keyed before per-path hashes
    key.problem = problem;
    key.shape_keys = gemm.shape_keys();
    key.shape_class = gemm.shape_class(problem);
    Result r;  // SYNTHETIC
    r.config = config;
    r.status = Status::ok;
    r.time = {1e-3, 1e-3, 1e-3, 0, 10};
    store.record(key, std::vector<Result>{r}, {"host", "test", "synthetic", ""});
    key.family_hash = "an-older-text";
    store.record(key, std::vector<Result>{r}, {"host", "test", "synthetic", ""});
  }
  const std::string k = quote(ktune_path()), d = quote(db.path());
  const std::string lookup = k + " lookup --kernel gemm --problem m=1024,n=1024,k=1024,dtype=bf16,layout=nt "
                                 "--device 'NVIDIA H200' --json --db " + d + " --system-db " + d;
  auto source_of = [&] {
    auto run = shell(lookup);
    EXPECT_EQ(run.code, 0) << run.output;
    auto j = nlohmann::json::parse(run.output.substr(run.output.find('{')));
    return j.value("source", "");
  };
  EXPECT_EQ(source_of(), "default") << "a legacy row is stale against its path's hash";
  auto pinned = shell(lookup + " --hash an-older-text");
  EXPECT_EQ(pinned.code, 0) << pinned.output;
  EXPECT_EQ(nlohmann::json::parse(pinned.output.substr(pinned.output.find('{'))).value("source", ""), "exact")
      << "--hash serves the rows of that template version";

  auto dry = shell(k + " db rehash --kernel gemm --dry-run --db " + d);
  EXPECT_EQ(dry.code, 0) << dry.output;
  EXPECT_NE(dry.output.find("would re-key"), std::string::npos) << dry.output;
  EXPECT_NE(dry.output.find("1 results would move"), std::string::npos) << dry.output;
  EXPECT_EQ(source_of(), "default") << "a dry run writes nothing";

  auto run = shell(k + " db rehash --kernel gemm --db " + d);
  EXPECT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("1 results moved"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("left alone: gemm@an-older-text: 1 results"), std::string::npos) << run.output;
  EXPECT_EQ(source_of(), "exact");

  auto again = shell(k + " db rehash --kernel gemm --db " + d);
  EXPECT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("0 results moved"), std::string::npos) << again.output;

  // Only the row of older text is stale now, and prune removes only it.
  auto stats = shell(k + " db stats --json --db " + d);
  ASSERT_EQ(stats.code, 0) << stats.output;
  auto s = nlohmann::json::parse(stats.output.substr(stats.output.find('{')));
  ASSERT_EQ(s["stale"].size(), 1u) << stats.output;
  EXPECT_EQ(s["stale"][0]["family_hash"], "an-older-text");
  auto prune = shell(k + " db prune --stale --kernel gemm --db " + d);
  EXPECT_EQ(prune.code, 0) << prune.output;
  EXPECT_NE(prune.output.find("removed 1 stale results"), std::string::npos) << prune.output;
  EXPECT_EQ(source_of(), "exact");
  auto nothing_asked = shell(k + " db prune --kernel gemm --db " + d);
  EXPECT_EQ(nothing_asked.code, 2) << nothing_asked.output;
  EXPECT_NE(nothing_asked.output.find("needs what to remove: --stale"), std::string::npos)
      << nothing_asked.output;

  auto unknown = shell(k + " db rehash --kernel no_such_family --db " + d);
  EXPECT_EQ(unknown.code, 2) << unknown.output;
}

}  // namespace
}  // namespace ktune
