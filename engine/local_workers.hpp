// LocalWorkerTransport: the workers of a one-host multi-GPU (or multi-replay)
// sweep, one thread per worker, each owning its evaluator (on a GPU that is an
// IsolatedEvaluator, i.e. a `ktune worker` process of its own).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/distributed_evaluator.hpp"

namespace ktune {

struct LocalWorker {
  std::string name;                  ///< "GPU 2", "replay worker 0": for messages and metrics.worker
  ItemEvaluatorHost::Factory factory;
};

/// Worker threads fed through per-worker queues; completions come back
/// through one shared queue. An evaluator that throws reports the job as
/// failed (no result) and is re-created for the next job (a restart).
class LocalWorkerTransport final : public WorkerTransport {
 public:
  /// Starts one thread per worker. Throws std::invalid_argument when empty.
  explicit LocalWorkerTransport(std::vector<LocalWorker> workers);
  /// Stops and joins the threads (each finishes the configuration it holds).
  ~LocalWorkerTransport() override;
  LocalWorkerTransport(const LocalWorkerTransport&) = delete;
  LocalWorkerTransport& operator=(const LocalWorkerTransport&) = delete;

  std::size_t size() const override;
  std::string describe(std::size_t worker) const override;
  std::vector<WorkerReady> open_item(const SweepItem& item) override;
  void submit(std::size_t worker, std::uint64_t job, const Config& config) override;
  WorkerDone wait() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Parses `--gpus`: "all" or a comma-separated list of distinct ordinals
/// ("0,2,3"), checked against the `visible` ordinals. Throws
/// std::invalid_argument naming what is wrong.
std::vector<int> parse_gpu_list(const std::string& text, const std::vector<int>& visible);

}  // namespace ktune
