// Lookup: every provenance (exact, nearest, a sibling GPU, another arch, default), the
// wrong_result exclusion, overlay precedence and concurrent use.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "db/lookup.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

const DeviceSpec kA = synthetic_device("Synthetic GPU A", 9, 0);
const DeviceSpec kB = synthetic_device("Synthetic GPU B", 9, 0);
const DeviceSpec kC = synthetic_device("Synthetic GPU C", 8, 0);
const DeviceSpec kD = synthetic_device("Synthetic GPU D", 8, 9);

const Config kX = tile_config(128, 128), kY = tile_config(64, 128), kZ = tile_config(256, 128);

class LookupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Store store = Store::open(path_);
    auto rec = [&](const Problem& p, const DeviceSpec& d, std::vector<Result> rs) {
      store.record(gemm_key(p, d), rs, test_provenance("team-a"));
    };
    rec(gemm_problem(1024, 1024, 1024), kA, {ok_result(kX, 1e-3), ok_result(kY, 2e-3)});
    rec(gemm_problem(4096, 4096, 4096), kA, {ok_result(kZ, 5e-2), ok_result(kX, 6e-2)});
    rec(gemm_problem(2048, 2048, 2048, "fp16"), kB, {ok_result(kY, 3e-3)});
    rec(gemm_problem(512, 512, 512, "fp32"), kC, {ok_result(kX, 4e-3)});
    rec(gemm_problem(512, 512, 512, "fp32"), kD, {ok_result(kY, 5e-3)});
  }
  TempDir dir_;
  std::string path_ = dir_.file("lookup.db");
};

TEST_F(LookupTest, ExactHitOnTheSameDevice) {
  Lookup lookup = Lookup::open(path_);
  auto a = lookup.best(gemm_request(gemm_problem(1024, 1024, 1024), "Synthetic GPU A"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->source, LookupSource::exact);
  EXPECT_EQ(a->config, kX);
  EXPECT_EQ(a->config_key, kX.key());
  EXPECT_EQ(a->result.time.median_s, 1e-3);
  EXPECT_EQ(a->result.status, Status::ok);
  EXPECT_EQ(a->provenance.source, "team-a");
  EXPECT_EQ(a->provenance.host, "testhost");
  EXPECT_EQ(a->measured_device, "Synthetic GPU A");
  EXPECT_EQ(a->database, path_);
  // Asked by arch only, the same problem on any device of the arch is exact.
  auto by_arch = lookup.best(gemm_request(gemm_problem(1024, 1024, 1024), "", "sm_90"));
  ASSERT_TRUE(by_arch);
  EXPECT_EQ(by_arch->source, LookupSource::exact);
  EXPECT_EQ(by_arch->config, kX);
}

TEST_F(LookupTest, NearestShapeOfTheSameClassReportsItsDistance) {
  Lookup lookup = Lookup::open(path_);
  auto a = lookup.best(gemm_request(gemm_problem(1000, 1024, 1024), "Synthetic GPU A"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->source, LookupSource::nearest);
  EXPECT_EQ(a->config, kX);
  EXPECT_EQ(a->measured_problem, gemm_problem(1024, 1024, 1024));
  EXPECT_NEAR(a->distance, std::abs(std::log2(1000.0 / 1024.0)), 1e-12);

  auto big = lookup.best(gemm_request(gemm_problem(3000, 4096, 4096), "Synthetic GPU A"));
  ASSERT_TRUE(big);
  EXPECT_EQ(big->source, LookupSource::nearest);
  EXPECT_EQ(big->config, kZ);
  // Without explicit shape keys and class, those stored with the problems are used.
  LookupRequest implicit = gemm_request(gemm_problem(3000, 4096, 4096), "Synthetic GPU A");
  implicit.shape_keys.clear();
  implicit.shape_class.clear();
  // The stored class was given by the caller ("dtype=bf16,layout=nn") and the
  // derived one is the problem minus its shape keys: the same text here.
  auto implicit_answer = lookup.best(implicit);
  ASSERT_TRUE(implicit_answer);
  EXPECT_EQ(implicit_answer->source, LookupSource::nearest);
  EXPECT_EQ(implicit_answer->config, kZ);
}

TEST_F(LookupTest, AnotherDeviceOfTheSameArchThenTheClosestArch) {
  Lookup lookup = Lookup::open(path_);
  // fp16 2048^3 was measured only on GPU B (same arch as A): B's exact answer.
  auto same_arch =
      lookup.best(gemm_request(gemm_problem(2048, 2048, 2048, "fp16"), "Synthetic GPU A"));
  ASSERT_TRUE(same_arch);
  EXPECT_EQ(same_arch->source, LookupSource::exact);
  EXPECT_EQ(same_arch->reach, LookupReach::sibling);
  EXPECT_EQ(same_arch->measured_device, "Synthetic GPU B");
  EXPECT_EQ(same_arch->config, kY);
  // fp32 512^3 was measured on sm_80 and sm_89: sm_89 is closer to sm_90.
  auto closest = lookup.best(gemm_request(gemm_problem(512, 512, 512, "fp32"), "Synthetic GPU A"));
  ASSERT_TRUE(closest);
  EXPECT_EQ(closest->source, LookupSource::arch_fallback);
  EXPECT_EQ(closest->reach, LookupReach::other_arch);
  EXPECT_EQ(closest->measured_arch, "sm_89");
  EXPECT_EQ(closest->config, kY);
}

TEST_F(LookupTest, DefaultWhenNothingFitsAndNoAnswerWithoutOne) {
  Lookup lookup = Lookup::open(path_);
  LookupRequest r = gemm_request(gemm_problem(100, 100, 100, "tf32"), "Synthetic GPU A");
  EXPECT_EQ(lookup.best(r), nullptr);
  r.default_config = tile_config(64, 64, 2);
  auto a = lookup.best(r);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->source, LookupSource::default_config);
  EXPECT_EQ(a->config, tile_config(64, 64, 2));
  EXPECT_EQ(a->result.time.median_s, 0);
  EXPECT_EQ(to_string(a->source), "default");
}

TEST_F(LookupTest, NeverServesAConfigurationThatFailedVerificationOnThatDevice) {
  {
    Store store = Store::open(path_);
    // X computes wrong numbers for 1024^3 on A, and for 1000x1024x1024 on A.
    store.record(gemm_key(gemm_problem(1024, 1024, 1024), kA),
                 std::vector<Result>{failed_result(kX, Status::wrong_result)}, test_provenance("team-b"));
    store.record(gemm_key(gemm_problem(1000, 1024, 1024), kA),
                 std::vector<Result>{failed_result(kX, Status::wrong_result)}, test_provenance("team-b"));
  }
  Lookup lookup = Lookup::open(path_);
  auto exact = lookup.best(gemm_request(gemm_problem(1024, 1024, 1024), "Synthetic GPU A"));
  ASSERT_TRUE(exact);
  EXPECT_EQ(exact->source, LookupSource::exact);
  EXPECT_EQ(exact->config, kY);
  // Nearest would lend X from 4096^3 or 1024^3; X failed on this very problem.
  auto near = lookup.best(gemm_request(gemm_problem(1000, 1024, 1024), "Synthetic GPU A"));
  ASSERT_TRUE(near);
  EXPECT_NE(near->config, kX);
}

TEST_F(LookupTest, RepeatedLookupsShareTheCachedAnswer) {
  Lookup lookup = Lookup::open(path_);
  auto r = gemm_request(gemm_problem(1000, 1024, 1024), "Synthetic GPU A");
  auto first = lookup.best(r);
  auto second = lookup.best(r);
  EXPECT_EQ(first.get(), second.get());
}

TEST_F(LookupTest, ConcurrentLookupsAgreeWithSerialOnes) {
  Lookup lookup = Lookup::open(path_);
  std::vector<LookupRequest> requests;
  for (std::int64_t m : {512, 1000, 1024, 2048, 3000, 4096})
    for (const char* dev : {"Synthetic GPU A", "Synthetic GPU B"})
      requests.push_back(gemm_request(gemm_problem(m, 1024, 1024), dev));
  std::vector<std::string> serial;
  {
    Lookup fresh = Lookup::open(path_);
    for (const auto& r : requests) {
      auto a = fresh.best(r);
      serial.push_back(a ? a->config_key + "|" + std::string(to_string(a->source)) : "none");
    }
  }
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        std::size_t k = (i * 7 + t) % requests.size();
        auto a = lookup.best(requests[k]);
        std::string got = a ? a->config_key + "|" + std::string(to_string(a->source)) : "none";
        if (got != serial[k]) ++mismatches;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(LookupOverlay, UserResultsWinAndTheSystemDatabaseFillsGaps) {
  TempDir dir;
  std::string user = dir.file("user.db"), system = dir.file("system.db");
  Problem p1 = gemm_problem(1024, 1024, 1024), p2 = gemm_problem(4096, 4096, 4096),
          p5 = gemm_problem(8192, 8192, 8192);
  {
    Store s = Store::open(system);
    s.record(gemm_key(p1, kA), std::vector<Result>{ok_result(kZ, 0.5e-3)}, test_provenance("vendor"));
    s.record(gemm_key(p2, kA), std::vector<Result>{ok_result(kZ, 5e-2)}, test_provenance("vendor"));
    s.record(gemm_key(p5, kA), std::vector<Result>{ok_result(kZ, 1e-1), ok_result(kY, 2e-1)},
             test_provenance("vendor"));
  }
  {
    Store u = Store::open(user);
    u.record(gemm_key(p1, kA), std::vector<Result>{ok_result(kX, 1e-3)}, test_provenance("me"));
    // The user's GPU found Z wrong on the 8192^3 problem.
    u.record(gemm_key(p5, kA), std::vector<Result>{failed_result(kZ, Status::wrong_result)},
             test_provenance("me"));
  }
  Lookup lookup = Lookup::open_overlay(user, system);
  auto a1 = lookup.best(gemm_request(p1, "Synthetic GPU A"));
  ASSERT_TRUE(a1);
  EXPECT_EQ(a1->config, kX);  // the user's own measurement wins, though slower
  EXPECT_EQ(a1->database, user);
  auto a2 = lookup.best(gemm_request(p2, "Synthetic GPU A"));
  ASSERT_TRUE(a2);
  EXPECT_EQ(a2->source, LookupSource::exact);  // an exact system answer beats a user nearest one
  EXPECT_EQ(a2->database, system);
  auto a5 = lookup.best(gemm_request(p5, "Synthetic GPU A"));
  ASSERT_TRUE(a5);
  EXPECT_EQ(a5->config, kY);  // Z failed verification in the user's layer
  // A missing user database is simply absent.
  Lookup system_only = Lookup::open_overlay(dir.file("absent.db"), system);
  EXPECT_EQ(system_only.best(gemm_request(p1, "Synthetic GPU A"))->config, kZ);
}

}  // namespace
}  // namespace ktune
