// LocalWorkerTransport: worker threads with their own evaluators, fed one
// configuration at a time by the coordinator; and the --gpus list parser.
#include "engine/local_workers.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <variant>

namespace ktune {
namespace {

struct OpenTask {
  SweepItem item;
};
struct EvalTask {
  std::uint64_t job;
  Config config;
};
struct StopTask {};
using Task = std::variant<OpenTask, EvalTask, StopTask>;

/// A blocking queue (one consumer per worker; the completions queue has one too).
template <typename T>
class BlockingQueue {
 public:
  void push(T value) {
    {
      std::lock_guard lock(mutex_);
      items_.push_back(std::move(value));
    }
    ready_.notify_one();
  }
  T pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !items_.empty(); });
    T value = std::move(items_.front());
    items_.pop_front();
    return value;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<T> items_;
};

struct Completion {
  std::size_t worker = 0;
  std::optional<WorkerReady> ready;  ///< set for an OpenTask's answer
  WorkerDone done;                   ///< else an EvalTask's
};

}  // namespace

struct LocalWorkerTransport::Impl {
  std::vector<LocalWorker> workers;
  std::vector<std::unique_ptr<BlockingQueue<Task>>> inboxes;
  BlockingQueue<Completion> completions;
  std::vector<std::thread> threads;

  void serve(std::size_t w) {
    ItemEvaluatorHost host(workers[w].factory);
    for (;;) {
      Task task = inboxes[w]->pop();
      if (std::holds_alternative<StopTask>(task)) return;
      Completion c;
      c.worker = w;
      if (auto* open = std::get_if<OpenTask>(&task)) {
        c.ready = host.open(open->item);
      } else {
        auto& eval = std::get<EvalTask>(task);
        c.done.worker = w;
        c.done.job = eval.job;
        try {
          c.done.result = host.evaluate(eval.config);
        } catch (const std::exception& e) {
          c.done.failure = e.what();
        } catch (...) {
          c.done.failure = "unknown exception";
        }
      }
      completions.push(std::move(c));
    }
  }
};

LocalWorkerTransport::LocalWorkerTransport(std::vector<LocalWorker> workers) : impl_(std::make_unique<Impl>()) {
  if (workers.empty()) throw std::invalid_argument("local workers: none given");
  impl_->workers = std::move(workers);
  for (std::size_t w = 0; w < impl_->workers.size(); ++w)
    impl_->inboxes.push_back(std::make_unique<BlockingQueue<Task>>());
  for (std::size_t w = 0; w < impl_->workers.size(); ++w)
    impl_->threads.emplace_back([this, w] { impl_->serve(w); });
}

LocalWorkerTransport::~LocalWorkerTransport() {
  for (auto& inbox : impl_->inboxes) inbox->push(StopTask{});
  for (auto& t : impl_->threads) t.join();
}

std::size_t LocalWorkerTransport::size() const { return impl_->workers.size(); }

std::string LocalWorkerTransport::describe(std::size_t worker) const {
  return worker < impl_->workers.size() ? impl_->workers[worker].name : "worker " + std::to_string(worker);
}

std::vector<WorkerReady> LocalWorkerTransport::open_item(const SweepItem& item) {
  for (auto& inbox : impl_->inboxes) inbox->push(OpenTask{item});
  std::vector<WorkerReady> ready(size());
  for (std::size_t answered = 0; answered < size();) {
    Completion c = impl_->completions.pop();
    if (!c.ready) continue;  // a late answer of a job nobody waits for any more
    ready[c.worker] = std::move(*c.ready);
    ++answered;
  }
  return ready;
}

void LocalWorkerTransport::submit(std::size_t worker, std::uint64_t job, const Config& config) {
  impl_->inboxes.at(worker)->push(EvalTask{job, config});
}

WorkerDone LocalWorkerTransport::wait() {
  for (;;) {
    Completion c = impl_->completions.pop();
    if (!c.ready) return std::move(c.done);
  }
}

std::vector<int> parse_gpu_list(const std::string& text, const std::vector<int>& visible) {
  if (visible.empty()) throw std::invalid_argument("--gpus: no GPU is visible");
  if (text == "all") return visible;
  std::vector<int> out;
  std::set<int> seen;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::size_t used = 0;
    int ordinal = -1;
    try {
      if (part.empty() || part[0] == '-' || part[0] == '+') throw std::invalid_argument("bad");
      ordinal = std::stoi(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size())
      throw std::invalid_argument("--gpus: malformed list '" + text + "' (expected 'all' or ordinals such as 0,2,3)");
    if (std::find(visible.begin(), visible.end(), ordinal) == visible.end())
      throw std::invalid_argument("--gpus: no GPU with ordinal " + std::to_string(ordinal) + " (" +
                                  std::to_string(visible.size()) + " visible)");
    if (!seen.insert(ordinal).second)
      throw std::invalid_argument("--gpus: GPU " + std::to_string(ordinal) + " is listed twice");
    out.push_back(ordinal);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace ktune
