// DistributedEvaluator: hands configurations to idle workers one at a time,
// gathers results in order, re-queues the work of a failed worker; the
// worker-side evaluator host; the distributed sweep.
#include "engine/distributed_evaluator.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>

#include "compile/compiler.hpp"
#include "engine/isolated_evaluator.hpp"
#include "engine/replay_evaluator.hpp"

namespace ktune {

ItemEvaluatorHost::ItemEvaluatorHost(Factory factory) : factory_(std::move(factory)) {}

WorkerReady ItemEvaluatorHost::open(const SweepItem& item) {
  WorkerReady ready;
  evaluator_.reset();
  item_ = item;
  try {
    evaluator_ = factory_(item);
    ready.device = evaluator_->device();
    ready.ok = true;
  } catch (const std::exception& e) {
    ready.error = e.what();
  }
  return ready;
}

Result ItemEvaluatorHost::evaluate(const Config& config) {
  if (!item_) throw std::logic_error("worker: a configuration arrived before any sweep item was opened");
  try {
    if (!evaluator_) evaluator_ = factory_(*item_);  // restart after a failure
    std::vector<Result> results = evaluator_->evaluate(std::span<const Config>(&config, 1));
    if (results.size() != 1)
      throw std::runtime_error("evaluator returned " + std::to_string(results.size()) + " results for 1 configuration");
    return std::move(results.front());
  } catch (...) {
    evaluator_.reset();
    throw;
  }
}

ItemEvaluatorHost::Factory default_worker_factory(std::function<int()> gpu_ordinal) {
  return [gpu_ordinal = std::move(gpu_ordinal)](const SweepItem& item) -> std::unique_ptr<Evaluator> {
    const TuneSpec& spec = item.spec;
    if (!spec.replay.empty())
      return std::make_unique<ReplayEvaluator>(
          std::make_shared<const RecordedSpace>(read_recorded_space(spec.replay)));
    const KernelFamily& family = find_family(spec.kernel);
    IsolatedEvaluatorOptions options;
    options.gpu.device = gpu_ordinal();
    options.gpu.compiler.cache_dir = default_compile_cache_dir();
    options.gpu.profile = spec.profile;
    return std::make_unique<IsolatedEvaluator>(family, parse_problem(family, spec.problem), options);
  };
}

bool same_device_identity(const DeviceSpec& a, const DeviceSpec& b) {
  return a.name == b.name && a.cc_major == b.cc_major && a.cc_minor == b.cc_minor && a.sm_count == b.sm_count &&
         a.driver == b.driver && a.cuda_runtime == b.cuda_runtime;
}

DistributedEvaluator::DistributedEvaluator(WorkerTransport& transport, std::vector<std::size_t> workers,
                                           DeviceSpec device)
    : transport_(transport),
      workers_(std::move(workers)),
      failures_in_a_row_(transport.size(), 0),
      device_(std::move(device)) {
  if (workers_.empty()) throw std::invalid_argument("distributed evaluator: no worker to evaluate on");
}

std::vector<Result> DistributedEvaluator::evaluate(std::span<const Config> configs) {
  // A worker failing this often in a row is broken (not a candidate's
  // fault): it gets no more work for this item.
  constexpr int kMaxFailuresInARow = 3;
  // A configuration is handed out at most this often when its workers fail.
  constexpr int kMaxAttempts = 2;

  std::vector<std::optional<Result>> results(configs.size());
  std::vector<int> attempts(configs.size(), 0);
  std::deque<std::size_t> queue;
  for (std::size_t i = 0; i < configs.size(); ++i) queue.push_back(i);
  std::deque<std::size_t> idle;
  for (std::size_t w : workers_)
    if (failures_in_a_row_[w] < kMaxFailuresInARow) idle.push_back(w);
  struct InFlight {
    std::size_t index;
    std::size_t worker;
  };
  std::map<std::uint64_t, InFlight> in_flight;
  std::size_t settled = 0;
  std::string last_failure;

  // The worker that last failed each configuration: it goes to another one
  // when another is left.
  constexpr std::size_t kNobody = static_cast<std::size_t>(-1);
  std::vector<std::size_t> failed_on(configs.size(), kNobody);
  auto live_workers = [&] {
    return std::count_if(workers_.begin(), workers_.end(),
                         [&](std::size_t w) { return failures_in_a_row_[w] < kMaxFailuresInARow; });
  };

  while (settled < configs.size()) {
    std::deque<std::size_t> still_idle;
    while (!idle.empty()) {
      std::size_t w = idle.front();
      idle.pop_front();
      auto next = std::find_if(queue.begin(), queue.end(), [&](std::size_t i) { return failed_on[i] != w; });
      if (next == queue.end() && !queue.empty() && live_workers() == 1) next = queue.begin();
      if (next == queue.end()) {
        still_idle.push_back(w);
        continue;
      }
      std::size_t i = *next;
      queue.erase(next);
      std::uint64_t job = next_job_++;
      in_flight[job] = {i, w};
      ++attempts[i];
      transport_.submit(w, job, configs[i]);
    }
    idle = std::move(still_idle);
    if (in_flight.empty())
      throw std::runtime_error("every worker failed (" + std::to_string(workers_.size()) +
                               " tried); last failure: " + last_failure);
    WorkerDone done = transport_.wait();
    auto it = in_flight.find(done.job);
    if (it == in_flight.end()) continue;  // not ours (cannot happen: one evaluator per item)
    const auto [i, w] = it->second;
    in_flight.erase(it);
    if (done.result) {
      failures_in_a_row_[w] = 0;
      Result r = std::move(*done.result);
      if (r.config.empty()) r.config = configs[i];
      if (!r.metrics.is_object()) r.metrics = nlohmann::json::object();
      r.metrics["worker"] = transport_.describe(w);
      results[i] = std::move(r);
      ++settled;
      idle.push_back(w);
      continue;
    }
    last_failure = transport_.describe(w) + ": " + done.failure;
    if (++failures_in_a_row_[w] < kMaxFailuresInARow) idle.push_back(w);
    failed_on[i] = w;
    if (attempts[i] < kMaxAttempts) {
      ++requeued_;
      queue.push_front(i);  // the next idle worker takes it first
    } else {
      Result r;
      r.config = configs[i];
      r.status = Status::launch_error;
      r.message = "its worker failed on each of " + std::to_string(kMaxAttempts) + " attempts; last: " + last_failure;
      r.metrics["worker"] = transport_.describe(w);
      results[i] = std::move(r);
      ++settled;
    }
  }
  std::vector<Result> out;
  out.reserve(configs.size());
  for (auto& r : results) out.push_back(std::move(*r));
  return out;
}

std::vector<SweepOutcome> run_distributed_sweep(const std::vector<SweepItem>& items, Store& store,
                                                WorkerTransport& transport, ProgressSink* progress,
                                                std::ostream& out, const UntunedLookup* lookup) {
  PrepareItem prepare = [&](const SweepItem& item) -> std::unique_ptr<PreparedTune> {
    std::vector<WorkerReady> ready = transport.open_item(item);
    std::optional<std::size_t> first;
    std::string errors;
    for (std::size_t w = 0; w < ready.size(); ++w) {
      if (ready[w].ok && !first) first = w;
      if (!ready[w].ok) errors += (errors.empty() ? "" : "; ") + transport.describe(w) + ": " + ready[w].error;
    }
    if (!first) throw std::runtime_error("no worker could prepare it: " + errors);
    if (!errors.empty()) out << "  note: left out (could not prepare the item): " << errors << "\n";
    const DeviceSpec device = ready[*first].device;
    std::vector<std::size_t> workers;
    for (std::size_t w = 0; w < ready.size(); ++w) {
      if (!ready[w].ok) continue;
      if (same_device_identity(ready[w].device, device)) {
        workers.push_back(w);
      } else {
        out << "  note: " << transport.describe(w) << " (" << ready[w].device.name
            << ") sits this item out: its results would be keyed by another device than " << device.name
            << "'s; tune mixed GPUs as separate sweeps or shards\n";
      }
    }
    TuneSpec spec = item.spec;
    if (spec.options.batch_size < workers.size()) {
      out << "  note: batch raised from " << spec.options.batch_size << " to " << workers.size()
          << " so that each of the " << workers.size() << " workers has a configuration\n";
      spec.options.batch_size = workers.size();
    }
    PrepareHooks hooks;
    if (spec.replay.empty()) hooks.device = device;
    hooks.evaluator = [&transport, workers, device](const PreparedTune&) {
      return std::make_unique<DistributedEvaluator>(transport, workers, device);
    };
    return prepare_tune(spec, hooks);
  };
  return run_sweep(items, store, progress, out, prepare, lookup);
}

}  // namespace ktune
