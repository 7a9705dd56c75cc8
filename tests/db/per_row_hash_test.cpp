// Per-row current hashes (db/current_hash): a family with one version key per
// kernel path has several current hashes at once; stale counting, pruning,
// the best view and rehash judge every row by its own. The "paths" and hashes
// here are synthetic labels; all times are SYNTHETIC, never measured.
#include <gtest/gtest.h>

#include <stdexcept>

#include "db/current_hash.hpp"
#include "db/lookup.hpp"
#include "db/query.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

// Synthetic paths: bf16 problems take "path A", fp32 ones "path B", on any device.
std::string path_hash(const Problem& p) { return p.text("dtype") == "bf16" ? "hash-path-a" : "hash-path-b"; }

CurrentHash synthetic_current() {
  return [](const std::string& family, const Problem& p, const std::string&, const std::string&) -> std::string {
    return family == "gemm" ? path_hash(p) : "";
  };
}

struct Fixture {
  TempDir dir;
  std::string path = dir.file("per_row.db");
  Problem bf16 = gemm_problem(512, 512, 512, "bf16");
  Problem fp32 = gemm_problem(512, 512, 512, "fp32");
  Config a = tile_config(128, 128), b = tile_config(64, 64), old_fast = tile_config(256, 256);

  // path A fresh (older), path B fresh (newest), path B stale (text since edited)
  void fill(Store& store) {
    store.record(gemm_key(bf16, synthetic_device(), "hash-path-a"), std::vector<Result>{ok_result(a, 1e-3)},
                 test_provenance_at("2026-11-01T00:00:00.000000Z"));
    store.record(gemm_key(fp32, synthetic_device(), "hash-old-b"), std::vector<Result>{ok_result(old_fast, 1e-4)},
                 test_provenance_at("2026-11-02T00:00:00.000000Z"));
    store.record(gemm_key(fp32, synthetic_device(), "hash-path-b"), std::vector<Result>{ok_result(b, 2e-3)},
                 test_provenance_at("2026-11-03T00:00:00.000000Z"));
  }
};

TEST(PerRowHash, StaleCountsAndPruningJudgeEachRowByItsPath) {
  Fixture f;
  Store store = Store::open(f.path);
  f.fill(store);
  // The single-hash rule would call path A's fresh row stale.
  auto single = store.stale("", "");
  ASSERT_EQ(single.size(), 2u);
  auto stale = stale_results(store, "gemm", synthetic_current());
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_EQ(stale[0].family_hash, "hash-old-b");
  EXPECT_EQ(stale[0].results, 1);
  EXPECT_EQ(stale_results(store, "", synthetic_current()).size(), 1u);

  EXPECT_EQ(prune_stale_results(store, "gemm", synthetic_current()).results, 1);
  EXPECT_EQ(store.result_count(), 2);
  EXPECT_TRUE(stale_results(store, "gemm", synthetic_current()).empty());
  EXPECT_EQ(store.results(gemm_key(f.bf16, synthetic_device(), "hash-path-a")).size(), 1u);
  EXPECT_THROW(prune_stale_results(store, "", synthetic_current()), std::invalid_argument);
}

TEST(PerRowHash, UnknownFamiliesFallBackToTheNewestMeasuredHash) {
  Fixture f;
  Store store = Store::open(f.path);
  f.fill(store);
  auto no_answer = [](const std::string&, const Problem&, const std::string&, const std::string&) {
    return std::string();
  };
  // Every row unknown: the newest-measured hash (hash-path-b) is current, as before.
  auto stale = stale_results(store, "", no_answer);
  ASSERT_EQ(stale.size(), 2u);
  EXPECT_EQ(stale[0].family_hash, "hash-old-b");
  EXPECT_EQ(stale[1].family_hash, "hash-path-a");
}

TEST(PerRowHash, TheBestViewServesEveryPathsCurrentRows) {
  Fixture f;
  Store store = Store::open(f.path);
  f.fill(store);
  // Newest-hash rule: only path B's problem is shown.
  EXPECT_EQ(best_per_problem(store, {"gemm", "", ""}).size(), 1u);
  BestQuery q{"gemm", "", "", synthetic_current()};
  auto rows = best_per_problem(store, q);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& r : rows) {
    EXPECT_EQ(r.family_hash, path_hash(r.problem)) << r.problem_key;
    EXPECT_EQ(r.config, r.problem.text("dtype") == "bf16" ? f.a : f.b) << "the stale faster row is never served";
  }
}

TEST(PerRowHash, RehashReKeysExactlyTheLegacyRowsInOneTransaction) {
  Fixture f;
  Store store = Store::open(f.path);
  store.record(gemm_key(f.bf16, synthetic_device(), "hash-legacy"),
               std::vector<Result>{ok_result(f.a, 1e-3), ok_result(f.b, 2e-3)},
               test_provenance_at("2026-11-01T00:00:00.000000Z"));
  store.record(gemm_key(f.fp32, synthetic_device(), "hash-legacy"), std::vector<Result>{ok_result(f.b, 3e-3)},
               test_provenance_at("2026-11-01T00:00:01.000000Z"));
  store.record(gemm_key(f.fp32, synthetic_device(), "hash-other"), std::vector<Result>{ok_result(f.a, 4e-3)},
               test_provenance_at("2026-11-01T00:00:02.000000Z"));
  // The same measurement already stored under its new hash (e.g. imported twice).
  store.record(gemm_key(f.fp32, synthetic_device(), "hash-path-b"), std::vector<Result>{ok_result(f.b, 3e-3)},
               test_provenance_at("2026-11-01T00:00:01.000000Z"));

  RehashSummary dry = rehash_results(store, "gemm", "hash-legacy", synthetic_current(), true);
  EXPECT_EQ(dry.rehashed, 3);
  EXPECT_EQ(store.results(gemm_key(f.bf16, synthetic_device(), "hash-legacy")).size(), 2u) << "dry run writes nothing";

  // A failure part-way leaves the database exactly as it was.
  int calls = 0;
  CurrentHash failing = [&calls](const std::string& family, const Problem& p, const std::string& d,
                                 const std::string& a) -> std::string {
    if (++calls == 2) throw std::runtime_error("synthetic failure while re-keying");
    return synthetic_current()(family, p, d, a);
  };
  EXPECT_THROW(rehash_results(store, "gemm", "hash-legacy", failing, false), std::runtime_error);
  EXPECT_EQ(store.results(gemm_key(f.bf16, synthetic_device(), "hash-legacy")).size(), 2u);
  EXPECT_EQ(store.results(gemm_key(f.fp32, synthetic_device(), "hash-legacy")).size(), 1u);
  EXPECT_TRUE(store.results(gemm_key(f.bf16, synthetic_device(), "hash-path-a")).empty());

  RehashSummary s = rehash_results(store, "gemm", "hash-legacy", synthetic_current(), false);
  EXPECT_EQ(s.rehashed, 2);
  EXPECT_EQ(s.duplicates, 1);
  EXPECT_EQ(s.unknown, 0);
  ASSERT_EQ(s.by_new_hash.size(), 1u);
  EXPECT_EQ(s.by_new_hash[0], (std::pair<std::string, std::int64_t>{"hash-path-a", 2}));
  ASSERT_EQ(s.left_alone.size(), 2u);
  EXPECT_EQ(s.left_alone[0], (std::pair<std::string, std::int64_t>{"hash-other", 1}));
  EXPECT_EQ(s.left_alone[1], (std::pair<std::string, std::int64_t>{"hash-path-b", 1}));
  EXPECT_EQ(store.result_count(), 4);
  EXPECT_EQ(store.results(gemm_key(f.bf16, synthetic_device(), "hash-path-a")).size(), 2u);
  EXPECT_EQ(store.results(gemm_key(f.fp32, synthetic_device(), "hash-path-b")).size(), 1u);
  EXPECT_EQ(store.results(gemm_key(f.fp32, synthetic_device(), "hash-other")).size(), 1u) << "other hashes untouched";
  EXPECT_TRUE(store.results(gemm_key(f.bf16, synthetic_device(), "hash-legacy")).empty());

  RehashSummary again = rehash_results(store, "gemm", "hash-legacy", synthetic_current(), false);
  EXPECT_EQ(again.rehashed + again.duplicates + again.already_current + again.unknown, 0) << "idempotent";
  EXPECT_EQ(store.result_count(), 4);

  // Rows whose current hash is their own are counted, not moved.
  RehashSummary same = rehash_results(store, "gemm", "hash-path-a", synthetic_current(), false);
  EXPECT_EQ(same.already_current, 2);
  EXPECT_EQ(same.rehashed, 0);
  EXPECT_THROW(rehash_results(store, "gemm", "", synthetic_current(), false), std::invalid_argument);
}

TEST(PerRowHash, ALookupPinnedToThePathHashFindsTheRehashedRow) {
  Fixture f;
  {
    Store store = Store::open(f.path);
    store.record(gemm_key(f.bf16, synthetic_device(), "hash-legacy"), std::vector<Result>{ok_result(f.a, 1e-3)},
                 test_provenance());
    LookupRequest req{"gemm", f.bf16, "Synthetic GPU A", "", {}, "", "hash-path-a", std::nullopt, {}};
    EXPECT_FALSE(Lookup::open(f.path).best(req)) << "before the rehash the legacy row is stale";
    rehash_results(store, "gemm", "hash-legacy", synthetic_current(), false);
  }
  Lookup lookup = Lookup::open(f.path);
  LookupRequest req{"gemm", f.bf16, "Synthetic GPU A", "", {}, "", "hash-path-a", std::nullopt, {}};
  auto a = lookup.best(req);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->source, LookupSource::exact);
  EXPECT_EQ(a->config, f.a);
  EXPECT_EQ(a->family_hash, "hash-path-a");
}

// A request without a hash (an application that cannot compute one) gets, per
// shape class and arch, the newest hash: each path's fresh rows, never the
// stale ones, although path B holds the newest measurement overall.
TEST(PerRowHash, RequestsWithoutAHashSeeEachPathsNewestRows) {
  Fixture f;
  {
    Store store = Store::open(f.path);
    f.fill(store);
  }
  Lookup lookup = Lookup::open(f.path);
  auto ask = [&](const Problem& p) {
    return lookup.best(LookupRequest{"gemm", p, "Synthetic GPU A", "", {"m", "n", "k"}, "", "", std::nullopt, {}});
  };
  auto a = ask(f.bf16);
  ASSERT_TRUE(a) << "path A's rows are older than path B's but still current for bf16";
  EXPECT_EQ(a->source, LookupSource::exact);
  EXPECT_EQ(a->config, f.a);
  auto b = ask(f.fp32);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->config, f.b) << "the stale, faster row of path B is never served";
  EXPECT_EQ(b->family_hash, "hash-path-b");
  auto near = ask(gemm_problem(600, 600, 600, "bf16"));
  ASSERT_TRUE(near);
  EXPECT_EQ(near->source, LookupSource::nearest);
  EXPECT_EQ(near->config, f.a);
}

// The one lenient resolver (`ktune db` and the C ABI's query): where the
// strict one cannot read a template it answers "" and says why once; what the
// strict one answers passes through; other errors are not swallowed.
TEST(PerRowHash, TheLenientResolverAnswersUnknownWhereTemplatesCannotBeRead) {
  const Problem bf16 = gemm_problem(512, 512, 512, "bf16"),
                fp32 = gemm_problem(512, 512, 512, "fp32");
  auto unreadable_fp32 = [](const std::string& family, const Problem& p, const std::string& d,
                            const std::string& a) -> std::string {
    if (p.text("dtype") == "fp32") throw std::runtime_error("cannot read 'gemm/fp32.cuh'");
    return synthetic_current()(family, p, d, a);
  };
  std::vector<std::string> notes;
  CurrentHash lenient = lenient_current_hash(
      unreadable_fp32, [&notes](const std::string& why) { notes.push_back(why); });
  CurrentHash copy = lenient;
  EXPECT_EQ(lenient("gemm", bf16, "Synthetic GPU A", "sm_90"), "hash-path-a");
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(lenient("gemm", fp32, "Synthetic GPU A", "sm_90"), "");
  EXPECT_EQ(copy("gemm", fp32, "Synthetic GPU A", "sm_90"), "");
  EXPECT_EQ(lenient("gemm", fp32, "Synthetic GPU B", "sm_90"), "");
  EXPECT_EQ(notes, std::vector<std::string>{"cannot read 'gemm/fp32.cuh'"})
      << "one note, shared by copies";

  CurrentHash silent = lenient_current_hash(unreadable_fp32);
  EXPECT_EQ(silent("gemm", fp32, "Synthetic GPU A", "sm_90"), "");

  CurrentHash broken =
      lenient_current_hash([](const std::string&, const Problem&, const std::string&,
                              const std::string&) -> std::string {
        throw std::logic_error("a bug, not a missing template");
      });
  EXPECT_THROW(broken("gemm", bf16, "Synthetic GPU A", "sm_90"), std::logic_error);

  // The best view then judges path B's rows by the newest-measured hash, as before per-row hashes.
  Fixture f;
  Store store = Store::open(f.path);
  f.fill(store);
  auto rows = best_per_problem(store, {"gemm", "", "", lenient_current_hash(unreadable_fp32)});
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& r : rows) EXPECT_EQ(r.family_hash, path_hash(r.problem)) << r.problem_key;
}

}  // namespace
}  // namespace ktune
