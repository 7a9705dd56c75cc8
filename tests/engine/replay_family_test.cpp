// Tests of a replayed recording of a known family (gemm): the job resolves
// the family, fills throughput from its FLOP count, computes roofline
// fractions, and stores under the recorded device. Times are SYNTHETIC.
#include <gtest/gtest.h>

#include <filesystem>

#include "compile/compiler.hpp"
#include "engine/tune_job.hpp"
#include "tests/support/recording.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

class ReplayFamily : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / "ktune_replay_family_test";
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

TEST_F(ReplayFamily, AKnownFamilyGetsThroughputAndRooflineFractions) {
  const KernelFamily& gemm = find_family("gemm");
  std::optional<DeviceSpec> h200 = find_builtin_device("h200");
  ASSERT_TRUE(h200);
  Problem problem = parse_problem(gemm, "m=4096,n=4096,k=4096,dtype=bf16,layout=nt");
  Space space = gemm.space(problem, *h200);

  RecordedSpace rec;
  rec.family = "gemm";
  rec.problem = problem;
  rec.device = *h200;
  rec.device_name = h200->name;
  rec.provenance = {{"synthetic", true}, {"note", "SYNTHETIC test fixture, not measured"}};
  std::vector<Result> results;
  std::vector<Config> sample = space.sample(12, /*seed=*/5);
  ASSERT_GE(sample.size(), 4u);
  for (std::size_t i = 0; i < sample.size(); ++i) {
    Result r;
    r.config = sample[i];
    r.status = Status::ok;
    r.time.median_s = 1e-3 * (1.0 + 0.25 * static_cast<double>(i));  // synthetic
    r.time.repetitions = 1;
    results.push_back(r);
  }
  testing::write_recording(rec, std::move(results), dir_ / "gemm_synthetic.json");

  TuneSpec spec;
  spec.replay = (dir_ / "gemm_synthetic.json").string();
  spec.strategy = "random";
  spec.options.budget = 100;
  std::unique_ptr<PreparedTune> job = prepare_tune(spec);
  ASSERT_NE(job->family, nullptr);
  EXPECT_EQ(job->family->name(), "gemm");
  EXPECT_EQ(job->key.device.name, h200->name);
  EXPECT_EQ(job->key.shape_keys, gemm.shape_keys());
  EXPECT_EQ(job->provenance.source, "replay:gemm_synthetic.json");
  EXPECT_NE(job->key.family_hash, family_source_hash(gemm)) << "a replay never poses as the current templates";
  EXPECT_NE(job->key.family_hash, family_source_hash(gemm, problem, *h200)) << "nor as its kernel path's";

  Store store = Store::open(":memory:");
  TuneReport report = run_prepared_tune(*job, store, nullptr);
  EXPECT_EQ(report.measured.size(), sample.size());
  EXPECT_EQ(report.stop, StopReason::exhausted);
  ASSERT_TRUE(report.best);
  EXPECT_DOUBLE_EQ(report.best->time.median_s, 1e-3);
  // 2 * 4096^3 FLOP in 1 ms.
  EXPECT_NEAR(report.best->tflops, 2.0 * 4096.0 * 4096.0 * 4096.0 / 1e-3 / 1e12, 1e-6);

  EXPECT_EQ(throughput_for(*job, report), Throughput::tflops);
  std::vector<ResultRow> rows = top_results(*job, report, 5);
  ASSERT_EQ(rows.size(), 5u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ASSERT_TRUE(rows[i].roofline_fraction) << i;
    EXPECT_GT(*rows[i].roofline_fraction, 0.0);
    if (i > 0) {
      EXPECT_LE(rows[i - 1].result.time.median_s, rows[i].result.time.median_s);
    }
  }
  EXPECT_EQ(store.results(job->key).size(), sample.size());
}

}  // namespace
}  // namespace ktune
