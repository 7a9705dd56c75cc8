// bench_db_bench: speed of the tuning database: batched inserts, lookup
// latency (repeated and cold nearest-shape) over a million results, merge.
// The databases hold synthetic results (seeded random times, not measurements):
// what is measured here is the database, not any kernel.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "db/lookup.hpp"
#include "db/merge.hpp"
#include "db/store.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using namespace ktune;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// CPU time of this process: on a shared, loaded machine it says what the
// work cost, where wall time also counts the waits for a core.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a;
  in >> a;
  return a;
}

DeviceSpec bench_device(const std::string& name) {
  DeviceSpec d;
  d.name = name;
  d.cc_major = 9;
  d.cc_minor = 0;
  d.driver = "bench";
  d.cuda_runtime = "13.0";
  d.sm_count = 132;
  return d;
}

std::vector<Config> bench_configs(std::size_t n) {
  std::vector<Config> out;
  for (std::int64_t bm : {32, 64, 128, 256})
    for (std::int64_t bn : {32, 64, 128, 256})
      for (std::int64_t st : {2, 3, 4, 5})
        for (std::int64_t sk : {1, 2})
          if (out.size() < n)
            out.push_back(Config{{"BLOCK_M", bm}, {"BLOCK_N", bn}, {"STAGES", st}, {"SPLIT_K", sk},
                                 {"LOADS", std::string("cp.async")}});
  return out;
}

Problem random_problem(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> log_size(6.0, 14.0);  // 64 .. 16384
  auto dim = [&] { return static_cast<std::int64_t>(std::llround(std::exp2(log_size(rng)))); };
  return Problem{{"m", dim()}, {"n", dim()}, {"k", dim()}, {"dtype", std::string("bf16")},
                 {"layout", std::string("nn")}};
}

RunKey key_for(const Problem& p, const DeviceSpec& d) {
  RunKey key;
  key.device = d;
  key.family = "gemm";
  key.family_hash = "bench-hash";
  key.problem = p;
  key.shape_keys = {"m", "n", "k"};
  key.shape_class = "dtype=bf16,layout=nn";
  return key;
}

// Fills `path` with problems x configs synthetic results, in batches of one
// problem each. Returns the problems.
std::vector<Problem> fill(const std::string& path, std::size_t problems, std::size_t configs_per_problem,
                          const DeviceSpec& device, const std::string& source, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> noise(0.8, 1.6);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto configs = bench_configs(configs_per_problem);
  Store store = Store::open(path);
  Provenance prov{"bench-host", "bench", source, ""};
  std::vector<Problem> out;
  std::vector<Result> batch;
  for (std::size_t i = 0; i < problems; ++i) {
    Problem p = random_problem(rng);
    double flops = 2.0 * p.integer("m") * p.integer("n") * p.integer("k");
    batch.clear();
    for (const auto& c : configs) {
      Result r;
      r.config = c;
      if (unit(rng) < 0.02) {
        r.status = Status::wrong_result;
      } else {
        r.status = Status::ok;
        double t = flops / 400e12 * noise(rng) + 3e-6;
        r.time = {t, t * 0.98, t * 1.05, 0.01, 20};
        r.tflops = flops / t * 1e-12;
      }
      batch.push_back(std::move(r));
    }
    store.record(key_for(p, device), batch, prov);
    out.push_back(std::move(p));
  }
  return out;
}

struct Percentiles {
  double p50, p99, max;
};
Percentiles percentiles(std::vector<double> ns) {
  std::sort(ns.begin(), ns.end());
  auto at = [&](double q) { return ns[std::min(ns.size() - 1, static_cast<std::size_t>(q * ns.size()))]; };
  return {at(0.50), at(0.99), ns.back()};
}

std::string machine() {
  std::ifstream cpu("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(cpu, line))
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return model + ", " + std::to_string(::sysconf(_SC_NPROCESSORS_ONLN)) + " cores";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tuning database benchmark: insert, merge, lookup latency"};
  std::string out_dir, base_dir;
  app.add_option("--out", out_dir, "write the report here");
  app.add_option("--dir", base_dir, "where the benchmark databases live (default: the temp folder)");
  CLI11_PARSE(app, argc, argv);
  namespace fs = std::filesystem;
  fs::path work = (base_dir.empty() ? fs::temp_directory_path() : fs::path(base_dir)) /
                  ("ktune_db_bench_" + std::to_string(::getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  std::ostringstream report;
  auto line = [&](const std::string& s) {
    std::printf("%s\n", s.c_str());
    std::fflush(stdout);
    report << s << "\n";
  };
  char buf[512];
  line("# ktune db bench");
  line("");
  line("Synthetic databases (seeded random times, not measurements) in " + work.parent_path().string() +
       "; machine: " + machine() + "; load average at start " + load_average() + ".");
  line("Wall time, with this process's CPU time in brackets where they differ on a loaded machine.");
  line("");
  line("| what | figure | target |");
  line("|---|---|---|");

  // 1. Insert 100,000 results: 1,000 batches (one problem x 100 configurations each).
  {
    std::string path = (work / "insert.db").string();
    auto t0 = Clock::now();
    double c0 = cpu_seconds();
    fill(path, 1000, 100, bench_device("Bench GPU A"), "insert", 1);
    double s = seconds_since(t0), c = cpu_seconds() - c0;
    std::snprintf(buf, sizeof buf, "| insert 100,000 results (1,000 batches of 100, file DB, WAL) | %.2f s [cpu %.2f s] (%.0f results/s) | < 2 s |",
                  s, c, 100000 / s);
    line(buf);
  }
  // 2. A database of 1,000,000 results: 10,000 problems x 100 configurations.
  std::string big_a = (work / "a.db").string();
  std::vector<Problem> problems;
  {
    auto t0 = Clock::now();
    double c0 = cpu_seconds();
    problems = fill(big_a, 10000, 100, bench_device("Bench GPU A"), "team-a", 2);
    std::snprintf(buf, sizeof buf, "| build DB A: 1,000,000 results (10,000 problems x 100 configs) | %.1f s [cpu %.1f s] | - |",
                  seconds_since(t0), cpu_seconds() - c0);
    line(buf);
  }
  {
    auto t0 = Clock::now();
    double c0 = cpu_seconds();
    Lookup lookup = Lookup::open(big_a);
    std::snprintf(buf, sizeof buf, "| open (integrity check) + index 1,000,000 results for lookup (%zu entries) | %.2f s [cpu %.2f s] | - |",
                  lookup.indexed_entries(), seconds_since(t0), cpu_seconds() - c0);
    line(buf);

    // Cold nearest-shape lookups: every request a new (unmeasured) shape.
    std::mt19937_64 rng(3);
    std::vector<LookupRequest> cold;
    for (int i = 0; i < 2000; ++i) {
      LookupRequest r;
      r.family = "gemm";
      r.problem = random_problem(rng);
      r.device = "Bench GPU A";
      r.arch = "sm_90";
      r.shape_keys = {"m", "n", "k"};
      r.shape_class = "dtype=bf16,layout=nn";
      cold.push_back(std::move(r));
    }
    std::vector<double> ns;
    int nearest = 0;
    for (const auto& r : cold) {
      auto t = Clock::now();
      auto a = lookup.best(r);
      ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t).count());
      nearest += a && a->source == LookupSource::nearest;
    }
    auto pc = percentiles(ns);
    std::snprintf(buf, sizeof buf,
                  "| cold nearest-shape lookup, 1M results (2,000 new shapes, %d answered nearest) | p50 %.1f us, p99 %.1f us, max %.1f us | < 50 us |",
                  nearest, pc.p50 / 1e3, pc.p99 / 1e3, pc.max / 1e3);
    line(buf);

    // Repeated lookups: 1,000 measured problems, asked again and again.
    std::vector<LookupRequest> hot;
    for (int i = 0; i < 1000; ++i) {
      LookupRequest r;
      r.family = "gemm";
      r.problem = problems[static_cast<std::size_t>(i) * 7 % problems.size()];
      r.device = "Bench GPU A";
      r.arch = "sm_90";
      r.shape_keys = {"m", "n", "k"};
      r.shape_class = "dtype=bf16,layout=nn";
      hot.push_back(std::move(r));
    }
    for (const auto& r : hot) lookup.best(r);  // first ask fills the cache
    ns.clear();
    int exact = 0;
    for (int round = 0; round < 200; ++round)
      for (const auto& r : hot) {
        auto t = Clock::now();
        auto a = lookup.best(r);
        ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t).count());
        exact += a && a->source == LookupSource::exact;
      }
    pc = percentiles(ns);
    std::snprintf(buf, sizeof buf,
                  "| repeated lookup (1,000 problems x 200 rounds, %d exact of %zu) | p50 %.2f us, p99 %.2f us | p50 < 1 us, p99 < 5 us |",
                  exact, ns.size(), pc.p50 / 1e3, pc.p99 / 1e3);
    line(buf);
  }
  // 3. Merge two databases of 1,000,000 results each.
  {
    std::string big_b = (work / "b.db").string();
    auto t0 = Clock::now();
    double c0 = cpu_seconds();
    fill(big_b, 10000, 100, bench_device("Bench GPU B"), "team-b", 4);
    std::snprintf(buf, sizeof buf, "| build DB B: 1,000,000 results | %.1f s [cpu %.1f s] | - |", seconds_since(t0),
                  cpu_seconds() - c0);
    line(buf);
    std::string merged = (work / "c.db").string();
    t0 = Clock::now();
    c0 = cpu_seconds();
    MergeSummary m = merge_databases({big_a, big_b}, merged);
    double s = seconds_since(t0);
    std::snprintf(buf, sizeof buf, "| merge A + B (1,000,000 + 1,000,000 results) into a new C (%lld results) | %.1f s [cpu %.1f s] | < 30 s |",
                  static_cast<long long>(m.output_total), s, cpu_seconds() - c0);
    line(buf);
  }
  fs::remove_all(work);
  if (!out_dir.empty()) {
    fs::create_directories(out_dir);
    std::ofstream(fs::path(out_dir) / "db_bench.md") << report.str();
  }
  return 0;
}
