// Pruning (db/prune.cpp): results go, then the configurations, family versions
// and problems no result references; a dry run only counts; and a Store's
// cached row ids never file a result under a row a prune deleted and SQLite
// gave to another key. All times are SYNTHETIC, never measured.
#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include "db/current_hash.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

// The row id of a key, read through a connection of its own (the ids are
// what this file is about, and the Store does not expose them).
std::int64_t row_id(const std::string& path, const std::string& sql, const std::string& key) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, sql);
  q.bind(1, key);
  if (!q.executeStep()) return -1;
  return q.getColumn(0).getInt64();
}
std::int64_t config_row(const std::string& path, const Config& c) {
  return row_id(path, "SELECT id FROM configs WHERE key = ?", c.key());
}
std::int64_t family_row(const std::string& path, const std::string& hash) {
  return row_id(path, "SELECT id FROM families WHERE name = 'gemm' AND source_hash = ?", hash);
}
std::int64_t problem_row(const std::string& path, const Problem& p) {
  return row_id(path, "SELECT id FROM problems WHERE family = 'gemm' AND key = ?", p.key());
}

// Older text ("hash-old") measured two problems; the current text
// ("hash-new") one of them, with one configuration the old rows also used.
struct Fixture {
  TempDir dir;
  std::string path = dir.file("prune.db");
  Problem kept = gemm_problem(512, 512, 512), dropped = gemm_problem(1024, 1024, 1024);
  Config shared = tile_config(128, 128), old_only = tile_config(256, 256), dropped_only = tile_config(64, 64);

  void fill(Store& store) const {
    store.record(gemm_key(kept, synthetic_device(), "hash-old"),
                 std::vector<Result>{ok_result(shared, 1e-3), ok_result(old_only, 2e-3)}, test_provenance());
    store.record(gemm_key(dropped, synthetic_device(), "hash-old"),
                 std::vector<Result>{ok_result(dropped_only, 3e-3)}, test_provenance());
    store.record(gemm_key(kept, synthetic_device(), "hash-new"), std::vector<Result>{ok_result(shared, 1e-3)},
                 test_provenance());
  }
};

// Every way of pruning stale results: one current hash, or each row's own.
const std::vector<std::pair<const char*, std::function<PruneSummary(Store&, bool)>>> kStalePrunes = {
    {"prune_stale", [](Store& s, bool dry_run) { return s.prune_stale("gemm", "hash-new", dry_run); }},
    {"prune_stale_results",
     [](Store& s, bool dry_run) {
       auto current = [](const std::string&, const Problem&, const std::string&, const std::string&) {
         return std::string("hash-new");
       };
       return prune_stale_results(s, "gemm", current, dry_run);
     }},
};

void expect_fixture_pruned(const PruneSummary& s) {
  EXPECT_EQ(s.results, 3);   // both problems' hash-old rows
  EXPECT_EQ(s.configs, 2);   // old_only, dropped_only; `shared` has a current result
  EXPECT_EQ(s.families, 1);  // gemm@hash-old
  EXPECT_EQ(s.problems, 1);  // `dropped`, measured with the old text only
}

TEST(Prune, RemovesUnreferencedConfigsFamiliesAndProblemsAndKeepsReferencedOnes) {
  for (const auto& [name, prune] : kStalePrunes) {
    SCOPED_TRACE(name);
    Fixture f;
    Store store = Store::open(f.path);
    f.fill(store);
    expect_fixture_pruned(prune(store, false));

    StoreStats after = store.stats();
    EXPECT_EQ(after.results, 1);
    EXPECT_EQ(after.configs, 1);
    EXPECT_EQ(after.families, 1);
    EXPECT_EQ(after.problems, 1);
    EXPECT_EQ(after.devices, 1);  // devices stay: they carry measured ceilings
    EXPECT_GT(config_row(f.path, f.shared), 0);
    EXPECT_EQ(config_row(f.path, f.old_only), -1);
    EXPECT_EQ(config_row(f.path, f.dropped_only), -1);
    EXPECT_EQ(family_row(f.path, "hash-old"), -1);
    EXPECT_EQ(problem_row(f.path, f.dropped), -1);
    EXPECT_EQ(store.best(gemm_key(f.kept, synthetic_device(), "hash-new"))->config, f.shared);

    // Nothing is left to remove the second time.
    PruneSummary again = prune(store, false);
    EXPECT_EQ(again.results + again.configs + again.families + again.problems, 0);
  }
}

TEST(Prune, DryRunCountsWhatWouldGoAndChangesNothing) {
  for (const auto& [name, prune] : kStalePrunes) {
    SCOPED_TRACE(name);
    Fixture f;
    {
      Store store = Store::open(f.path);
      f.fill(store);
    }
    Store writer = Store::open(f.path);
    const StoreStats before = writer.stats();
    {
      Store read_only = Store::open_read_only(f.path);
      expect_fixture_pruned(prune(read_only, true));
      EXPECT_THROW(prune(read_only, false), DatabaseError);
    }
    expect_fixture_pruned(prune(writer, true));  // a writable Store's dry run writes nothing either
    const StoreStats after = writer.stats();
    EXPECT_EQ(after.results, before.results);
    EXPECT_EQ(after.configs, before.configs);
    EXPECT_EQ(after.families, before.families);
    EXPECT_EQ(after.problems, before.problems);
    EXPECT_EQ(after.devices, before.devices);
    // What the dry run counted is what the prune then removes.
    expect_fixture_pruned(prune(writer, false));
  }
}

// Store A caches the ids of what it recorded. Store B (another connection,
// as a second process would be) prunes those rows away and records other keys,
// which SQLite gives the freed ids (max(id) + 1 of an emptied table). A's next
// batch must resolve its keys again, not file its result under B's rows.
TEST(Prune, AnotherStoresPruneNeverLetsCachedIdsFileResultsUnderReusedRows) {
  TempDir dir;
  const std::string path = dir.file("shared.db");
  const Problem p_a = gemm_problem(512, 512, 512), p_b = gemm_problem(2048, 2048, 2048);
  const Config x = tile_config(128, 128), y = tile_config(64, 64);
  const RunKey key_a = gemm_key(p_a, synthetic_device(), "hash-old");
  const RunKey key_b = gemm_key(p_b, synthetic_device(), "hash-new");

  Store a = Store::open(path);
  a.record(key_a, std::vector<Result>{ok_result(x, 1e-3)}, test_provenance("a"));  // A caches x, p_a, hash-old
  const std::int64_t x_id = config_row(path, x), family_id = family_row(path, "hash-old"),
                     problem_id = problem_row(path, p_a);

  Store b = Store::open(path);
  PruneSummary pruned = b.prune_stale("gemm", "hash-new");  // everything is stale
  EXPECT_EQ(pruned.results, 1);
  EXPECT_EQ(pruned.configs, 1);
  b.record(key_b, std::vector<Result>{ok_result(y, 2e-3)}, test_provenance("b"));
  // The setup this test is about: B's new rows took the ids A cached.
  ASSERT_EQ(config_row(path, y), x_id);
  ASSERT_EQ(family_row(path, "hash-new"), family_id);
  ASSERT_EQ(problem_row(path, p_b), problem_id);

  a.record(key_a, std::vector<Result>{ok_result(x, 1.5e-3)}, test_provenance("a"));

  // Filed under x, p_a and hash-old, in fresh rows; B's result stays alone under its keys.
  EXPECT_NE(config_row(path, x), -1);
  EXPECT_NE(config_row(path, x), x_id);
  auto mine = a.results(key_a);
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].config, x);
  auto theirs = b.results(key_b);
  ASSERT_EQ(theirs.size(), 1u);
  EXPECT_EQ(theirs[0].config, y);
  EXPECT_EQ(a.result_count(), 2);
}

// The Store that prunes drops its own caches too: its deletions do not count
// as another connection's commit.
TEST(Prune, TheStoreThatPrunesForgetsTheIdsItDeleted) {
  TempDir dir;
  const std::string path = dir.file("own.db");
  const Config x = tile_config(128, 128), y = tile_config(64, 64);
  const RunKey old_key = gemm_key(gemm_problem(512, 512, 512), synthetic_device(), "hash-old");
  const RunKey new_key = gemm_key(gemm_problem(2048, 2048, 2048), synthetic_device(), "hash-new");

  Store store = Store::open(path);
  store.record(old_key, std::vector<Result>{ok_result(x, 1e-3)}, test_provenance());
  const std::int64_t x_id = config_row(path, x);
  store.prune_stale("gemm", "hash-new");
  store.record(new_key, std::vector<Result>{ok_result(y, 2e-3)}, test_provenance());
  ASSERT_EQ(config_row(path, y), x_id);

  store.record(old_key, std::vector<Result>{ok_result(x, 1.5e-3)}, test_provenance());
  auto mine = store.results(old_key);
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].config, x);
  auto other = store.results(new_key);
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].config, y);
}

}  // namespace
}  // namespace ktune
