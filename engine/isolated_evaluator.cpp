// IsolatedEvaluator: runs GpuEvaluator in a `ktune worker` child (spawned
// with posix_spawn), watches each configuration, kills and restarts the
// worker on a hang, a crash or a lost CUDA context.
#include "engine/isolated_evaluator.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/worker_protocol.hpp"

extern char** environ;

namespace fs = std::filesystem;

namespace ktune {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kStderrTail = 4096;

bool is_executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char* name = ::strsignal(sig);
    return "killed by signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : "");
  }
  if (WIFEXITED(status)) {
    int code = WEXITSTATUS(status);
    if (code == kWorkerContextLostExit) return "exited after losing its CUDA context";
    return "exited with status " + std::to_string(code);
  }
  return "ended (status " + std::to_string(status) + ")";
}

// One running `ktune worker`: its pid, the socket that is its stdin and
// stdout, and the pipe of its stderr (of which the tail is kept for messages).
class WorkerProcess {
 public:
  enum class Read { line, eof, timeout };

  WorkerProcess(const std::string& binary, const std::vector<std::string>& extra_env) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
      throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
    int errp[2];
    if (::pipe2(errp, O_CLOEXEC) != 0) {
      ::close(sv[0]);
      ::close(sv[1]);
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    }
    // The environment is built before spawning: nothing but exec runs in the child.
    std::map<std::string, std::string> env;
    for (char** e = environ; e && *e; ++e) {
      std::string entry(*e);
      auto eq = entry.find('=');
      if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    for (const auto& entry : extra_env) {
      auto eq = entry.find('=');
      if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    std::vector<std::string> env_strings;
    for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::string arg0 = binary, arg1 = "worker";
    char* argv[] = {arg0.data(), arg1.data(), nullptr};

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, sv[1], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, sv[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, errp[1], STDERR_FILENO);
    int rc = ::posix_spawn(&pid_, binary.c_str(), &actions, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(sv[1]);
    ::close(errp[1]);
    if (rc != 0) {
      ::close(sv[0]);
      ::close(errp[0]);
      throw std::runtime_error("cannot start worker " + binary + ": " + std::strerror(rc));
    }
    sock_ = sv[0];
    err_ = errp[0];
  }

  ~WorkerProcess() { stop(); }

  bool send(const std::string& text) {
    const char* p = text.data();
    std::size_t left = text.size();
    while (left > 0) {
      ssize_t n = ::send(sock_, p, left, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    return true;
  }

  // The next stdout line, or eof (the worker closed it), or timeout.
  Read read_line(Clock::time_point deadline, std::string& line) {
    for (;;) {
      auto nl = out_.find('\n');
      if (nl != std::string::npos) {
        line = out_.substr(0, nl);
        out_.erase(0, nl + 1);
        return Read::line;
      }
      if (out_eof_) return Read::eof;
      auto now = Clock::now();
      if (now >= deadline) return Read::timeout;
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1;
      pollfd fds[2] = {{sock_, POLLIN, 0}, {err_, POLLIN, 0}};
      int nfds = err_ >= 0 ? 2 : 1;
      int rc = ::poll(fds, nfds, static_cast<int>(std::min<long long>(ms, 1000)));
      if (rc < 0 && errno != EINTR) return Read::eof;
      if (rc <= 0) continue;
      char buf[65536];
      if (nfds == 2 && (fds[1].revents & (POLLIN | POLLHUP))) {
        ssize_t n = ::read(err_, buf, sizeof buf);
        if (n > 0) {
          err_tail_.append(buf, static_cast<std::size_t>(n));
          if (err_tail_.size() > 2 * kStderrTail) err_tail_.erase(0, err_tail_.size() - kStderrTail);
        } else if (n == 0) {
          ::close(err_);
          err_ = -1;
        }
      }
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        ssize_t n = ::read(sock_, buf, sizeof buf);
        if (n > 0) out_.append(buf, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR) out_eof_ = true;
      }
    }
  }

  // Waits (up to `grace`) for the worker to exit, then kills it; returns a
  // description of how it ended.
  std::string reap(std::chrono::milliseconds grace) {
    if (pid_ <= 0) return exit_text_;
    int status = 0;
    auto deadline = Clock::now() + grace;
    for (;;) {
      pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) break;
      if (r < 0 && errno != EINTR) {
        status = 0;
        break;
      }
      if (Clock::now() >= deadline) {
        ::kill(pid_, SIGKILL);
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    pid_ = -1;
    exit_text_ = describe_exit(status);
    drain_stderr();
    return exit_text_;
  }

  void kill_now() {
    if (pid_ > 0) ::kill(pid_, SIGKILL);
    reap(std::chrono::milliseconds(5000));
  }

  void stop() {
    if (sock_ >= 0) {
      ::shutdown(sock_, SHUT_WR);  // end of input: the worker exits
    }
    if (pid_ > 0) reap(std::chrono::milliseconds(3000));
    if (sock_ >= 0) ::close(sock_);
    if (err_ >= 0) ::close(err_);
    sock_ = err_ = -1;
  }

  std::string stderr_tail() const {
    std::string t = err_tail_.size() > kStderrTail ? err_tail_.substr(err_tail_.size() - kStderrTail) : err_tail_;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
    return t;
  }

 private:
  void drain_stderr() {
    if (err_ < 0) return;
    char buf[65536];
    for (;;) {
      pollfd fd{err_, POLLIN, 0};
      if (::poll(&fd, 1, 50) <= 0) break;
      ssize_t n = ::read(err_, buf, sizeof buf);
      if (n <= 0) break;
      err_tail_.append(buf, static_cast<std::size_t>(n));
    }
  }

  pid_t pid_ = -1;
  int sock_ = -1;
  int err_ = -1;
  std::string out_;
  bool out_eof_ = false;
  std::string err_tail_;
  std::string exit_text_ = "not running";
};

Result failure(const Config& c, Status s, std::string message) {
  Result r;
  r.config = c;
  r.status = s;
  r.message = std::move(message);
  r.metrics["isolated"] = true;
  return r;
}

}  // namespace

std::string find_worker_binary() {
  if (const char* env = std::getenv("KTUNE_BIN"); env && *env) {
    if (is_executable(env)) return env;
  }
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  for (const fs::path& candidate : {exe.parent_path() / "ktune", exe.parent_path().parent_path() / "bin" / "ktune"})
    if (is_executable(candidate)) return candidate.string();
  return {};
}

struct IsolatedEvaluator::Impl {
  const KernelFamily& family;
  Problem problem;
  IsolatedEvaluatorOptions options;
  std::string binary;
  std::string header;
  std::unique_ptr<WorkerProcess> worker;
  DeviceSpec device;
  std::string hash;
  int starts = 0;
  std::optional<double> best_phase_s;

  Impl(const KernelFamily& f, Problem p, IsolatedEvaluatorOptions o)
      : family(f), problem(std::move(p)), options(std::move(o)) {}

  double gpu_limit() const {
    const WatchdogOptions& w = options.watchdog;
    if (!best_phase_s) return w.first_limit_s;
    return std::min(w.cap_s, w.floor_s + w.factor * *best_phase_s);
  }

  // Starts a worker if none runs; throws after max_start_failures in a row.
  void ensure_worker() {
    std::string last_error;
    for (int attempt = 0; attempt < std::max(1, options.max_start_failures); ++attempt) {
      if (worker) return;
      auto w = std::make_unique<WorkerProcess>(binary, options.worker_env);
      std::string line;
      auto deadline = Clock::now() + std::chrono::duration<double>(options.watchdog.startup_limit_s);
      if (!w->send(header)) {
        last_error = "worker closed its input at once (" + w->reap(std::chrono::milliseconds(2000)) + ")";
        continue;
      }
      for (;;) {
        auto got = w->read_line(std::chrono::time_point_cast<Clock::duration>(deadline), line);
        if (got == WorkerProcess::Read::timeout) {
          w->kill_now();
          last_error = "worker not ready after " + std::to_string(options.watchdog.startup_limit_s) + " s";
          break;
        }
        if (got == WorkerProcess::Read::eof) {
          last_error = "worker " + w->reap(std::chrono::milliseconds(2000)) + " before it was ready";
          std::string tail = w->stderr_tail();
          if (!tail.empty()) last_error += "; stderr: " + tail;
          break;
        }
        const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (j.is_discarded()) continue;  // not a protocol line
        const std::string event = j.value("event", "");
        if (event == "ready") {
          device = DeviceSpec::from_json(j.at("device"));
          hash = j.value("family_hash", "");
          worker = std::move(w);
          ++starts;
          return;
        }
        if (event == "error") {
          last_error = j.value("message", "worker setup failed");
          w->reap(std::chrono::milliseconds(2000));
          // A setup error (no GPU, bad problem) will not go away by retrying.
          throw std::runtime_error("ktune worker: " + last_error);
        }
      }
    }
    throw std::runtime_error("ktune worker could not start (" + binary + "): " + last_error);
  }

  // Sends the configurations still without a result and follows the worker
  // until the batch is done or the worker dies or hangs (then the in-flight
  // configuration gets its Result and the worker is dropped).
  void run_batch(std::span<const Config> configs, const std::vector<std::size_t>& batch,
                 std::vector<std::optional<Result>>& results) {
    std::string request;
    for (std::size_t idx : batch)
      request += nlohmann::json{{"config", configs[idx].to_json()}}.dump() + "\n";
    request += "{\"run\":true}\n";
    // The configuration on the GPU (index into configs), kNone when none is.
    constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::size_t in_flight = kNone;
    Clock::time_point started = Clock::now(), last_activity = Clock::now();
    bool context_lost = false;
    std::string lost_message;
    const bool sent = worker->send(request);

    auto first_unreported = [&]() -> std::optional<std::size_t> {
      for (std::size_t idx : batch)
        if (!results[idx]) return idx;
      return std::nullopt;
    };

    for (;;) {
      std::string line;
      WorkerProcess::Read got;
      double limit = 0;
      if (!sent) {
        got = WorkerProcess::Read::eof;
      } else {
        limit = in_flight != kNone ? gpu_limit() : options.watchdog.compile_limit_s;
        auto deadline = (in_flight != kNone ? started : last_activity) + std::chrono::duration_cast<Clock::duration>(
                                                                    std::chrono::duration<double>(limit));
        got = worker->read_line(deadline, line);
      }
      if (got == WorkerProcess::Read::timeout) {
        worker->kill_now();
        worker.reset();
        if (in_flight != kNone) {
          results[in_flight] = failure(configs[in_flight], Status::timeout,
                                        "no result after " + std::to_string(limit) +
                                            " s on the GPU (watchdog); worker killed and restarted");
        } else if (auto victim = first_unreported()) {
          results[*victim] = failure(configs[*victim], Status::timeout,
                                     "worker silent for " + std::to_string(limit) +
                                         " s before running this configuration (compiling?); killed");
        }
        return;
      }
      if (got == WorkerProcess::Read::eof) {
        std::string how = worker->reap(std::chrono::milliseconds(3000));
        std::string tail = worker->stderr_tail();
        worker.reset();
        std::string detail = "worker " + how + (context_lost ? " (" + lost_message + ")" : "") +
                             (tail.empty() ? "" : "; stderr: " + tail);
        if (in_flight != kNone) {
          results[in_flight] = failure(configs[in_flight], Status::launch_error,
                                        "the worker died while this configuration ran on the GPU: " + detail);
        } else if (!context_lost) {
          // Died outside any GPU phase (e.g. in the compiler): charge the
          // next configuration so that the sweep always moves on.
          if (auto victim = first_unreported())
            results[*victim] = failure(configs[*victim], Status::launch_error,
                                       "the worker died before running this configuration: " + detail);
        }
        return;
      }
      last_activity = Clock::now();
      const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded()) continue;  // not a protocol line
      const std::string event = j.value("event", "");
      if (event == "start") {
        std::size_t i = j.at("index").get<std::size_t>();
        if (i < batch.size()) {
          in_flight = batch[i];
          started = Clock::now();
        }
      } else if (event == "result") {
        std::size_t i = j.at("index").get<std::size_t>();
        if (i >= batch.size()) continue;
        std::size_t idx = batch[i];
        try {
          Result r = result_from_json(j.at("result"));
          if (r.ok() && in_flight == idx) {
            double phase = std::chrono::duration<double>(Clock::now() - started).count();
            if (!best_phase_s || phase < *best_phase_s) best_phase_s = phase;
          }
          results[idx] = std::move(r);
        } catch (const std::exception& e) {
          results[idx] = failure(configs[idx], Status::launch_error, std::string("unreadable worker result: ") + e.what());
        }
        if (in_flight == idx) in_flight = kNone;
      } else if (event == "batch_done") {
        for (std::size_t idx : batch)
          if (!results[idx])
            results[idx] = failure(configs[idx], Status::launch_error, "the worker finished the batch without a result for it");
        return;
      } else if (event == "context_lost") {
        context_lost = true;
        lost_message = j.value("message", "context lost");
      } else if (event == "error") {
        // The worker rejected our request: a bug, not a candidate's fault.
        std::string message = j.value("message", "worker error");
        worker->kill_now();
        worker.reset();
        throw std::runtime_error("ktune worker: " + message);
      }
    }
  }
};

IsolatedEvaluator::IsolatedEvaluator(const KernelFamily& family, Problem problem, IsolatedEvaluatorOptions options)
    : impl_(std::make_unique<Impl>(family, family.normalize(problem), std::move(options))) {
  Impl& m = *impl_;
  m.binary = m.options.worker_binary.empty() ? find_worker_binary() : m.options.worker_binary;
  if (m.binary.empty() || !is_executable(m.binary))
    throw std::runtime_error("cannot find the ktune binary to run workers (" +
                             (m.binary.empty() ? std::string("none beside this program") : m.binary) +
                             "); set KTUNE_BIN");
  m.header = nlohmann::json{{"family", std::string(family.name())},
                            {"problem", m.problem.to_json()},
                            {"seed", m.options.gpu.seed},
                            {"options", gpu_options_to_json(m.options.gpu)}}
                 .dump() +
             "\n";
  m.ensure_worker();
}

IsolatedEvaluator::~IsolatedEvaluator() = default;

std::vector<Result> IsolatedEvaluator::evaluate(std::span<const Config> configs) {
  Impl& m = *impl_;
  std::vector<std::optional<Result>> results(configs.size());
  for (;;) {
    std::vector<std::size_t> batch;
    for (std::size_t i = 0; i < configs.size(); ++i)
      if (!results[i]) batch.push_back(i);
    if (batch.empty()) break;
    m.ensure_worker();
    m.run_batch(configs, batch, results);
    // Every round must settle at least one configuration, or a worker that
    // keeps dying without saying why would loop for ever.
    if (std::none_of(batch.begin(), batch.end(), [&](std::size_t i) { return results[i].has_value(); })) {
      Result r;
      r.config = configs[batch.front()];
      r.status = Status::launch_error;
      r.message = "the worker ended without reporting this configuration";
      r.metrics["isolated"] = true;
      results[batch.front()] = std::move(r);
    }
  }
  std::vector<Result> out;
  out.reserve(configs.size());
  for (auto& r : results) out.push_back(std::move(*r));
  return out;
}

const DeviceSpec& IsolatedEvaluator::device() const { return impl_->device; }
const std::string& IsolatedEvaluator::family_hash() const { return impl_->hash; }
int IsolatedEvaluator::restarts() const { return std::max(0, impl_->starts - 1); }

}  // namespace ktune
