// bench_space_bench: speed of Space enumeration (counting, streaming index
// vectors, materialising Configs) and of uniform sampling from a 10^12-point
// space; prints a table and writes bench/results/space-<date>.md.
//
// Usage: bench_space_bench [--out DIR] (other arguments are ignored).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <time.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/info.h>

#include <CLI/CLI.hpp>

#include "space/space.hpp"

namespace {

using ktune::Parameter;
using ktune::Space;
using ktune::ValueIndex;
using ktune::ValueMap;

std::int64_t I(std::int64_t v) { return v; }

/// A GEMM-shaped space (tiles, warp tiles, stages, split-K, vector width,
/// load path, swizzle, rasterisation group) with kernel and device
/// constraints; about a million valid configurations.
Space enumeration_space() {
  Space s(ValueMap{{"smem_max", I(232448)}, {"max_threads", I(1024)}, {"k", I(4096)}});
  s.add(Parameter::pow2_range("BM", 16, 256, 128));
  s.add(Parameter::pow2_range("BN", 16, 256, 128));
  s.add(Parameter::pow2_range("BK", 16, 128, 32));
  s.add(Parameter::pow2_range("WM", 16, 128, 64));
  s.add(Parameter::pow2_range("WN", 16, 128, 64));
  s.add(Parameter::int_range("STAGES", 1, 8, 1, 3));
  s.add(Parameter::pow2_range("SPLIT_K", 1, 16, 1));
  s.add(Parameter::pow2_range("VEC", 1, 8, 4));
  s.add(Parameter::categorical("LOAD", {"plain", "cp_async", "tma"}, "cp_async"));
  s.add(Parameter::boolean("SWIZZLE", true));
  s.add(Parameter::list("GROUP_M", {I(1), I(8), I(16)}, I(8)));
  s.add(Parameter::int_range("PAD", 0, 8, 8, 0));
  s.require("BM % WM == 0 && BN % WN == 0", "warp tile divides block tile");
  s.require("(BM / WM) * (BN / WN) * 32 <= max_threads", "threads per block");
  s.require("(BM / WM) * (BN / WN) >= 2", "at least two warps");
  s.require("STAGES * (BM * (BK + PAD) + BN * (BK + PAD)) * 2 <= smem_max", "shared memory");
  s.require("LOAD != 'plain' || STAGES <= 2", "plain loads do not pipeline deeply");
  s.require("LOAD != 'tma' || (BK >= 32 && PAD == 0)", "TMA tiles");
  s.require("k % (SPLIT_K * BK) == 0", "split-K slices cover k");
  s.require("VEC * 32 <= BK * 8", "vector width fits a tile row");
  s.require("SWIZZLE || PAD > 0 || LOAD == 'tma'", "bank conflicts avoided");
  return s;
}

/// Twelve knobs of ten values each: 10^12 Cartesian points, with constraints
/// that keep a few percent of them.
Space sampling_space() {
  Space s(ValueMap{{"budget", I(60)}});
  for (int p = 0; p < 12; ++p)
    s.add(Parameter::int_range("K" + std::to_string(p), 1, 10, 1, 1));
  s.require("K0 + K1 + K2 + K3 + K4 + K5 <= 24");
  s.require("K6 * K7 <= 30");
  s.require("K8 % 2 == 0 || K9 % 2 == 0");
  s.require("K10 + K11 + K0 <= 18");
  s.require("K0 + K2 + K4 + K6 + K8 + K10 <= budget / 2");
  return s;
}

/// Wall-clock and process CPU seconds of one call. On a shared, overloaded
/// machine the CPU time of a one-thread run is the steadier figure.
struct Timing {
  double wall = 0;
  double cpu = 0;
};

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

template <class F>
Timing seconds(F&& f) {
  const double c0 = process_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
          process_cpu_seconds() - c0};
}

/// Best of `reps` runs: the least disturbed by the other jobs on a shared machine.
template <class F>
Timing best_of(int reps, F&& f) {
  Timing best{1e300, 1e300};
  for (int r = 0; r < reps; ++r) {
    const Timing t = seconds(f);
    if (t.wall < best.wall) best = t;
  }
  return best;
}

std::string shell(const char* cmd) {
  std::string out;
  if (FILE* p = popen(cmd, "r")) {
    char buf[256];
    while (fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

struct Row {
  std::string what;
  std::string threads;
  Timing time;
  std::string note;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"search-space speed: enumeration and sampling"};
  std::filesystem::path out_dir = std::filesystem::path(KTUNE_SOURCE_DIR) / "bench" / "results";
  app.add_option("--out", out_dir, "write the report here")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  std::vector<Row> rows;
  char buf[256];

  const Space enum_space = enumeration_space();
  std::uint64_t valid = 0;
  {
    tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
    // First call builds the plan (groups, binding order); time it apart.
    const Timing plan = seconds([&] { valid = enum_space.count_valid(); });
    std::snprintf(buf, sizeof buf, "%.3g Cartesian points, %llu valid", enum_space.cartesian_size(),
                  static_cast<unsigned long long>(valid));
    rows.push_back({"count_valid, first call (plan + count)", "1", plan, buf});
    rows.push_back({"count_valid", "1", best_of(3, [&] { valid = enum_space.count_valid(); }), ""});
    std::uint64_t visited = 0;
    // A fresh space: the first call includes building the plan and the
    // groups' tables; later calls reuse the cached tables.
    const Space fresh = enumeration_space();
    auto walk = [&](const Space& space) {
      visited = 0;
      space.for_each_valid([&](std::span<const ValueIndex>) { ++visited; });
    };
    rows.push_back({"for_each_valid, first call (plan + group tables + walk)", "1",
                    seconds([&] { walk(fresh); }), "index vectors, no Configs"});
    rows.push_back({"for_each_valid, tables cached", "1", best_of(3, [&] { walk(fresh); }), ""});
    if (visited != valid) {
      std::cerr << "bench_space_bench: for_each_valid visited " << visited << " of " << valid << "\n";
      return 1;
    }
    std::size_t materialised = 0;
    rows.push_back({"enumerate (sorted, materialised Configs)", "1", best_of(1, [&] {
                      materialised = enum_space.enumerate().size();
                    }),
                    ""});
    if (materialised != valid) {
      std::cerr << "bench_space_bench: enumerate gave " << materialised << " of " << valid << "\n";
      return 1;
    }
  }
  {
    const Space fresh = enumeration_space();  // no cached tables
    std::uint64_t n = 0;
    rows.push_back({"count_valid, first call (plan + count)", std::to_string(cores), seconds([&] { n = fresh.count_valid(); }), ""});
    rows.push_back({"count_valid", std::to_string(cores), best_of(3, [&] { n = fresh.count_valid(); }), ""});
    std::size_t materialised = 0;
    rows.push_back({"enumerate (sorted, materialised Configs)", std::to_string(cores),
                    best_of(1, [&] { materialised = fresh.enumerate().size(); }), ""});
  }

  const Space sample_space = sampling_space();
  {
    tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
    std::size_t got = 0;
    const Timing first = seconds([&] { got = sample_space.sample(10000, 1).size(); });
    std::snprintf(buf, sizeof buf, "%.3g Cartesian points, %zu distinct valid samples", sample_space.cartesian_size(), got);
    rows.push_back({"sample(10000), first call (plan + sample)", "1", first, buf});
    rows.push_back({"sample(10000)", "1", best_of(3, [&] { got = sample_space.sample(10000, 2).size(); }), ""});
    if (got != 10000) {
      std::cerr << "bench_space_bench: sample gave " << got << " configurations\n";
      return 1;
    }
    const auto configs = sample_space.sample(1000, 3);
    std::size_t valid_count = 0;
    const Timing check = best_of(3, [&] {
      valid_count = 0;
      for (const auto& c : configs) valid_count += sample_space.is_valid(c);
    });
    rows.push_back({"is_valid(Config) x 1000", "1", check, ""});
    std::size_t neighbour_count = 0;
    const auto gemm_configs = enum_space.sample(1000, 4);
    const Timing neigh = best_of(3, [&] {
      neighbour_count = 0;
      for (const auto& c : gemm_configs) neighbour_count += enum_space.neighbours(c).size();
    });
    std::snprintf(buf, sizeof buf, "GEMM space, %zu neighbours in all", neighbour_count);
    rows.push_back({"neighbours(Config) x 1000", "1", neigh, buf});
  }

  // Provenance.
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  char stamp[64];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  const std::string commit =
      shell(("git -C '" + std::string(KTUNE_SOURCE_DIR) + "' rev-parse --short=10 HEAD 2>/dev/null").c_str());
  // Tracked changes to the code measured here (others' untracked files do not count).
  const std::string dirty = shell(("git -C '" + std::string(KTUNE_SOURCE_DIR) +
                                   "' status --porcelain --untracked-files=no -- space bench/space_bench.cpp "
                                   "2>/dev/null | head -1")
                                      .c_str());
  std::string load;
  {
    std::ifstream in("/proc/loadavg");
    std::getline(in, load);
  }
  const std::string model = cpu_model();

  std::ostringstream table;
  table << "| measurement | threads | wall s | CPU s | note |\n|---|---:|---:|---:|---|\n";
  for (const auto& r : rows) {
    std::snprintf(buf, sizeof buf, "%.4f | %.4f", r.time.wall, r.time.cpu);
    table << "| " << r.what << " | " << r.threads << " | " << buf << " | " << r.note << " |\n";
  }
  std::cout << "Space benchmark, " << stamp << ", commit " << commit << (dirty.empty() ? "" : " (modified)")
            << ", " << cores << " cores, " << model << "\n\n"
            << table.str();

  std::filesystem::create_directories(out_dir);
  const auto path = out_dir / ("space-" + std::string(date) + ".md");
  std::ofstream md(path);
  md << "# Space benchmark, " << date << "\n\n"
     << "Written by `bench_space_bench` (bench/space_bench.cpp); every figure below is\n"
     << "measured by that run, best of 3 repetitions (by wall time) unless noted\n"
     << "(first calls and enumerate: one run). CPU s is the process CPU time of the\n"
     << "call (for one-thread rows, the time the work itself took on one core).\n\n"
     << "- date: " << stamp << "\n"
     << "- commit: " << commit << (dirty.empty() ? "" : " (with uncommitted changes in space/ or bench/)") << "\n"
     << "- machine: " << cores << " cores (nproc), " << model << "; shared with other jobs\n"
     << "- load average at the end of the run (/proc/loadavg): " << load << "\n"
     << "- TBB: threads limited with tbb::global_control (\"1\" = one core)\n\n"
     << "Spaces (synthetic, defined in bench/space_bench.cpp):\n\n"
     << "- enumeration: GEMM-shaped, 12 parameters, 9 constraints, " << enum_space.cartesian_size()
     << " Cartesian points, " << valid << " valid\n"
     << "- sampling: 12 integer knobs of 10 values (" << sample_space.cartesian_size()
     << " Cartesian points), 5 constraints\n\n"
     << table.str() << "\n"
     << "Targets: enumerate a space of ~10^6 valid configurations in under 1 s on one core\n"
     << "(for_each_valid / count_valid: index vectors, no Configs); 10,000 samples from a\n"
     << "10^12-point space in under 1 s. Materialising a million Configs (std::map of\n"
     << "Values each) is measured separately.\n";
  std::cout << "\nwrote " << path.string() << "\n";
  return 0;
}
