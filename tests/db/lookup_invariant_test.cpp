// The lookup invariant (never a configuration with a failed result for the
// same family version, problem and arch, whatever the device form or layer)
// and the deterministic best (equal medians ranked the same everywhere, and
// after an export/import round trip).
#include <gtest/gtest.h>

#include <sstream>

#include "db/dispatch_emitter.hpp"
#include "db/exchange.hpp"
#include "db/lookup.hpp"
#include "db/query.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

const DeviceSpec kA = synthetic_device("Synthetic GPU A", 9, 0);
const DeviceSpec kB = synthetic_device("Synthetic GPU B", 9, 0);
const Config kFast = tile_config(128, 128), kSlow = tile_config(64, 128);

// Every device form a caller can ask with: the GPU that failed, another GPU
// of its arch, and the arch alone.
std::vector<LookupRequest> every_form(const Problem& p) {
  return {gemm_request(p, "Synthetic GPU A"), gemm_request(p, "Synthetic GPU B"),
          gemm_request(p, "", "sm_90")};
}

TEST(LookupInvariant, AFailureOnOneGpuRulesTheConfigurationOutForItsArchInEveryForm) {
  TempDir dir;
  const std::string path = dir.file("one.db");
  const Problem p = gemm_problem(4096, 4096, 4096);
  {
    Store s = Store::open(path);
    // B measured kFast fine; A, the same arch, found it computes wrong numbers.
    s.record(gemm_key(p, kB), std::vector<Result>{ok_result(kFast, 1e-3), ok_result(kSlow, 2e-3)},
             test_provenance("team-b"));
    s.record(gemm_key(p, kA), std::vector<Result>{failed_result(kFast, Status::wrong_result)},
             test_provenance("team-a"));
  }
  Lookup lookup = Lookup::open(path);
  for (const auto& r : every_form(p)) {
    auto a = lookup.best(r);
    ASSERT_TRUE(a) << r.device << r.arch;
    EXPECT_EQ(a->config, kSlow) << "device '" << r.device << "' arch '" << r.arch << "'";
  }
  // A nearby shape may still borrow kFast: it failed only on 4096^3.
  auto near = lookup.best(gemm_request(gemm_problem(4000, 4096, 4096), "", "sm_90"));
  ASSERT_TRUE(near);
  EXPECT_EQ(near->source, LookupSource::nearest);
}

TEST(LookupInvariant, EveryFailedStatusCountsNotOnlyWrongResults) {
  for (Status failure : {Status::wrong_result, Status::compile_error, Status::launch_error,
                         Status::timeout, Status::invalid_config}) {
    TempDir dir;
    const std::string path = dir.file("one.db");
    const Problem p = gemm_problem(1024, 1024, 1024);
    {
      Store s = Store::open(path);
      s.record(gemm_key(p, kA), std::vector<Result>{ok_result(kFast, 1e-3), ok_result(kSlow, 2e-3)},
               test_provenance("first"));
      s.record(gemm_key(p, kA), std::vector<Result>{failed_result(kFast, failure)},
               test_provenance("second"));
    }
    Lookup lookup = Lookup::open(path);
    for (const auto& r : {gemm_request(p, "Synthetic GPU A"), gemm_request(p, "", "sm_90")}) {
      auto a = lookup.best(r);
      ASSERT_TRUE(a) << to_string(failure) << " device '" << r.device << "' arch '" << r.arch
                     << "'";
      EXPECT_EQ(a->config, kSlow) << to_string(failure);
    }
    auto rows = best_per_problem(Store::open_read_only(path), {"gemm", "sm_90", "", {}, 1});
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].config, kSlow) << to_string(failure);
  }
}

TEST(LookupInvariant, AFailureInTheSystemLayerRulesOutTheUserLayersSuccess) {
  TempDir dir;
  const std::string user = dir.file("user.db"), system = dir.file("system.db");
  const Problem p = gemm_problem(2048, 2048, 2048);
  {
    Store s = Store::open(system);
    s.record(gemm_key(p, kA), std::vector<Result>{failed_result(kFast, Status::wrong_result)},
             test_provenance("vendor"));
  }
  {
    Store u = Store::open(user);
    u.record(gemm_key(p, kB), std::vector<Result>{ok_result(kFast, 1e-3), ok_result(kSlow, 2e-3)},
             test_provenance("me"));
  }
  Lookup lookup = Lookup::open_overlay(user, system);
  for (const auto& r : every_form(p)) {
    auto a = lookup.best(r);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->config, kSlow) << "device '" << r.device << "' arch '" << r.arch << "'";
    EXPECT_EQ(a->database, user);
  }
  // And the other way round: the user's failure over the system's success.
  Lookup reversed = Lookup::open_layers({system, user});
  for (const auto& r : every_form(p)) {
    auto a = reversed.best(r);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->config, kSlow);
  }
}

TEST(LookupInvariant, TheCallersValidatorStepsToTheNextCandidateThatFits) {
  TempDir dir;
  const std::string path = dir.file("one.db");
  {
    Store s = Store::open(path);
    s.record(gemm_key(gemm_problem(4096, 4096, 4096), kA),
             std::vector<Result>{ok_result(kFast, 1e-3), ok_result(kSlow, 2e-3)},
             test_provenance());
    s.record(gemm_key(gemm_problem(8192, 8192, 8192), kA),
             std::vector<Result>{ok_result(kFast, 1e-2)}, test_provenance());
  }
  Lookup lookup = Lookup::open(path);
  LookupRequest r = gemm_request(gemm_problem(4000, 4096, 4096), "Synthetic GPU A");
  EXPECT_EQ(lookup.best(r)->config, kFast);
  r.fits = [](const Config& c) { return c != kFast; };
  auto a = lookup.best(r);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->source, LookupSource::nearest);
  EXPECT_EQ(a->config, kSlow);
  // Nothing fits: the default, never a refused measurement. (A fresh lookup:
  // answers are cached per request, so a validator is one per problem.)
  r.fits = [](const Config&) { return false; };
  r.default_config = tile_config(32, 32, 2);
  EXPECT_EQ(Lookup::open(path).best(r)->source, LookupSource::default_config);
}

// Two configurations with the same median: the one with the smaller min wins,
// recorded in either order, in the lookup, the best view and the header.
TEST(DeterministicBest, EqualMediansRankByMinThenSpreadThenKeyAndSurviveARoundTrip) {
  TempDir dir;
  const Problem p = gemm_problem(1024, 1024, 1024);
  Result first = ok_result(kSlow, 1e-3), second = ok_result(kFast, 1e-3);
  first.time.min_s = 0.97e-3;  // same median, worse min: recorded first (lower row id)
  second.time.min_s = 0.90e-3;
  const std::string a_path = dir.file("a.db"), b_path = dir.file("b.db");
  {
    Store s = Store::open(a_path);
    s.record(gemm_key(p, kA), std::vector<Result>{first}, test_provenance("one"));
    s.record(gemm_key(p, kA), std::vector<Result>{second}, test_provenance("two"));
  }
  {
    // Exported and imported in reverse row order, as a merge might leave it.
    std::stringstream out;
    export_measurements(Store::open_read_only(a_path), out, ExchangeFormat::jsonl);
    std::vector<std::string> lines;
    for (std::string line; std::getline(out, line);) lines.push_back(line);
    std::stringstream reversed;
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) reversed << *it << "\n";
    Store b = Store::open(b_path);
    import_measurements(b, reversed, ExchangeFormat::jsonl);
  }
  for (const std::string& path : {a_path, b_path}) {
    Lookup lookup = Lookup::open(path);
    EXPECT_EQ(lookup.best(gemm_request(p, "Synthetic GPU A"))->config, kFast) << path;
    EXPECT_EQ(lookup.best(gemm_request(p, "", "sm_90"))->config, kFast) << path;
    Store store = Store::open_read_only(path);
    auto rows = best_per_problem(store, {"gemm", "sm_90", "", {}, 1});
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].config, kFast) << path;
    DispatchOptions options;
    options.family = "gemm";
    options.device = "sm_90";
    options.shape_keys = {"m", "n", "k"};
    const std::string header = emit_dispatch_header(store, options);
    EXPECT_NE(header.find("\"" + kFast.key() + "\""), std::string::npos) << header;
    EXPECT_EQ(header.find("\"" + kSlow.key() + "\""), std::string::npos) << header;
  }
  EXPECT_TRUE(
      diff_best(Store::open_read_only(a_path), Store::open_read_only(b_path)).changed.empty());
}

TEST(DeterministicBest, EqualMediansAndMinsRankBySpreadThenByConfigurationKey) {
  TempDir dir;
  const std::string path = dir.file("one.db");
  const Problem p = gemm_problem(1024, 1024, 1024);
  const Config k1 = tile_config(256, 64), k2 = tile_config(128, 256), k3 = tile_config(64, 64);
  Result r1 = ok_result(k1, 1e-3), r2 = ok_result(k2, 1e-3), r3 = ok_result(k3, 1e-3);
  r1.time.spread = r2.time.spread = 0.01;
  r3.time.spread = 0.05;
  {
    Store s = Store::open(path);
    s.record(gemm_key(p, kA), std::vector<Result>{r3, r1, r2}, test_provenance());
  }
  const Config expected = k1.key() < k2.key() ? k1 : k2;
  Lookup lookup = Lookup::open(path);
  EXPECT_EQ(lookup.best(gemm_request(p, "Synthetic GPU A"))->config, expected);
  auto rows = best_per_problem(Store::open_read_only(path), {"gemm", "sm_90", "", {}, 3});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].config, expected);
  EXPECT_EQ(rows[2].config, k3);
}

// `ktune lookup --deterministic`: only results whose verification found two
// runs bit-for-bit equal; a faster unchecked or non-repeatable one is passed over.
TEST(LookupDeterministic, ServesOnlyResultsVerifiedRepeatable) {
  TempDir dir;
  const std::string path = dir.file("det.db");
  const Problem p = gemm_problem(4096, 4096, 4096);
  const Config kMid = tile_config(64, 64);
  {
    Result fastest = ok_result(kFast, 1e-3);
    fastest.metrics["verification"]["deterministic"] = false;
    Result unchecked = ok_result(kMid, 1.5e-3);
    Result repeatable = ok_result(kSlow, 2e-3);
    repeatable.metrics["verification"]["deterministic"] = true;
    Store s = Store::open(path);
    s.record(gemm_key(p, kA), std::vector<Result>{fastest, unchecked, repeatable},
             test_provenance());
  }
  Lookup lookup = Lookup::open(path);
  LookupRequest any = gemm_request(p, "Synthetic GPU A");
  auto a = lookup.best(any);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->config, kFast);
  LookupRequest det = any;
  det.deterministic_only = true;
  auto d = lookup.best(det);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->config, kSlow);
  EXPECT_EQ(lookup.best(any)->config, kFast) << "the cache keeps the two requests apart";
}

}  // namespace
}  // namespace ktune
