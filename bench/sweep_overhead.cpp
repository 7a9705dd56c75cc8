// bench_sweep_overhead: what the distributed sweep's coordination costs. The
// same one-item sweep runs through the single-process path (run_sweep), the
// local-worker path with one worker, and (under mpirun, --mpi) the MPI path
// with one evaluating rank per extra rank; it reports configurations per
// second of each. On a replay the evaluation itself is nearly free, so the
// gap is the coordination cost per configuration (messages, threads), not
// what a GPU sweep would see.
// Usage: bench_sweep_overhead [--recording FILE | --kernel NAME --problem TEXT]
//                             [--budget N] [--batch B] [--repeat R] [--mpi]
//        mpirun -np 2 bench_sweep_overhead --mpi
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "compile/version.hpp"
#include "engine/distributed_evaluator.hpp"
#include "engine/local_workers.hpp"
#include "engine/mpi_sweep.hpp"

using namespace ktune;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

namespace {

struct Args {
  std::string recording = std::string(KTUNE_SOURCE_DIR) + "/tests/data/recorded/synthetic_gemm_like.json";
  std::string kernel;
  std::string problem;
  std::size_t budget = 0;  // 0: every recorded configuration (replay) or 64 (GPU)
  std::size_t batch = 8;
  int repeat = 5;
  bool mpi = false;
};

Args parse(int argc, char** argv) {
  Args a;
  CLI::App app{"bench_sweep_overhead: coordination cost of the distributed sweep paths\n"
               "  under MPI: mpirun -np 2 bench_sweep_overhead --mpi"};
  app.add_option("--recording", a.recording, "Recorded space to replay (default: the synthetic fixture)");
  app.add_option("--kernel", a.kernel, "Kernel family, for a GPU item instead of a replay");
  app.add_option("--problem", a.problem, "Problem keys of the GPU item");
  app.add_option("--budget", a.budget, "Configurations (0: the whole recording, or 64 on the GPU)");
  app.add_option("--batch", a.batch, "Configurations per batch")->capture_default_str();
  app.add_option("--repeat", a.repeat, "Repetitions of each path (median reported)")->capture_default_str();
  app.add_flag("--mpi", a.mpi, "Also measure the MPI path (run under mpirun)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  return a;
}

/// One item: exhaustive (the same configurations every run), no resume, no
/// warm start, so each repetition evaluates the full budget again.
std::vector<SweepItem> bench_items(const Args& a) {
  json run = {{"strategy", "exhaustive"}, {"batch", a.batch}, {"resume", false}, {"warm_start", false}};
  if (!a.kernel.empty()) {
    run["kernel"] = a.kernel;
    run["problems"] = {a.problem};
    run["budget"] = a.budget ? a.budget : 64;
  } else {
    run["replay"] = a.recording;
    run["budget"] = a.budget ? a.budget : 1000000;  // capped by the recording: exhausted
  }
  return parse_sweep(json{{"runs", json::array({run})}}, {}, "bench sweep").items;
}

struct Mode {
  std::string name;
  std::vector<double> seconds;
  std::size_t configs = 0;
};

/// Runs the sweep `repeat` times into a fresh in-memory database each time.
Mode measure(const std::string& name, const Args& a, const std::vector<SweepItem>& items, WorkerTransport* transport) {
  Mode m{name, {}, 0};
  for (int r = 0; r < a.repeat; ++r) {
    Store store = Store::open(":memory:");
    std::ostringstream quiet;
    auto start = Clock::now();
    std::vector<SweepOutcome> out = transport ? run_distributed_sweep(items, store, *transport, nullptr, quiet)
                                              : run_sweep(items, store, nullptr, quiet);
    m.seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    if (!out.at(0).report) throw std::runtime_error(name + ": " + out.at(0).error);
    m.configs = out[0].report->measured.size();
  }
  return m;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void report(const Args& a, const std::vector<Mode>& modes) {
  char when[32];
  std::time_t now = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::cout << "bench_sweep_overhead " << version_text() << ", " << when << "\n"
            << "item: " << (a.kernel.empty() ? "replay " + a.recording : a.kernel + " " + a.problem)
            << ", exhaustive, batch " << a.batch << ", " << a.repeat << " repetitions (median)\n";
  double base = 0;
  json out = json::array();
  for (const Mode& m : modes) {
    double s = median(m.seconds);
    double rate = s > 0 ? static_cast<double>(m.configs) / s : 0;
    if (base == 0) base = s;
    double per_config_us = m.configs ? (s - base) / static_cast<double>(m.configs) * 1e6 : 0;
    std::printf("  %-26s %5zu configs  %9.4f s  %10.0f configs/s  overhead vs single %+8.1f us/config\n",
                m.name.c_str(), m.configs, s, rate, per_config_us);
    out.push_back({{"mode", m.name}, {"configs", m.configs}, {"median_s", s}, {"seconds", m.seconds}});
  }
  std::cout << "json: " << out.dump() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Args a = parse(argc, argv);
    std::vector<SweepItem> items = bench_items(a);
    if (!a.mpi) {
      std::vector<Mode> modes;
      modes.push_back(measure("single process", a, items, nullptr));
      std::vector<LocalWorker> one;
      one.push_back({"worker 0", default_worker_factory([] { return 0; })});
      LocalWorkerTransport transport(std::move(one));
      modes.push_back(measure("local workers: 1", a, items, &transport));
      report(a, modes);
      return 0;
    }
    MpiSession session;
    if (session.rank() != 0) {
      mpi_serve(session, items);
      return 0;
    }
    std::unique_ptr<WorkerTransport> transport = make_mpi_transport(session);
    std::vector<Mode> modes;
    modes.push_back(measure("single process", a, items, nullptr));
    {
      std::vector<LocalWorker> one;
      one.push_back({"worker 0", default_worker_factory([] { return 0; })});
      LocalWorkerTransport local(std::move(one));
      modes.push_back(measure("local workers: 1", a, items, &local));
    }
    modes.push_back(measure("MPI evaluating ranks: " + std::to_string(transport->size()), a, items, transport.get()));
    report(a, modes);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_sweep_overhead: %s\n", e.what());
    return 1;
  }
}
