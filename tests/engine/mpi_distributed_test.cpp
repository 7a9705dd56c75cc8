// Tests of the distributed sweep's coordinator (DistributedEvaluator) over
// local workers: the same stored results as a single-process sweep on the
// synthetic replay fixture, a failing worker's configuration re-queued, a
// killed worker process losing nothing, and the --gpus list parser. The MPI
// transport is tested end to end in tests/cli/mpi_sweep_cli_test.cpp.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/distributed_evaluator.hpp"
#include "engine/isolated_evaluator.hpp"
#include "engine/local_workers.hpp"
#include "engine/worker_protocol.hpp"
#include "tuner_fakes.hpp"
#include "ktune_test_paths.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kGemmLike = std::string(KTUNE_TEST_DATA_DIR) + "/recorded/synthetic_gemm_like.json";

/// (problem, configuration key, status) of every stored measurement.
std::set<std::string> stored_set(const Store& store) {
  std::set<std::string> out;
  store.for_each([&](const Measurement& m) {
    out.insert(m.key.family + " " + m.key.problem.key() + " | " + m.result.config.key() + " | " +
               std::string(to_string(m.result.status)));
    return true;
  });
  return out;
}

/// Replay workers only: asking one for a GPU is a test failure.
std::vector<LocalWorker> replay_workers(std::size_t n) {
  std::vector<LocalWorker> workers;
  for (std::size_t i = 0; i < n; ++i)
    workers.push_back({"replay worker " + std::to_string(i), default_worker_factory([]() -> int {
                         throw std::logic_error("a replay worker was asked for a GPU");
                       })});
  return workers;
}

/// Deterministic strategies over the synthetic (not measured) GEMM-like recording.
std::vector<SweepItem> deterministic_items() {
  json j = {{"runs", json::array({
                         {{"replay", kGemmLike}, {"strategy", "random"}, {"seed", 5}, {"budget", 30}, {"batch", 4}},
                         {{"replay", kGemmLike}, {"strategy", "exhaustive"}, {"budget", 20}, {"batch", 3},
                          {"resume", false}},
                     })}};
  return parse_sweep(j, {}, "test sweep").items;
}

TEST(DistributedSweep, LocalWorkersStoreTheSameResultsAsOneProcess) {
  std::vector<SweepItem> items = deterministic_items();
  std::ostringstream out;

  Store single = Store::open(":memory:");
  std::vector<SweepOutcome> one = run_sweep(items, single, nullptr, out);

  Store spread = Store::open(":memory:");
  LocalWorkerTransport transport(replay_workers(3));
  std::vector<SweepOutcome> many = run_distributed_sweep(items, spread, transport, nullptr, out);

  ASSERT_EQ(many.size(), 2u);
  for (std::size_t i = 0; i < many.size(); ++i) {
    ASSERT_TRUE(many[i].report) << many[i].error;
    ASSERT_TRUE(one[i].report) << one[i].error;
    EXPECT_EQ(many[i].report->measured.size(), one[i].report->measured.size());
  }
  EXPECT_EQ(many[0].report->measured.size(), 30u);
  std::set<std::string> a = stored_set(single), b = stored_set(spread);
  EXPECT_GT(a.size(), 30u);
  EXPECT_EQ(a, b);

  // The work really was spread: several workers measured, each result says who.
  std::set<std::string> who;
  for (const Result& r : many[0].report->measured) who.insert(r.metrics.value("worker", std::string("?")));
  EXPECT_GE(who.size(), 2u) << out.str();
  EXPECT_EQ(who.count("?"), 0u);
}

TEST(DistributedSweep, SmallBatchesAreRaisedToTheNumberOfWorkersWithANote) {
  json j = {{"runs", json::array({{{"replay", kGemmLike}, {"strategy", "exhaustive"}, {"budget", 9}, {"batch", 1}}})}};
  std::vector<SweepItem> items = parse_sweep(j, {}, "test sweep").items;
  Store single = Store::open(":memory:"), spread = Store::open(":memory:");
  std::ostringstream out;
  run_sweep(items, single, nullptr, out);
  LocalWorkerTransport transport(replay_workers(3));
  auto outcomes = run_distributed_sweep(items, spread, transport, nullptr, out);
  ASSERT_TRUE(outcomes[0].report) << outcomes[0].error;
  EXPECT_NE(out.str().find("batch raised from 1 to 3"), std::string::npos) << out.str();
  EXPECT_EQ(stored_set(single), stored_set(spread));
}

/// A line space x = 0..19 evaluated by scripted evaluators; worker 0's first
/// evaluator throws on its third call (a worker dying mid-sweep).
TEST(DistributedSweep, AFailedWorkersConfigurationIsRequeuedAndNothingIsLost) {
  std::atomic<int> worker0_starts{0};
  std::vector<LocalWorker> workers;
  workers.push_back({"flaky", [&](const SweepItem&) -> std::unique_ptr<Evaluator> {
                       auto e = std::make_unique<testing::ScriptedEvaluator>();
                       if (worker0_starts++ == 0) e->throw_on_call = 3;
                       return e;
                     }});
  workers.push_back({"steady", [](const SweepItem&) -> std::unique_ptr<Evaluator> {
                       return std::make_unique<testing::ScriptedEvaluator>();
                     }});
  LocalWorkerTransport transport(std::move(workers));
  std::vector<WorkerReady> ready = transport.open_item(SweepItem{});
  ASSERT_TRUE(ready[0].ok && ready[1].ok);
  DistributedEvaluator evaluator(transport, {0, 1}, ready[0].device);

  Space space = testing::line_space(20);
  std::vector<int> order;
  for (int x = 0; x < 20; ++x) order.push_back(x);
  testing::ListSearcher searcher(order);
  testing::MemoryLog log;
  TuneInputs in = testing::inputs(space, searcher, evaluator, log);
  TuneReport report = Tuner(in, testing::options(20, 4)).run();

  EXPECT_EQ(report.measured.size(), 20u);
  EXPECT_EQ(report.failures, 0u);
  EXPECT_EQ(evaluator.requeued(), 1u);
  EXPECT_EQ(worker0_starts.load(), 2) << "the failed worker's evaluator was not re-created";
  std::set<int> stored;
  for (const Result& r : log.stored()) stored.insert(testing::x_of(r.config));
  EXPECT_EQ(stored.size(), 20u);
}

TEST(DistributedSweep, AWorkerThatAlwaysFailsIsLeftOutAndItsConfigurationsMoveOn) {
  std::vector<LocalWorker> workers;
  workers.push_back({"broken", [](const SweepItem&) -> std::unique_ptr<Evaluator> {
                       auto e = std::make_unique<testing::ScriptedEvaluator>();
                       e->throw_on_call = 1;
                       return e;
                     }});
  workers.push_back({"steady", [](const SweepItem&) -> std::unique_ptr<Evaluator> {
                       return std::make_unique<testing::ScriptedEvaluator>();
                     }});
  LocalWorkerTransport transport(std::move(workers));
  std::vector<WorkerReady> ready = transport.open_item(SweepItem{});
  DistributedEvaluator evaluator(transport, {0, 1}, ready[1].device);
  std::vector<Config> configs;
  for (int x = 0; x < 12; ++x) configs.push_back(testing::cfg(x));
  std::vector<Result> results = evaluator.evaluate(configs);
  ASSERT_EQ(results.size(), 12u);
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].config, configs[i]);
    EXPECT_TRUE(results[i].ok()) << results[i].message;  // every one re-measured by the steady worker
  }
  EXPECT_GE(evaluator.requeued(), 1u);
  EXPECT_LE(evaluator.requeued(), 3u) << "the broken worker kept getting work";
}

TEST(DistributedSweep, NoWorkerLeftIsAnError) {
  std::vector<LocalWorker> workers;
  workers.push_back({"broken", [](const SweepItem&) -> std::unique_ptr<Evaluator> {
                       auto e = std::make_unique<testing::ScriptedEvaluator>();
                       e->throw_on_call = 1;
                       return e;
                     }});
  LocalWorkerTransport transport(std::move(workers));
  std::vector<WorkerReady> ready = transport.open_item(SweepItem{});
  DistributedEvaluator evaluator(transport, {0}, ready[0].device);
  std::vector<Config> configs;
  for (int x = 0; x < 5; ++x) configs.push_back(testing::cfg(x));
  try {
    evaluator.evaluate(configs);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("every worker failed"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("simulated crash"), std::string::npos) << e.what();
  }
}

// --- a real worker process killed mid-sweep (fake GPU backend, no GPU needed) ---

std::string ktune_binary() {
  fs::path p = fs::path(KTUNE_BINARY_DIR) / "bin" / "ktune";
  return fs::exists(p) ? p.string() : std::string();
}

/// Kills (SIGKILL) the `ktune worker` processes this thread started, before
/// its `kill_on_call`-th evaluation: the worker dies mid-sweep.
class KillingEvaluator final : public Evaluator {
 public:
  KillingEvaluator(std::unique_ptr<Evaluator> inner, int kill_on_call, std::atomic<int>* kills)
      : inner_(std::move(inner)), kill_on_call_(kill_on_call), kills_(kills) {}
  std::vector<Result> evaluate(std::span<const Config> configs) override {
    if (++calls_ == kill_on_call_) {
      // The worker thread spawned its IsolatedEvaluator's child: it is listed
      // among this thread's children.
      long tid = ::syscall(SYS_gettid);
      std::ifstream children("/proc/self/task/" + std::to_string(tid) + "/children");
      pid_t pid;
      while (children >> pid) {
        if (::kill(pid, SIGKILL) == 0) ++*kills_;
      }
    }
    return inner_->evaluate(configs);
  }
  const DeviceSpec& device() const override { return inner_->device(); }

 private:
  std::unique_ptr<Evaluator> inner_;
  int kill_on_call_;
  int calls_ = 0;
  std::atomic<int>* kills_;
};

TEST(DistributedSweep, AKilledWorkerProcessLosesNoConfiguration) {
  if (ktune_binary().empty()) GTEST_FAIL() << "the ktune binary is not built in " << KTUNE_BINARY_DIR << "/bin";
  if (!fs::exists("/proc/self/task/" + std::to_string(::syscall(SYS_gettid)) + "/children"))
    GTEST_SKIP() << "this kernel has no /proc/<pid>/task/<tid>/children to find the worker to kill";
  const KernelFamily& family = find_family("test_faulty");
  Problem problem{{"n", std::int64_t{4096}}};
  std::atomic<int> kills{0};
  auto factory = [&](int kill_on_call) {
    return [&, kill_on_call](const SweepItem&) -> std::unique_ptr<Evaluator> {
      IsolatedEvaluatorOptions o;
      o.worker_binary = ktune_binary();
      o.worker_env = {std::string(kWorkerFakeEnv) + "=1"};
      o.watchdog.startup_limit_s = 30;
      return std::make_unique<KillingEvaluator>(std::make_unique<IsolatedEvaluator>(family, problem, o),
                                                kill_on_call, &kills);
    };
  };
  std::vector<LocalWorker> workers;
  workers.push_back({"worker 0", factory(4)});
  workers.push_back({"worker 1", factory(0)});
  LocalWorkerTransport transport(std::move(workers));
  std::vector<WorkerReady> ready = transport.open_item(SweepItem{});
  ASSERT_TRUE(ready[0].ok) << ready[0].error;
  ASSERT_TRUE(ready[1].ok) << ready[1].error;
  DistributedEvaluator evaluator(transport, {0, 1}, ready[0].device);

  Store store = Store::open(":memory:");
  RunKey key;
  key.device = ready[0].device;
  key.family = "test_faulty";
  key.family_hash = "test";
  key.problem = problem;
  StoreLog log(store, key, Provenance{"test", "test", "synthetic: fake worker", ""});

  std::vector<Config> all;
  for (std::int64_t threads : {64, 128, 256, 512, 1024})
    for (std::int64_t items : {1, 2, 4, 8})
      all.push_back(Config{{"threads", threads}, {"items", items}, {"mode", std::string("normal")},
                           {"smem_stage", false}});
  std::vector<Result> everything;
  for (std::size_t start = 0; start < all.size(); start += 5) {
    std::span<const Config> batch(all.data() + start, 5);
    std::vector<Result> results = evaluator.evaluate(batch);
    ASSERT_EQ(results.size(), 5u);
    log.append_batch(results);
    everything.insert(everything.end(), results.begin(), results.end());
  }
  EXPECT_EQ(kills.load(), 1) << "the test did not kill a worker";
  std::vector<Result> stored = store.results(key);
  EXPECT_EQ(stored.size(), all.size());
  std::size_t ok = 0, died = 0;
  for (const Result& r : everything) {
    if (r.ok()) ++ok;
    else if (r.status == Status::launch_error && r.message.find("worker") != std::string::npos) ++died;
    else ADD_FAILURE() << "unexpected " << to_string(r.status) << ": " << r.message;
  }
  // The killed worker's configuration is recorded as failed (launch_error)
  // or was measured again; every other one is measured.
  EXPECT_LE(died, 1u);
  EXPECT_EQ(ok + died, all.size());
}

/// A GPU item (not a replay) through local workers whose isolated `ktune
/// worker` processes use the fake backend: the coordinator queries no GPU,
/// takes the device the workers report, and stores every result under it.
TEST(DistributedSweep, AGpuItemIsKeyedByTheDeviceTheWorkersReport) {
  if (ktune_binary().empty()) GTEST_FAIL() << "the ktune binary is not built in " << KTUNE_BINARY_DIR << "/bin";
  json j = {{"runs", json::array({{{"kernel", "test_faulty"}, {"problems", {"n=4096"}}, {"strategy", "random"},
                                    {"seed", 3}, {"budget", 6}, {"batch", 3}, {"warm_start", false}}})}};
  std::vector<SweepItem> items = parse_sweep(j, {}, "test sweep").items;
  auto fake_gpu = [](const SweepItem& item) -> std::unique_ptr<Evaluator> {
    IsolatedEvaluatorOptions o;
    o.worker_binary = ktune_binary();
    o.worker_env = {std::string(kWorkerFakeEnv) + "=1"};
    // Random may pick the fixture's "hang" mode: keep its watchdog short.
    o.watchdog.first_limit_s = 0.5;
    o.watchdog.floor_s = 0.3;
    o.watchdog.cap_s = 0.5;
    o.watchdog.startup_limit_s = 30;
    const KernelFamily& family = find_family(item.spec.kernel);
    return std::make_unique<IsolatedEvaluator>(family, parse_problem(family, item.spec.problem), o);
  };
  std::vector<LocalWorker> workers;
  workers.push_back({"fake GPU 0", fake_gpu});
  workers.push_back({"fake GPU 1", fake_gpu});
  LocalWorkerTransport transport(std::move(workers));
  Store store = Store::open(":memory:");
  std::ostringstream out;
  std::vector<SweepOutcome> outcomes = run_distributed_sweep(items, store, transport, nullptr, out);
  ASSERT_TRUE(outcomes.at(0).report) << outcomes[0].error << "\n" << out.str();
  EXPECT_EQ(outcomes[0].report->measured.size(), 6u);
  std::size_t stored = 0;
  store.for_each([&](const Measurement& m) {
    ++stored;
    EXPECT_NE(m.key.device.name.find("synthetic: fake worker"), std::string::npos) << m.key.device.name;
    EXPECT_EQ(m.key.family, "test_faulty");
    EXPECT_EQ(m.result.metrics.value("worker", std::string()).rfind("fake GPU ", 0), 0u) << m.result.metrics.dump();
    return true;
  });
  EXPECT_EQ(stored, 6u);
}

TEST(GpuList, ParsesAllAndListsAndRejectsBadOnes) {
  std::vector<int> visible = {0, 1, 2, 3};
  EXPECT_EQ(parse_gpu_list("all", visible), visible);
  EXPECT_EQ(parse_gpu_list("0,2,3", visible), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(parse_gpu_list("1", visible), (std::vector<int>{1}));
  auto message = [&](const std::string& text, const std::vector<int>& v) {
    try {
      parse_gpu_list(text, v);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(message("0,7", visible).find("no GPU with ordinal 7 (4 visible)"), std::string::npos);
  EXPECT_NE(message("0,0", visible).find("listed twice"), std::string::npos);
  EXPECT_NE(message("0,,1", visible).find("malformed list"), std::string::npos);
  EXPECT_NE(message("x", visible).find("malformed list"), std::string::npos);
  EXPECT_NE(message("-1", visible).find("malformed list"), std::string::npos);
  EXPECT_NE(message("all", {}).find("no GPU is visible"), std::string::npos);
}

}  // namespace
}  // namespace ktune
