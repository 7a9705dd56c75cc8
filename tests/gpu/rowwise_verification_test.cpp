// GPU verification of reduce / softmax / rmsnorm: seeded samples of each
// space (plus split, register-row and grid-stride configurations) on shapes
// with rows of length 1, odd lengths and lengths that are no multiple of the
// vector width, against the fp64 reference with poisoned outputs.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compile/compiler.hpp"
#include "compile_queue.hpp"
#include "kernels_templated/family.hpp"
#include "kernels_templated/harness.hpp"
#include "kernels_templated/rowwise/gpu/cubin_runner.hpp"
#include "kernels_templated/rowwise/gpu/rowwise_harness.hpp"
#include "kernels_templated/rowwise/launch_plan.hpp"
#include "kernels_templated/rowwise/rowwise_family.hpp"
#include "space/space.hpp"

using namespace ktune;

namespace {

bool have_gpu(std::string& why) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    why = std::string("no usable GPU: ") + cudaGetErrorString(e);
    return false;
  }
  if (n == 0) {
    why = "no CUDA device";
    return false;
  }
  return true;
}

struct Case {
  const char* family;
  std::string problem;
};

std::vector<Case> cases() {
  std::vector<Case> all;
  const std::vector<std::string> row_shapes = {
      "rows=1,cols=1,dtype=fp32",      "rows=7,cols=1,dtype=bf16",
      "rows=3,cols=17,dtype=fp16",     "rows=100,cols=1000,dtype=bf16",
      "rows=33,cols=4099,dtype=fp32",  "rows=512,cols=4096,dtype=bf16",
      "rows=4,cols=262144,dtype=fp16", "rows=2,cols=131074,dtype=fp32",
      "rows=3000,cols=96,dtype=fp16",  "rows=2,cols=1048576,dtype=bf16"};
  for (const std::string& s : row_shapes) {
    all.push_back({"softmax", s});
    all.push_back({"rmsnorm", s});
    all.push_back({"reduce", s + ",op=sum"});
    all.push_back({"reduce", s + ",op=max"});
  }
  for (const char* s : {"rows=1,cols=1,dtype=fp32", "rows=1000,cols=33,dtype=fp16",
                        "rows=4097,cols=1024,dtype=bf16", "rows=65536,cols=64,dtype=fp32",
                        "rows=3,cols=5000,dtype=bf16"}) {
    all.push_back({"reduce", std::string(s) + ",op=sum,axis=rows"});
    all.push_back({"reduce", std::string(s) + ",op=max,axis=rows"});
  }
  return all;
}

// The default, a seeded sample, and the first sampled configuration with
// each feature the sample may have missed.
std::vector<Config> configs_for(const Space& s, const Config& def) {
  std::vector<Config> out = {def};
  for (const Config& c : s.sample(5, 1129)) out.push_back(c);
  const std::vector<std::function<bool(const Config&)>> features = {
      [](const Config& c) { return c.integer("split") > 1; },
      [](const Config& c) { return c.text_or("row_cache", "") == "registers"; },
      [](const Config& c) { return c.text_or("grid", "") == "stride"; },
      [](const Config& c) {
        return c.text_or("reduction", "") == "smem" && c.integer_or("threads_per_row", 0) > 32;
      },
      [](const Config& c) { return c.integer("vec") > 1 && c.integer("split") > 1; },
      [](const Config& c) { return c.integer_or("cluster", 1) > 1; },
      [](const Config& c) { return c.integer_or("cluster", 1) == 8; },
      [](const Config& c) { return c.integer_or("cluster", 1) == 16; },
      [](const Config& c) { return c.text_or("row_cache", "") == "smem"; },
      [](const Config& c) {
        return c.text_or("row_cache", "") == "smem" && c.integer_or("rows_per_block", 1) > 1;
      },
      [](const Config& c) {
        return c.text_or("row_cache", "") == "smem" && c.integer_or("cluster", 1) > 1;
      },
      [](const Config& c) {
        return c.text_or("row_cache", "") == "smem" && c.integer("split") > 1;
      },
      [](const Config& c) {
        return c.text_or("row_cache", "") == "none" && c.integer_or("cluster", 1) > 1;
      },
      [](const Config& c) {
        return c.integer_or("cluster", 1) > 1 && c.text_or("grid", "") == "stride";
      },
      [](const Config& c) {
        return c.text_or("row_cache", "") == "smem" && c.text_or("grid", "") == "stride";
      },
      [](const Config& c) { return c.text_or("grid", "") == "persistent"; },
      [](const Config& c) {
        return c.text_or("row_cache", "") == "smem" && c.text_or("grid", "") == "persistent";
      },
      [](const Config& c) {
        return c.integer_or("cluster", 1) > 1 && c.text_or("grid", "") == "persistent";
      },
      [](const Config& c) { return c.text_or("cache", "") == "nc_l2_256b"; },
      [](const Config& c) { return c.integer_or("unroll", 1) == 8; },
  };
  const std::vector<Config> pool = s.sample(400, 2026);
  for (const auto& has : features)
    for (const Config& c : pool)
      if (has(c)) {
        out.push_back(c);
        break;
      }
  return out;
}

/// What verify_all saw: the configurations verified, and the non-portable
/// clusters the device could not schedule.
struct Tally {
  std::vector<Config> verified;
  int unlaunchable = 0;
};

/// Compiles `configs` of (family, p), runs each twice on re-poisoned outputs
/// (a second run catches state left over from the first: stale partials,
/// unwritten elements) and verifies it against the fp64 reference. A
/// non-portable cluster (more than 8 blocks) that the device cannot schedule
/// is a failed candidate for the tuner, not a wrong kernel: counted, not failed.
void verify_all(const Compiler& compiler, const char* family, const Problem& p,
                const std::vector<Config>& configs, std::uint64_t seed, cudaStream_t stream,
                Tally& tally) {
  const KernelFamily& f = find_family(family);
  std::vector<KernelSource> sources;
  for (const Config& cfg : configs) sources.push_back(f.source(p, cfg));
  const std::vector<CompileOutput> outs = compiler.compile_all(sources);
  auto harness = make_harness(family);
  harness->prepare(p, seed);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    SCOPED_TRACE(std::string(family) + " " + p.key() + " | " + configs[i].key());
    ASSERT_TRUE(outs[i].ok) << outs[i].log;
    std::vector<std::string> lowered;
    for (const auto& k : outs[i].kernels) lowered.push_back(k.lowered_name);
    rowwise::LoadedCubin cubin(outs[i].cubin, lowered);
    ASSERT_TRUE(cubin.ok()) << cubin.error();
    bool launched = true;
    for (int run = 0; run < 2 && launched; ++run) {
      rowwise::RunCheck r = rowwise::run_and_verify(*harness, configs[i], cubin.kernels(), stream);
      if (r.launch != cudaSuccess && configs[i].integer_or("cluster", 1) > 8 &&
          (r.launch == cudaErrorInvalidClusterSize || r.launch == cudaErrorLaunchOutOfResources)) {
        std::printf("note: not launchable here (%s): %s\n", cudaGetErrorString(r.launch),
                    configs[i].key().c_str());
        cudaGetLastError();
        ++tally.unlaunchable;
        launched = false;
        break;
      }
      ASSERT_EQ(r.launch, cudaSuccess) << cudaGetErrorString(r.launch);
      EXPECT_TRUE(r.verification.passed) << r.verification.detail;
      // The next launch (timed runs are not re-zeroed) must find the counters at zero.
      EXPECT_EQ(static_cast<rowwise::RowwiseHarness&>(*harness).nonzero_counters(stream), 0);
    }
    if (launched) tally.verified.push_back(configs[i]);
  }
  std::printf("rowwise verify %s %s: %zu configs run\n", family, p.key().c_str(), configs.size());
  std::fflush(stdout);
}

/// What every test here starts from: skipped without a GPU, else a stream
/// (destroyed after the test, also when an assertion ends it early).
class RowwiseGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!have_gpu(why)) GTEST_SKIP() << why;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  }
  void TearDown() override {
    if (stream) cudaStreamDestroy(stream);
  }

  /// NVRTC for `arch`, through the on-disk cache (a carried, precompiled one on the lent GPU).
  static Compiler compiler_for(const char* arch) { return gpu_test_compiler(arch); }
  /// The H200 description with this GPU's SM count in `d` (call through
  /// ASSERT_NO_FATAL_FAILURE: the query asserts).
  static void describe_this_gpu(DeviceSpec& d) {
    d = *find_builtin_device("h200");
    ASSERT_EQ(cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  }

  cudaStream_t stream = nullptr;
};

}  // namespace

TEST_F(RowwiseGpu, SampledConfigurationsMatchTheFp64Reference) {
  const Compiler compiler = compiler_for("sm_90");
  DeviceSpec d;
  ASSERT_NO_FATAL_FAILURE(describe_this_gpu(d));

  Tally tally;
  std::uint64_t seed = 42;
  for (const Case& c : cases()) {
    const KernelFamily& f = find_family(c.family);
    const Problem p = parse_problem(f, c.problem);
    const Space s = f.space(p, d);
    verify_all(compiler, c.family, p, configs_for(s, f.default_config(p, d)), seed++, stream,
               tally);
  }
  const int checked = static_cast<int>(tally.verified.size()), unlaunchable = tally.unlaunchable;
  int shared_rows = 0, clusters = 0;
  for (const Config& cfg : tally.verified) {
    if (cfg.text_or("row_cache", "") == "smem") ++shared_rows;
    if (cfg.integer_or("cluster", 1) > 1) ++clusters;
  }
  std::printf(
      "verified %d configurations over %zu problems (%d with rows in shared memory, %d clusters; "
      "%d non-portable clusters not launchable)\n",
      checked, cases().size(), shared_rows, clusters, unlaunchable);
  EXPECT_GT(shared_rows, 0);
  EXPECT_GT(clusters, 0);
}

// Grid-stride loops over rows held in shared memory (grid=persistent: on the
// grid the device holds at once, loading the next segment while writing the
// current one); the sampled shapes above are mostly covered by one
// iteration, so these take several (more rows than the planned grid holds),
// with odd lengths and a cluster among them. rmsnorm blocks of one segment
// also run with their weights copied into shared memory (weights=smem), on
// those grids and on one row per block (grid=rows).
TEST_F(RowwiseGpu, PersistentSharedMemoryRowsAcrossIterations) {
  const Compiler compiler = compiler_for("sm_90");
  DeviceSpec d;
  ASSERT_NO_FATAL_FAILURE(describe_this_gpu(d));
  struct Persistent {
    const char* problem;
    const char* knobs;
  };
  const std::vector<Persistent> cases = {
      {"rows=20000,cols=1000,dtype=bf16",
       "threads_per_row=32,rows_per_block=1,vec=8,cluster=1,reduction=shuffle"},
      {"rows=12001,cols=1002,dtype=fp16",
       "threads_per_row=64,rows_per_block=2,vec=2,cluster=1,reduction=smem"},
      {"rows=1000,cols=2048,dtype=fp32",
       "threads_per_row=1024,rows_per_block=1,vec=1,cluster=2,reduction=shuffle"},
  };
  struct Run {
    const char* family;
    const char* grid;
    Persistent shape;
    bool hold_weights;
  };
  std::vector<Run> runs;
  for (const char* family : {"softmax", "rmsnorm"})
    for (const char* grid : {"stride", "persistent"})
      for (const Persistent& pc : cases) runs.push_back({family, grid, pc, false});
  // rmsnorm's weights in shared memory: blocks of one row group (rows_per_block=1).
  for (const char* grid : {"rows", "stride", "persistent"})
    for (const Persistent& pc : cases)
      if (std::string(pc.knobs).find("rows_per_block=1") != std::string::npos)
        runs.push_back({"rmsnorm", grid, pc, true});
  int checked = 0, held_weights = 0;
  for (const Run& run : runs) {
    const KernelFamily& f = find_family(run.family);
    const Problem p = parse_problem(f, run.shape.problem);
    Config c = f.default_config(p, d);
    for (const auto& [key, value] : ValueMap::parse(run.shape.knobs)) c.set(key, value);
    c.set("grid", std::string(run.grid));
    c.set("row_cache", std::string("smem"));
    c.set("split", std::int64_t{1});
    c.set("unroll", std::int64_t{1});
    if (run.hold_weights) c.set("weights", std::string("smem"));
    SCOPED_TRACE(std::string(run.family) + " " + p.key() + " | " + c.key());
    ASSERT_TRUE(f.space(p, d).is_valid(c));
    auto harness = make_harness(run.family);
    harness->prepare(p, 99);
    // More segments than a looping grid takes at once: the loop iterates.
    const long long segments = p.integer("rows") * c.integer("cluster");
    const rowwise::LaunchPlan plan = rowwise::plan_launch(
        static_cast<const rowwise::RowwiseFamily&>(f).spec(), p, c, rowwise::plan_device(d));
    if (std::string(run.grid) != "rows") {
      ASSERT_LT(plan.kernels[0].grid_x * 2, segments / c.integer("rows_per_block"));
    }
    const CompileOutput out = compiler.compile(f.source(p, c));
    ASSERT_TRUE(out.ok) << out.log;
    std::vector<std::string> lowered;
    for (const auto& k : out.kernels) lowered.push_back(k.lowered_name);
    rowwise::LoadedCubin cubin(out.cubin, lowered);
    ASSERT_TRUE(cubin.ok()) << cubin.error();
    for (int repeat = 0; repeat < 2; ++repeat) {
      rowwise::RunCheck r = rowwise::run_and_verify(*harness, c, cubin.kernels(), stream);
      ASSERT_EQ(r.launch, cudaSuccess) << cudaGetErrorString(r.launch);
      EXPECT_TRUE(r.verification.passed) << r.verification.detail;
    }
    ++checked;
    if (run.hold_weights) ++held_weights;
  }
  std::printf(
      "verified %d shared-memory row configurations (%d with rmsnorm weights in shared memory)\n",
      checked, held_weights);
  EXPECT_EQ(held_weights, 6);  // two one-row shapes on three grids
}

// Long rows held whole on chip across a cluster (the family's on-chip seeds:
// clusters of 2..16 blocks, each holding its segment in shared memory, grid
// rows or persistent): softmax 1 MiB bf16 rows (clusters of 8 and 16; more
// rows than a persistent grid holds, so its loop refills across rows) and
// rmsnorm 256 KiB bf16 rows, one of odd length (4-byte accesses, a shorter
// last segment).
TEST_F(RowwiseGpu, LongRowsHeldOnChipAcrossClusters) {
  const Compiler compiler = compiler_for("sm_90a");
  DeviceSpec d;
  ASSERT_NO_FATAL_FAILURE(describe_this_gpu(d));
  const std::vector<Case> problems = {{"softmax", "rows=40,cols=524288,dtype=bf16"},
                                      {"rmsnorm", "rows=150,cols=131072,dtype=bf16"},
                                      {"rmsnorm", "rows=37,cols=131070,dtype=bf16"}};
  Tally tally;
  std::uint64_t seed = 8;
  for (const Case& c : problems) {
    const auto& f = static_cast<const rowwise::RowwiseFamily&>(find_family(c.family));
    const Problem p = parse_problem(f, c.problem);
    const std::vector<Config> configs = f.on_chip_row_configs(p, d);
    ASSERT_FALSE(configs.empty()) << c.family << " " << c.problem;
    verify_all(compiler, c.family, p, configs, seed++, stream, tally);
  }
  const int checked = static_cast<int>(tally.verified.size()), unlaunchable = tally.unlaunchable;
  int big_clusters = 0, linked = 0;
  for (const Config& cfg : tally.verified) {
    if (cfg.integer("cluster") >= 8) ++big_clusters;
    if (cfg.text_or("split_combine", "second_kernel") == "in_kernel") ++linked;
  }
  std::printf(
      "verified %d on-chip configurations on long rows (%d with clusters of 8 or 16, %d split rows "
      "combined in the kernel; %d non-portable clusters not launchable)\n",
      checked, big_clusters, linked, unlaunchable);
  EXPECT_GT(big_clusters, 0);
  EXPECT_GT(linked, 0);
}

TEST_F(RowwiseGpu, VerificationCatchesUnwrittenAndWrongOutputs) {
  const KernelFamily& f = find_family("softmax");
  const Problem p = parse_problem(f, "rows=9,cols=1000,dtype=bf16");
  auto harness = make_harness("softmax");
  harness->prepare(p, 7);
  // Nothing launched: every output still holds the poison.
  harness->poison_outputs(stream);
  Verification v = harness->verify(Config{}, stream);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.unwritten, 9 * 1000);

  // A right kernel on the wrong problem's data: a reduce sum launched where
  // its harness expects a max must fail on values, not on poison.
  const KernelFamily& r = find_family("reduce");
  const Problem sum = parse_problem(r, "rows=64,cols=512,dtype=fp32,op=sum");
  const Problem max = parse_problem(r, "rows=64,cols=512,dtype=fp32,op=max");
  DeviceSpec d = *find_builtin_device("h200");
  const Config cfg = r.default_config(sum, d);
  CompileOutput out = compiler_for("sm_90").compile(r.source(sum, cfg));
  ASSERT_TRUE(out.ok) << out.log;
  std::vector<std::string> lowered;
  for (const auto& k : out.kernels) lowered.push_back(k.lowered_name);
  rowwise::LoadedCubin cubin(out.cubin, lowered);
  ASSERT_TRUE(cubin.ok()) << cubin.error();
  auto max_harness = make_harness("reduce");
  max_harness->prepare(max, 11);
  rowwise::RunCheck check = rowwise::run_and_verify(*max_harness, cfg, cubin.kernels(), stream);
  ASSERT_EQ(check.launch, cudaSuccess);
  EXPECT_FALSE(check.verification.passed) << check.verification.detail;
  EXPECT_EQ(check.verification.unwritten, 0);
}

// One wrong row of a 32768-row bf16 reduction (about 0.55% of the output's L2
// norm, inside the old whole-output bound of 1e-2) fails the element check;
// the default configurations of every family pass their edge inputs.
TEST_F(RowwiseGpu, OneWrongRowFailsAndDefaultsPassEdgeInputs) {
  const DeviceSpec d = *find_builtin_device("h200");
  const Compiler compiler = compiler_for("sm_90");
  auto load = [&](const KernelFamily& f, const Problem& p, const Config& c) {
    const CompileOutput out = compiler.compile(f.source(p, c));
    EXPECT_TRUE(out.ok) << out.log;
    std::vector<std::string> lowered;
    for (const auto& k : out.kernels) lowered.push_back(k.lowered_name);
    return std::make_unique<rowwise::LoadedCubin>(out.cubin, lowered);
  };
  const KernelFamily& r = find_family("reduce");
  const Problem p = parse_problem(r, "rows=32768,cols=1024,dtype=bf16,op=sum");
  const Config cfg = r.default_config(p, d);
  auto cubin = load(r, p, cfg);
  ASSERT_TRUE(cubin->ok()) << cubin->error();
  auto harness = make_harness("reduce");
  harness->prepare(p, 5);
  ASSERT_EQ(harness->input_sets(), 2);
  rowwise::RunCheck good = rowwise::run_and_verify(*harness, cfg, cubin->kernels(), stream);
  ASSERT_EQ(good.launch, cudaSuccess);
  ASSERT_TRUE(good.verification.passed) << good.verification.detail;
  // run_and_verify ends on the edge inputs' output and selects the random set
  // again: launch once more so that the output matches the set verify() reads.
  ASSERT_EQ(harness->launch(cfg, cubin->kernels(), stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  ASSERT_TRUE(harness->verify(cfg, stream).passed);
  // Row 20000's result replaced by row 20001's.
  auto [y, bytes] = harness->output_region();
  ASSERT_EQ(bytes, 32768u * 2);
  auto* out = static_cast<unsigned char*>(const_cast<void*>(y));
  ASSERT_EQ(cudaMemcpy(out + 20000 * 2, out + 20001 * 2, 2, cudaMemcpyDeviceToDevice), cudaSuccess);
  const Verification v = harness->verify(cfg, stream);
  EXPECT_FALSE(v.passed);
  EXPECT_LT(v.rel_l2_error, 1e-2);
  EXPECT_EQ(v.stats.off, 1);
  EXPECT_EQ(v.stats.first_bad, 20000);

  for (const Case& c : {Case{"softmax", "rows=600,cols=4097,dtype=fp16"},
                        Case{"rmsnorm", "rows=600,cols=4097,dtype=fp16"},
                        Case{"reduce", "rows=600,cols=4097,dtype=bf16,op=max"},
                        Case{"reduce", "rows=4097,cols=600,dtype=fp16,op=sum,axis=rows"}}) {
    SCOPED_TRACE(std::string(c.family) + " " + c.problem);
    const KernelFamily& f = find_family(c.family);
    const Problem q = parse_problem(f, c.problem);
    const Config dc = f.default_config(q, d);
    auto k = load(f, q, dc);
    ASSERT_TRUE(k->ok()) << k->error();
    auto h = make_harness(c.family);
    h->prepare(q, 6);
    const rowwise::RunCheck check = rowwise::run_and_verify(*h, dc, k->kernels(), stream);
    ASSERT_EQ(check.launch, cudaSuccess);
    EXPECT_TRUE(check.verification.passed)
        << "input set " << check.input_set << ": " << check.verification.detail;
  }
}
