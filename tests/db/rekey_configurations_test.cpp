// stale_configurations / rekey_configurations (db/current_hash): listing the
// stale results one configuration at a time and moving only the chosen ones to
// their row's current hash, as `ktune db rehash --compare-cubins` does. Hashes
// are synthetic labels; all times are SYNTHETIC, never measured.
#include <gtest/gtest.h>

#include "db/current_hash.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

// Every gemm row's current hash is "hash-now"; other families are unknown.
CurrentHash now_is(const std::string& hash) {
  return [hash](const std::string& family, const Problem&, const std::string&, const std::string&) {
    return family == "gemm" ? hash : std::string();
  };
}

struct Fixture {
  TempDir dir;
  std::string path = dir.file("rekey.db");
  Problem problem = gemm_problem(512, 512, 512, "bf16");
  Config same = tile_config(128, 128), changed = tile_config(64, 64), wrong = tile_config(256, 128);

  // Three configurations measured with the old text (one of them a wrong
  // result), and one measurement of `same` already stored under the new hash.
  void fill(Store& store) {
    store.record(gemm_key(problem, synthetic_device(), "hash-old"),
                 std::vector<Result>{ok_result(same, 1e-3), ok_result(changed, 2e-3),
                                     failed_result(wrong, Status::wrong_result)},
                 test_provenance_at("2026-11-01T00:00:00.000000Z"));
    store.record(gemm_key(problem, synthetic_device(), "hash-old"),
                 std::vector<Result>{ok_result(same, 1.1e-3)},
                 test_provenance_at("2026-11-02T00:00:00.000000Z"));
    store.record(gemm_key(problem, synthetic_device(), "hash-now"),
                 std::vector<Result>{ok_result(same, 1.1e-3)},
                 test_provenance_at("2026-11-02T00:00:00.000000Z"));
  }
};

TEST(RekeyConfigurations, ListsEachStaleConfigurationWithItsCurrentHash) {
  Fixture f;
  Store store = Store::open(f.path);
  f.fill(store);
  auto stale = stale_configurations(store, "gemm", now_is("hash-now"));
  ASSERT_EQ(stale.size(), 3u);
  std::map<std::string, std::int64_t> results;
  for (const auto& sc : stale) {
    EXPECT_EQ(sc.family, "gemm");
    EXPECT_EQ(sc.hash, "hash-old");
    EXPECT_EQ(sc.current_hash, "hash-now");
    EXPECT_EQ(sc.device, synthetic_device().name);
    EXPECT_EQ(sc.problem.key(), f.problem.key());
    results[sc.config.key()] = sc.results;
  }
  EXPECT_EQ(results[f.same.key()], 2);
  EXPECT_EQ(results[f.changed.key()], 1);
  EXPECT_EQ(results[f.wrong.key()], 1);
  // Judged against the old text, only the row under hash-now is stale; unknown
  // current hashes list nothing.
  auto against_old = stale_configurations(store, "gemm", now_is("hash-old"));
  ASSERT_EQ(against_old.size(), 1u);
  EXPECT_EQ(against_old[0].hash, "hash-now");
  EXPECT_EQ(against_old[0].config.key(), f.same.key());
  EXPECT_TRUE(stale_configurations(store, "rowwise", now_is("hash-now")).empty());
  EXPECT_THROW(stale_configurations(store, "", now_is("hash-now")), std::invalid_argument);
}

TEST(RekeyConfigurations, MovesOnlyTheChosenConfigurationsAndDropsDuplicates) {
  Fixture f;
  Store store = Store::open(f.path);
  f.fill(store);
  auto stale = stale_configurations(store, "gemm", now_is("hash-now"));
  std::vector<StaleConfiguration> chosen;
  for (const auto& sc : stale)
    if (sc.config.key() != f.changed.key()) chosen.push_back(sc);
  ASSERT_EQ(chosen.size(), 2u);

  const RekeySummary dry = rekey_configurations(store, chosen, /*dry_run=*/true);
  EXPECT_EQ(dry.moved, 3);
  EXPECT_EQ(store.result_count(), 5) << "a dry run writes nothing";
  EXPECT_EQ(stale_configurations(store, "gemm", now_is("hash-now")).size(), 3u);

  const RekeySummary done = rekey_configurations(store, chosen, /*dry_run=*/false);
  // `same`: the 2026-11-01 measurement moves; the 2026-11-02 one is already
  // stored under the new hash, so its stale copy is removed. `wrong` moves
  // with its status: it is never served under the new hash either.
  EXPECT_EQ(done.moved, 2);
  EXPECT_EQ(done.duplicates, 1);
  EXPECT_EQ(store.result_count(), 4);
  // Judged against a third text, every row is stale: list what hash-now holds.
  std::map<std::string, std::int64_t> under_now;
  for (const auto& sc : stale_configurations(store, "gemm", now_is("hash-next")))
    if (sc.hash == "hash-now") under_now[sc.config.key()] = sc.results;
  EXPECT_EQ(under_now,
            (std::map<std::string, std::int64_t>{{f.same.key(), 2}, {f.wrong.key(), 1}}));
  auto left = stale_configurations(store, "gemm", now_is("hash-now"));
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].config.key(), f.changed.key());

  // Entries that match nothing (already moved) move nothing.
  EXPECT_EQ(rekey_configurations(store, chosen, false).moved, 0);

  // Moving the last one leaves the old family version without results: it goes.
  EXPECT_EQ(store.stats().families, 2);
  EXPECT_EQ(rekey_configurations(store, left, false).moved, 1);
  EXPECT_EQ(store.stats().families, 1);
  EXPECT_EQ(store.result_count(), 4);
}

TEST(RekeyConfigurations, ARefusedWriteLeavesTheFileAsItWas) {
  Fixture f;
  {
    Store store = Store::open(f.path);
    f.fill(store);
  }
  Store read_only = Store::open_read_only(f.path);
  auto stale = stale_configurations(read_only, "gemm", now_is("hash-now"));
  EXPECT_THROW(rekey_configurations(read_only, stale, false), DatabaseError);
  EXPECT_EQ(rekey_configurations(read_only, stale, true).moved, 4)
      << "a dry run reads a read-only file";
}

}  // namespace
}  // namespace ktune
