// Tests of the recorded-space readers (Kernel Tuner cache, T4, ktune), the
// writer's round trip, the space rebuilt from recorded values, and the
// ReplayOracle. All fixtures in tests/data/recorded are SYNTHETIC.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "search/recorded_space.hpp"
#include "ktune_test_paths.hpp"

namespace ktune {
namespace {

const std::filesystem::path kData = std::filesystem::path(KTUNE_TEST_DATA_DIR) / "recorded";

Config cfg(std::int64_t bx, std::int64_t tile, std::int64_t shmem) {
  return Config{{"block_size_x", bx}, {"tile", tile}, {"use_shmem", shmem}};
}

TEST(KernelTunerCache, ReadsStatusesTimesAndMetadata) {
  const RecordedSpace rs = read_recorded_space(kData / "kernel_tuner_cache_synthetic.json");
  EXPECT_EQ(rs.format, RecordingFormat::kernel_tuner_cache);
  EXPECT_EQ(rs.family, "synthetic_kernel");
  EXPECT_EQ(rs.device_name, "Synthetic GPU");
  EXPECT_EQ(rs.problem.integer("size0"), 4096);
  EXPECT_EQ(rs.problem.integer("size1"), 2048);
  EXPECT_EQ(rs.results.size(), 10u);
  EXPECT_TRUE(rs.restricted_to_recorded);

  const Result* r = rs.find(cfg(32, 1, 0));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->status, Status::ok);
  EXPECT_DOUBLE_EQ(r->time.median_s, 3.0e-3);  // ms -> s, the file's "time"
  EXPECT_DOUBLE_EQ(r->time.min_s, 2.9e-3);
  EXPECT_EQ(r->time.repetitions, 3);
  EXPECT_DOUBLE_EQ(r->tflops, 0.1);
  EXPECT_EQ(rs.find(cfg(32, 2, 0))->status, Status::compile_error);
  EXPECT_EQ(rs.find(cfg(64, 1, 1))->status, Status::launch_error);
  EXPECT_EQ(rs.find(cfg(128, 2, 1))->status, Status::invalid_config);
  // An entry without parameter values is read from its key "128,1,0".
  ASSERT_NE(rs.find(cfg(128, 1, 0)), nullptr);
  EXPECT_DOUBLE_EQ(rs.find(cfg(128, 1, 0))->time.median_s, 4.0e-3);

  const auto best = rs.optimum();
  ASSERT_TRUE(best);
  EXPECT_EQ(best->config, cfg(64, 2, 1));
}

TEST(KernelTunerCache, SpaceIsExactlyTheRecordedConfigurations) {
  const RecordedSpace rs = read_recorded_space(kData / "kernel_tuner_cache_synthetic.json");
  std::set<std::string> enumerated;
  for (const auto& c : rs.space.enumerate()) enumerated.insert(c.key());
  std::set<std::string> proposable;
  for (const auto& c : rs.proposable()) proposable.insert(c.key());
  EXPECT_EQ(enumerated, proposable);
  EXPECT_EQ(enumerated.size(), 9u);  // 10 entries minus the InvalidConfig one
  EXPECT_FALSE(rs.space.is_valid(cfg(128, 2, 1)));
  EXPECT_FALSE(rs.space.is_valid(cfg(128, 2, 0)));  // never recorded
  EXPECT_TRUE(rs.space.is_valid(cfg(32, 2, 0)));    // recorded as a compile failure: still proposable
}

TEST(RecordedSpaceRebuilt, AConfigurationIsValidOnlyWhenRecordedThoughEveryShorterPrefixWas) {
  // Three knobs (integer, real, text); (1, 0.5, "b") has the recorded
  // prefixes (1) and (1, 0.5) but was never recorded itself.
  auto result = [](std::int64_t a, double b, const char* c, Status status) {
    Result r;
    r.config = Config{{"a", a}, {"b", b}, {"c", std::string(c)}};
    r.status = status;
    r.time.median_s = 1e-3;
    return r;
  };
  std::vector<Result> results = {result(1, 0.5, "a", Status::ok), result(1, 0.25, "b", Status::ok),
                                 result(2, 0.5, "b", Status::launch_error),
                                 result(2, 0.25, "a", Status::invalid_config)};
  const Space space = space_from_recorded(results, {"a", "b", "c"});
  auto cfg3 = [](std::int64_t a, double b, const char* c) {
    return Config{{"a", a}, {"b", b}, {"c", std::string(c)}};
  };
  EXPECT_TRUE(space.is_valid(cfg3(1, 0.5, "a")));
  EXPECT_TRUE(space.is_valid(cfg3(1, 0.25, "b")));
  EXPECT_TRUE(space.is_valid(cfg3(2, 0.5, "b")));    // a recorded failure is proposable
  EXPECT_FALSE(space.is_valid(cfg3(1, 0.5, "b")));   // every shorter prefix recorded, not this
  EXPECT_FALSE(space.is_valid(cfg3(2, 0.25, "a")));  // recorded as outside the space
  EXPECT_FALSE(space.is_valid(cfg3(2, 0.25, "b")));
  std::set<std::string> listed;
  for (const auto& c : space.enumerate()) listed.insert(c.key());
  EXPECT_EQ(listed, (std::set<std::string>{cfg3(1, 0.5, "a").key(), cfg3(1, 0.25, "b").key(),
                                           cfg3(2, 0.5, "b").key()}));
}

TEST(RecordedSpaceRebuilt, MembershipMatchesTheRecordingOnEveryPrefix) {
  // Random recordings over four knobs (repeats included): every point of the
  // Cartesian product is valid exactly when recorded, and the constraint of
  // each prefix length holds exactly for recorded prefixes, whether it reads
  // positions (enumeration, is_valid) or values by name.
  std::mt19937_64 rng(20261206);
  const std::vector<std::string> names = {"w", "x", "y", "z"};
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Result> results;
    std::set<std::vector<std::int64_t>> recorded;
    const std::size_t count = 1 + rng() % 40;
    for (std::size_t i = 0; i < count; ++i) {
      std::vector<std::int64_t> v;
      for (std::size_t k = 0; k < names.size(); ++k)
        v.push_back(static_cast<std::int64_t>(rng() % 3));
      Result r;
      for (std::size_t k = 0; k < names.size(); ++k) r.config.set(names[k], v[k]);
      r.status = Status::ok;
      r.time.median_s = 1e-3;
      results.push_back(r);
      recorded.insert(v);
    }
    const Space space = space_from_recorded(results, names);
    std::size_t listed = 0;
    for (const auto& c : space.enumerate()) {
      std::vector<std::int64_t> v;
      for (const auto& name : names) v.push_back(c.integer(name));
      EXPECT_TRUE(recorded.count(v)) << c.key();
      ++listed;
    }
    EXPECT_EQ(listed, recorded.size()) << "trial " << trial;
    struct ByName final : Assignment {
      const Value& get(std::string_view name) const override { return values.at(name); }
      Config values;
    } by_name;
    for (std::int64_t p = 0; p < 81; ++p) {
      const std::vector<std::int64_t> v = {p / 27, p / 9 % 3, p / 3 % 3, p % 3};
      Config c;
      for (std::size_t k = 0; k < names.size(); ++k) c.set(names[k], v[k]);
      // A knob never recorded at some value has no such value in the space.
      bool listed_values = true;
      for (std::size_t k = 0; k < names.size(); ++k)
        listed_values &= space.parameter(names[k]).index_of(v[k]).has_value();
      if (!listed_values) continue;
      EXPECT_EQ(space.is_valid(c), recorded.count(v) > 0) << c.key();
      by_name.values = c;
      for (std::size_t level = 0; level < names.size(); ++level) {
        const auto in = std::find_if(recorded.begin(), recorded.end(), [&](const auto& r) {
          return std::equal(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(level) + 1,
                            r.begin());
        });
        EXPECT_EQ(space.constraints()[level].test(by_name), in != recorded.end())
            << c.key() << " level " << level;
      }
    }
  }
}

TEST(T4Results, ReadsEveryInvalidity) {
  const RecordedSpace rs = read_recorded_space(kData / "t4_results_synthetic.json");
  EXPECT_EQ(rs.format, RecordingFormat::t4);
  EXPECT_EQ(rs.family, "t4_results_synthetic");
  auto at = [&](std::int64_t bx, std::int64_t by, const char* layout) {
    const Result* r = rs.find(Config{{"bx", bx}, {"by", by}, {"layout", std::string(layout)}});
    EXPECT_NE(r, nullptr);
    return r ? *r : Result{};
  };
  EXPECT_EQ(at(16, 1, "row").status, Status::ok);
  EXPECT_DOUBLE_EQ(at(16, 1, "row").time.median_s, 2.1e-3);
  EXPECT_EQ(at(16, 1, "row").time.repetitions, 3);
  EXPECT_DOUBLE_EQ(at(32, 1, "row").time.median_s, 1.5e-3);  // given in seconds
  EXPECT_EQ(at(32, 2, "col").status, Status::compile_error);
  EXPECT_EQ(at(16, 2, "col").status, Status::launch_error);
  EXPECT_EQ(at(64, 2, "col").status, Status::wrong_result);
  EXPECT_EQ(at(64, 1, "row").status, Status::timeout);
  EXPECT_EQ(at(128, 1, "row").status, Status::invalid_config);
  EXPECT_EQ(rs.space.enumerate().size(), 6u);
}

TEST(KtuneRecording, ReadsTheSyntheticFixture) {
  const RecordedSpace rs = read_recorded_space(kData / "synthetic_gemm_like.json");
  EXPECT_EQ(rs.format, RecordingFormat::ktune);
  EXPECT_EQ(rs.family, "synthetic_gemm_like");
  EXPECT_TRUE(rs.provenance.value("synthetic", false));
  EXPECT_EQ(rs.results.size(), 956u);
  EXPECT_FALSE(rs.restricted_to_recorded);
  // The space is the family's own (constraint from its expression).
  EXPECT_EQ(rs.space.count_valid(), 956u);
  for (const auto& c : rs.proposable()) EXPECT_TRUE(rs.space.is_valid(c)) << c.key();
}

// A time recorded as its median alone (synthetic_energy.json) is its own min
// and max: a replay stores ordered times, which the database's import accepts.
TEST(KtuneRecording, AMedianWithoutMinAndMaxIsItsOwnRange) {
  const RecordedSpace rs = read_recorded_space(kData / "synthetic_energy.json");
  ASSERT_FALSE(rs.results.empty());
  for (const auto& [key, r] : rs.results) {
    if (!r.ok()) continue;
    EXPECT_EQ(r.time.min_s, r.time.median_s) << key;
    EXPECT_EQ(r.time.max_s, r.time.median_s) << key;
    EXPECT_EQ(r.time.repetitions, 10) << key;  // as recorded
  }
}

TEST(KtuneRecording, WriterRoundTripsAForeignSpace) {
  const RecordedSpace original = read_recorded_space(kData / "kernel_tuner_cache_synthetic.json");
  const auto path = std::filesystem::temp_directory_path() / "ktune_search_roundtrip_test.json";
  write_recorded_space(original, path);
  const RecordedSpace back = read_recorded_space(path);
  std::filesystem::remove(path);
  EXPECT_EQ(back.format, RecordingFormat::ktune);
  EXPECT_EQ(back.family, original.family);
  EXPECT_EQ(back.device_name, original.device_name);
  EXPECT_EQ(back.problem, original.problem);
  EXPECT_TRUE(back.restricted_to_recorded);
  ASSERT_EQ(back.results.size(), original.results.size());
  for (const auto& [key, r] : original.results) {
    const Result* b = back.find(r.config);
    ASSERT_NE(b, nullptr) << key;
    EXPECT_EQ(b->status, r.status);
    EXPECT_DOUBLE_EQ(b->time.median_s, r.time.median_s);
  }
  EXPECT_EQ(back.space.enumerate().size(), original.space.enumerate().size());
}

TEST(RecordedSpaceReaders, RejectBadInputWithTheFileName) {
  const auto path = std::filesystem::temp_directory_path() / "ktune_search_bad_recording.json";
  {
    std::ofstream(path) << R"({"format": "ktune-recorded-space", "version": 7})";
  }
  try {
    read_recorded_space(path);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("version 7"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  {
    std::ofstream(path) << R"({"something": 1})";
  }
  EXPECT_THROW(read_recorded_space(path), std::invalid_argument);
  std::filesystem::remove(path);
  EXPECT_THROW(read_recorded_space(kData / "does_not_exist.json"), std::invalid_argument);
}

TEST(ReplayOracle, AnswersRecordedAndRefusesUnrecorded) {
  auto rs = std::make_shared<const RecordedSpace>(read_recorded_space(kData / "kernel_tuner_cache_synthetic.json"));
  ReplayOracle oracle(rs);
  const Result hit = oracle.evaluate(cfg(64, 2, 1));
  EXPECT_EQ(hit.status, Status::ok);
  EXPECT_DOUBLE_EQ(hit.time.median_s, 1.0e-3);
  const Result miss = oracle.evaluate(cfg(128, 2, 0));
  EXPECT_EQ(miss.status, Status::invalid_config);
  EXPECT_EQ(miss.message, ReplayOracle::kNotRecorded);
  EXPECT_FALSE(oracle.recorded(cfg(128, 2, 0)));
  const std::vector<Config> both{cfg(64, 2, 1), cfg(32, 2, 0)};
  const auto results = oracle.evaluate(both);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[1].status, Status::compile_error);
}

}  // namespace
}  // namespace ktune
