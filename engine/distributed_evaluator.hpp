// DistributedEvaluator: the coordinator of a sweep spread over several
// evaluating workers (MPI ranks, or local GPU / replay workers). The tuning
// loop, the searchers and every database write stay in the coordinator; only
// evaluation moves, so a sweep proposes the same batches in the same order as
// a single-process one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "engine/evaluator.hpp"
#include "engine/sweep.hpp"

namespace ktune {

/// A worker's answer to "prepare sweep item I".
struct WorkerReady {
  bool ok = false;
  DeviceSpec device;   ///< what its evaluator measures on (the recorded device for a replay)
  std::string error;   ///< why it could not prepare the item (no GPU, bad ordinal, ...)
};

/// A finished job: the worker's Result, or none when the worker failed
/// (its evaluator threw or its process died) while holding the job.
struct WorkerDone {
  std::size_t worker = 0;
  std::uint64_t job = 0;
  std::optional<Result> result;
  std::string failure;  ///< why there is no result
};

/// How the coordinator reaches its workers. Two implementations: MPI ranks
/// (engine/mpi_sweep.hpp) and local worker threads (engine/local_workers.hpp).
/// Only the coordinator's thread calls these.
class WorkerTransport {
 public:
  virtual ~WorkerTransport() = default;
  /// Number of evaluating workers (they are numbered 0..size()-1).
  virtual std::size_t size() const = 0;
  /// "rank 2 on node7, GPU 1": for messages and results' metrics.
  virtual std::string describe(std::size_t worker) const = 0;
  /// Every worker prepares its evaluator for `item` (dropping the previous
  /// one); returns each worker's answer, in worker order. No job is in flight.
  virtual std::vector<WorkerReady> open_item(const SweepItem& item) = 0;
  /// Hands one configuration to an idle worker.
  virtual void submit(std::size_t worker, std::uint64_t job, const Config& config) = 0;
  /// Blocks until some submitted job finishes.
  virtual WorkerDone wait() = 0;
};

/// The worker side, shared by MPI ranks and local workers: the evaluator of
/// the current item, re-created after it failed (a restart).
class ItemEvaluatorHost {
 public:
  using Factory = std::function<std::unique_ptr<Evaluator>(const SweepItem&)>;
  explicit ItemEvaluatorHost(Factory factory);
  /// Builds the evaluator of `item`; never throws (a failure is in the answer).
  WorkerReady open(const SweepItem& item);
  /// Evaluates one configuration of the open item. Throws when there is no
  /// open item or the evaluator throws; the evaluator is then dropped and
  /// re-created by the next call.
  Result evaluate(const Config& config);

 private:
  Factory factory_;
  std::optional<SweepItem> item_;
  std::unique_ptr<Evaluator> evaluator_;
};

/// The evaluator a worker uses for an item: a ReplayEvaluator for a replay,
/// else an IsolatedEvaluator on GPU `gpu_ordinal()` (called when a GPU item
/// opens, so that replay-only workers never touch CUDA).
ItemEvaluatorHost::Factory default_worker_factory(std::function<int()> gpu_ordinal);

/// True when two devices have the same identity (the fields a result is keyed by).
bool same_device_identity(const DeviceSpec& a, const DeviceSpec& b);

/// Evaluates a batch over the transport's workers: one configuration at a
/// time to each idle worker, the next one as soon as a worker is free;
/// results come back in the batch's order, each with metrics.worker naming
/// who measured it. A configuration whose worker failed is re-queued once
/// (to any worker), then recorded as launch_error; a worker failing three
/// times in a row is left out for the rest of the item. Throws
/// std::runtime_error when no worker is left.
class DistributedEvaluator final : public Evaluator {
 public:
  DistributedEvaluator(WorkerTransport& transport, std::vector<std::size_t> workers, DeviceSpec device);
  std::vector<Result> evaluate(std::span<const Config> configs) override;
  const DeviceSpec& device() const override { return device_; }
  /// Configurations handed out again because their worker failed.
  std::size_t requeued() const { return requeued_; }

 private:
  WorkerTransport& transport_;
  std::vector<std::size_t> workers_;
  std::vector<int> failures_in_a_row_;
  DeviceSpec device_;
  std::uint64_t next_job_ = 0;
  std::size_t requeued_ = 0;
};

/// run_sweep with every item's evaluation spread over the transport's
/// workers. Per item: every worker prepares it; those measuring on the same
/// device (by identity) as the first ready one evaluate it (the others sit
/// it out, with a note, so each result is stored under the device that
/// measured it); a batch smaller than the number of workers is raised to it
/// (with a note) so that no worker idles. Items, their order, the searchers'
/// proposals and the database writes are those of run_sweep (`lookup` too).
std::vector<SweepOutcome> run_distributed_sweep(const std::vector<SweepItem>& items, Store& store,
                                                WorkerTransport& transport, ProgressSink* progress,
                                                std::ostream& out,
                                                const UntunedLookup* lookup = nullptr);

}  // namespace ktune
