// MPI sweeps: the rank-0 transport (JSON messages per configuration) and the
// worker ranks' loop. Without KTUNE_HAVE_MPI only the "built without MPI"
// answers are compiled.
#include "engine/mpi_sweep.hpp"

#include <stdexcept>

#if KTUNE_HAVE_MPI
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "measure/device_query.hpp"
#endif

namespace ktune {

#if KTUNE_HAVE_MPI

namespace {

// Message tags: coordinator -> worker, then worker -> coordinator.
constexpr int kTagOpen = 1;   // {"item": index}
constexpr int kTagEval = 2;   // {"job": id, "config": {...}}
constexpr int kTagStop = 3;   // empty
constexpr int kTagReady = 4;  // {"ok", "device", "error", "host", "gpu"}
constexpr int kTagDone = 5;   // {"job", "result"} or {"job", "failure"}

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    throw std::runtime_error(std::string("MPI: ") + what + " failed: " + std::string(text, len));
  }
}

void send_text(const std::string& text, int to, int tag) {
  check(MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD), "MPI_Send");
}

/// Waits for a message without holding a core for long: Open MPI's blocking
/// probe polls, which would compete with the workers' compiler threads for
/// the whole of a GPU sweep. Spins for 2 ms (a replay answers in
/// microseconds, a batch is stored in about a millisecond), then sleeps
/// 100 us between probes.
void probe_politely(int from, int tag, MPI_Status& status) {
  using Clock = std::chrono::steady_clock;
  const auto spin_until = Clock::now() + std::chrono::milliseconds(2);
  for (;;) {
    int flag = 0;
    check(MPI_Iprobe(from, tag, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
    if (flag) return;
    if (Clock::now() >= spin_until) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

/// Receives one message (any size) from `from` with `tag` (wildcards allowed).
std::string receive_text(int from, int tag, MPI_Status& status) {
  probe_politely(from, tag, status);
  int count = 0;
  check(MPI_Get_count(&status, MPI_CHAR, &count), "MPI_Get_count");
  std::string text(static_cast<std::size_t>(count), '\0');
  check(MPI_Recv(text.data(), count, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE),
        "MPI_Recv");
  return text;
}

class MpiTransport final : public WorkerTransport {
 public:
  explicit MpiTransport(int world_size) : names_(static_cast<std::size_t>(world_size - 1)) {
    for (std::size_t w = 0; w < names_.size(); ++w) names_[w] = "rank " + std::to_string(w + 1);
  }
  ~MpiTransport() override {
    for (std::size_t w = 0; w < names_.size(); ++w) {
      try {
        send_text("", static_cast<int>(w + 1), kTagStop);
      } catch (const std::exception&) {
      }
    }
  }

  std::size_t size() const override { return names_.size(); }
  std::string describe(std::size_t worker) const override {
    return worker < names_.size() ? names_[worker] : "rank " + std::to_string(worker + 1);
  }

  std::vector<WorkerReady> open_item(const SweepItem& item) override {
    const std::string message = nlohmann::json{{"item", item.index}}.dump();
    for (std::size_t w = 0; w < size(); ++w) send_text(message, static_cast<int>(w + 1), kTagOpen);
    std::vector<WorkerReady> ready(size());
    for (std::size_t answered = 0; answered < size(); ++answered) {
      MPI_Status status;
      nlohmann::json j = nlohmann::json::parse(receive_text(MPI_ANY_SOURCE, kTagReady, status));
      std::size_t w = static_cast<std::size_t>(status.MPI_SOURCE - 1);
      WorkerReady& r = ready.at(w);
      r.ok = j.value("ok", false);
      r.error = j.value("error", "");
      if (r.ok) r.device = DeviceSpec::from_json(j.at("device"));
      int gpu = j.value("gpu", -1);
      names_[w] = "rank " + std::to_string(w + 1) + " on " + j.value("host", std::string("?")) +
                  (gpu >= 0 ? ", GPU " + std::to_string(gpu) : "");
    }
    return ready;
  }

  void submit(std::size_t worker, std::uint64_t job, const Config& config) override {
    send_text(nlohmann::json{{"job", job}, {"config", config.to_json()}}.dump(), static_cast<int>(worker + 1),
              kTagEval);
  }

  WorkerDone wait() override {
    MPI_Status status;
    nlohmann::json j = nlohmann::json::parse(receive_text(MPI_ANY_SOURCE, kTagDone, status));
    WorkerDone done;
    done.worker = static_cast<std::size_t>(status.MPI_SOURCE - 1);
    done.job = j.at("job").get<std::uint64_t>();
    if (j.contains("result")) {
      try {
        done.result = result_from_json(j.at("result"));
      } catch (const std::exception& e) {
        done.failure = std::string("unreadable result: ") + e.what();
      }
    } else {
      done.failure = j.value("failure", std::string("no result"));
    }
    return done;
  }

 private:
  std::vector<std::string> names_;
};

/// This worker's index among the worker ranks of its host (rank 0 excluded).
int local_worker_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm workers = MPI_COMM_NULL, local = MPI_COMM_NULL;
  check(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : 1, rank, &workers), "MPI_Comm_split");
  check(MPI_Comm_split_type(workers, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local), "MPI_Comm_split_type");
  int local_rank = 0;
  MPI_Comm_rank(local, &local_rank);
  MPI_Comm_free(&local);
  MPI_Comm_free(&workers);
  return local_rank;
}

}  // namespace

bool mpi_built() { return true; }

MpiSession::MpiSession() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) throw std::logic_error("MPI is already initialized in this process");
  int provided = 0;
  // Only the main thread calls MPI (evaluators' threads and processes never do).
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

std::unique_ptr<WorkerTransport> make_mpi_transport(const MpiSession& session) {
  // Every rank takes part in this split (collective), rank 0 included.
  local_worker_rank();
  if (session.size() < 2)
    throw std::invalid_argument("--mpi needs at least 2 ranks (one coordinator, one or more evaluators); got " +
                                std::to_string(session.size()) + " (run it under mpirun -np N)");
  return std::make_unique<MpiTransport>(session.size());
}

void mpi_serve(const MpiSession& session, const std::vector<SweepItem>& items) {
  (void)session;
  const int local_rank = local_worker_rank();
  const std::string host = host_name();
  int gpu = -1;
  auto gpu_ordinal = [&]() {
    DeviceQuery query = query_devices();
    if (query.devices.empty()) throw NoGpuError("no GPU on " + host + ": " + query.none_reason);
    gpu = query.devices[static_cast<std::size_t>(local_rank) % query.devices.size()].ordinal;
    return gpu;
  };
  ItemEvaluatorHost host_evaluator(default_worker_factory(gpu_ordinal));
  for (;;) {
    MPI_Status status;
    std::string text = receive_text(0, MPI_ANY_TAG, status);
    if (status.MPI_TAG == kTagStop) return;
    if (status.MPI_TAG == kTagOpen) {
      nlohmann::json reply;
      std::size_t index = nlohmann::json::parse(text).at("item").get<std::size_t>();
      auto it = std::find_if(items.begin(), items.end(), [&](const SweepItem& i) { return i.index == index; });
      gpu = -1;
      WorkerReady ready;
      if (it == items.end())
        ready.error = "no sweep item " + std::to_string(index) + " here (do all ranks read the same sweep file?)";
      else
        ready = host_evaluator.open(*it);
      reply["ok"] = ready.ok;
      reply["error"] = ready.error;
      reply["host"] = host;
      reply["gpu"] = gpu;
      if (ready.ok) reply["device"] = ready.device.to_json();
      send_text(reply.dump(), 0, kTagReady);
    } else if (status.MPI_TAG == kTagEval) {
      nlohmann::json j = nlohmann::json::parse(text);
      nlohmann::json reply{{"job", j.at("job")}};
      try {
        reply["result"] = result_to_json(host_evaluator.evaluate(Config::from_json(j.at("config"))));
      } catch (const std::exception& e) {
        reply["failure"] = e.what();
      }
      send_text(reply.dump(), 0, kTagDone);
    }
  }
}

#else  // no MPI in this build

namespace {
[[noreturn]] void no_mpi() {
  throw std::runtime_error(
      "--mpi: ktune was built without MPI (reconfigure with -DKTUNE_WITH_MPI=ON where Open MPI is "
      "installed); on one host use --gpus, across hosts use --shard I/N and `ktune db merge`");
}
}  // namespace

bool mpi_built() { return false; }
MpiSession::MpiSession() { no_mpi(); }
MpiSession::~MpiSession() = default;
std::unique_ptr<WorkerTransport> make_mpi_transport(const MpiSession&) { no_mpi(); }
void mpi_serve(const MpiSession&, const std::vector<SweepItem>&) { no_mpi(); }

#endif

}  // namespace ktune
