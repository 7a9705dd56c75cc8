// bench_rowwise_bench: quick tuning of reduce / softmax / rmsnorm on tensors
// of >= 256 MB (rows >= 1024 elements) on the local GPU; GB/s (bytes read +
// written), % of the device-to-device copy bandwidth measured in the same run,
// and the ratio to PyTorch eager on the same shapes (python3 + torch, CUDA
// events around ten back-to-back calls, median: timed as our kernels are, with
// their launches queued). Every timed configuration was verified first.
// Usage: bench_rowwise_bench [--out DIR] [--sample N] [--neighbours N] [--only TEXT]... [--warm
// JSON]
//        [--seeds-only] [--no-torch] [--list]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include "compile/compiler.hpp"
#include "compile/version.hpp"
#include "emit/splitter.hpp"
#include "kernels_templated/family.hpp"
#include "kernels_templated/harness.hpp"
#include "kernels_templated/rowwise/gpu/cubin_runner.hpp"
#include "kernels_templated/rowwise/rowwise_family.hpp"
#include "measure/timing.hpp"
#include "space/space.hpp"

namespace fs = std::filesystem;
using namespace ktune;

namespace {

struct Shape {
  std::string family;
  std::string problem;
};

// Every tensor is 256 MiB of input with rows of >= 1024 elements.
const std::vector<Shape>& shapes() {
  static const std::vector<Shape> all = {
      {"softmax", "rows=32768,cols=4096,dtype=bf16"},
      {"softmax", "rows=16384,cols=4096,dtype=fp32"},
      {"softmax", "rows=4096,cols=32768,dtype=fp16"},
      {"softmax", "rows=256,cols=524288,dtype=bf16"},
      {"rmsnorm", "rows=32768,cols=4096,dtype=bf16"},
      {"rmsnorm", "rows=16384,cols=4096,dtype=fp32"},
      {"rmsnorm", "rows=16384,cols=8192,dtype=fp16"},
      {"rmsnorm", "rows=1024,cols=131072,dtype=bf16"},
      {"reduce", "rows=32768,cols=4096,dtype=bf16,op=sum,axis=last"},
      {"reduce", "rows=65536,cols=1024,dtype=fp32,op=sum,axis=last"},
      {"reduce", "rows=4096,cols=32768,dtype=fp16,op=max,axis=last"},
      {"reduce", "rows=32768,cols=4096,dtype=bf16,op=sum,axis=rows"},
      {"reduce", "rows=16384,cols=4096,dtype=fp32,op=max,axis=rows"},
  };
  return all;
}

struct Measured {
  Config config;
  bool ok = false;
  double seconds = 0;
  bool noisy = false;  ///< the repetitions ended above the spread target
  std::string failure;
};

struct ShapeOutcome {
  Shape shape;
  Problem problem;
  std::vector<Measured> measured;
  /// The fastest verified configuration measured so far, if any.
  const Config* best_config() const {
    const Measured* b = nullptr;
    for (const Measured& m : measured)
      if (m.ok && (!b || m.seconds < b->seconds)) b = &m;
    return b ? &b->config : nullptr;
  }
  int failures = 0;
  const Measured* best = nullptr;
  double min_bytes = 0;
  double torch_seconds = 0;
};

class Bench {
 public:
  Bench(int sample, int neighbours, bool seeds_only)
      : sample_(sample), neighbours_(neighbours), seeds_only_(seeds_only), compiler_(options()) {
    device_ = *find_builtin_device("h200");
    int dev = 0;
    cudaDeviceProp prop{};
    cudaGetDevice(&dev);
    cudaGetDeviceProperties(&prop, dev);
    device_.name = prop.name;
    device_.sm_count = prop.multiProcessorCount;
    device_.l2_bytes = prop.l2CacheSize;
    cudaStreamCreate(&stream_);
  }
  ~Bench() { cudaStreamDestroy(stream_); }
  std::size_t flush_bytes() const { return flush_.bytes(); }

  const DeviceSpec& device() const { return device_; }

  // Compiles, verifies and times `configs` on the prepared harness.
  std::vector<Measured> evaluate(const KernelFamily& f, const Problem& p, FamilyHarness& h,
                                 const std::vector<Config>& configs) {
    std::vector<KernelSource> sources;
    for (const Config& c : configs) sources.push_back(f.source(p, c));
    const std::vector<CompileOutput> outs = compiler_.compile_all(sources);
    std::vector<Measured> result;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      Measured m;
      m.config = configs[i];
      if (!outs[i].ok) {
        m.failure = "compile_error";
        result.push_back(m);
        continue;
      }
      std::vector<std::string> lowered;
      for (const auto& k : outs[i].kernels) lowered.push_back(k.lowered_name);
      rowwise::LoadedCubin cubin(outs[i].cubin, lowered);
      if (!cubin.ok()) {
        m.failure = "load: " + cubin.error();
        result.push_back(m);
        continue;
      }
      rowwise::RunCheck check = rowwise::run_and_verify(h, configs[i], cubin.kernels(), stream_);
      if (check.launch != cudaSuccess) {
        m.failure = std::string("launch_error: ") + cudaGetErrorString(check.launch);
        cudaGetLastError();
      } else if (!check.verification.passed) {
        m.failure = "wrong_result: " + check.verification.detail;
      } else {
        // Timed as `ktune tune` times (measure/timing.hpp).
        const LaunchFn launch = [&](cudaStream_t s) {
          return h.launch(configs[i], cubin.kernels(), s);
        };
        const TimedLaunches t =
            time_launches(std::span<const LaunchFn>(&launch, 1), stream_, TimingOptions{}, &flush_,
                          [this](double) { return cudaStreamSynchronize(stream_); });
        m.seconds = t.error == cudaSuccess ? t.stats.front().median_s : 0;
        m.noisy = t.noisy;
        m.ok = m.seconds > 0;
        if (!m.ok) m.failure = std::string("timing failed: ") + t.failed_phase;
      }
      result.push_back(m);
    }
    return result;
  }

  // `seeds`: configurations known good elsewhere (the bests of the family's
  // shapes tuned earlier in this run, a previous run's bests); measured first
  // where valid for this shape, like a tuning database's warm start.
  ShapeOutcome tune(const Shape& shape, const std::vector<Config>& seeds) {
    const KernelFamily& f = find_family(shape.family);
    ShapeOutcome out;
    out.shape = shape;
    out.problem = parse_problem(f, shape.problem);
    out.min_bytes = f.min_bytes(out.problem);
    const Space space = f.space(out.problem, device_);
    auto harness = make_harness(shape.family);
    harness->prepare(out.problem, 2026);

    // Guided sample: two thirds from the configurations that move the fewest
    // DRAM bytes (the family's estimate) with the widest accesses the shape
    // allows, one third uniform; then the default.
    const std::vector<Config> pool = space.sample(3000, 1129);
    double least = 1e300;
    long long widest = 1;
    const int bytes = out.problem.text("dtype") == "fp32" ? 4 : 2;
    for (const Config& c : pool) {
      least = std::min(least, f.estimate(out.problem, c, device_).dram_bytes);
      widest = std::max<long long>(widest, c.integer("vec") * bytes);
    }
    std::vector<Config> lean, rest;
    for (const Config& c : pool) {
      const bool is_lean = f.estimate(out.problem, c, device_).dram_bytes <= least * 1.0001 &&
                           c.integer("vec") * bytes == widest;
      (is_lean ? lean : rest).push_back(c);
    }
    // A seed written before a knob existed (a previous run's bests) takes
    // that knob's default; its other values are kept as given.
    std::vector<Config> completed;
    for (Config c : seeds) {
      for (const Parameter& knob : space.parameters())
        if (!c.contains(knob.name())) c.set(knob.name(), knob.default_value());
      completed.push_back(std::move(c));
    }
    std::vector<Config> first;
    for (const Config& c : completed)
      if (space.is_valid(c)) first.push_back(c);
    if (seeds_only_) {
      // Exactly the given configurations, in order (A/B timing, profiling).
      for (const Config& c : completed)
        if (!space.is_valid(c))
          std::printf("  seed not valid for this shape: %s\n", c.key().c_str());
      std::set<std::string> seen;
      std::vector<Config> batch;
      for (const Config& c : first)
        if (seen.insert(c.key()).second) batch.push_back(c);
      out.measured = evaluate(f, out.problem, *harness, batch);
      for (const Measured& m : out.measured) {
        if (m.ok)
          std::printf("  seed %7.0f GB/s  %s\n", out.min_bytes / m.seconds / 1e9,
                      m.config.key().c_str());
        else
          std::printf("  seed FAILED (%s)  %s\n", m.failure.c_str(), m.config.key().c_str());
        out.failures += m.ok ? 0 : 1;
      }
      return out;
    }
    const std::size_t want_lean = static_cast<std::size_t>(sample_) * 2 / 3;
    for (std::size_t i = 0; i < lean.size() && first.size() < want_lean;
         i += std::max<std::size_t>(1, lean.size() / want_lean))
      first.push_back(lean[i]);
    for (std::size_t i = 0; i < rest.size() && static_cast<int>(first.size()) < sample_;
         i += std::max<std::size_t>(1, rest.size() / static_cast<std::size_t>(sample_)))
      first.push_back(rest[i]);
    // Rows too long for one block: the configurations that hold the whole
    // row on chip across a cluster (a sliver of the space the sample above
    // rarely reaches: 5 of 100 in the v2 run's softmax 1 MiB rows).
    if (const auto* rw = dynamic_cast<const rowwise::RowwiseFamily*>(&f)) {
      const std::vector<Config> on_chip = rw->on_chip_row_configs(out.problem, device_);
      first.insert(first.end(), on_chip.begin(), on_chip.end());
      if (!on_chip.empty()) std::printf("  + %zu on-chip cluster configurations\n", on_chip.size());
    }
    first.push_back(f.default_config(out.problem, device_));
    std::set<std::string> seen;
    std::vector<Config> batch;
    for (const Config& c : first)
      if (seen.insert(c.key()).second) batch.push_back(c);
    out.measured = evaluate(f, out.problem, *harness, batch);
    // A small local search: rounds of neighbours (one knob changed) around
    // the three fastest so far, so a second knob can move after the first.
    constexpr int kRounds = 3;
    for (int round = 0; round < kRounds; ++round) {
      std::vector<const Measured*> ranked;
      for (const Measured& m : out.measured)
        if (m.ok) ranked.push_back(&m);
      std::sort(ranked.begin(), ranked.end(),
                [](auto a, auto b) { return a->seconds < b->seconds; });
      const int budget = (neighbours_ * (round + 1)) / kRounds - (neighbours_ * round) / kRounds;
      std::vector<Config> next;
      for (std::size_t r = 0; r < std::min<std::size_t>(3, ranked.size()); ++r)
        for (const Config& n : space.neighbours(ranked[r]->config))
          if (static_cast<int>(next.size()) < budget && seen.insert(n.key()).second)
            next.push_back(n);
      if (next.empty()) break;
      std::vector<Measured> more = evaluate(f, out.problem, *harness, next);
      out.measured.insert(out.measured.end(), more.begin(), more.end());
    }
    for (const Measured& m : out.measured) {
      if (!m.ok) {
        ++out.failures;
        if (out.failures <= 3)
          std::fprintf(stderr, "  failed %s: %s\n", m.config.key().c_str(), m.failure.c_str());
      }
    }
    // The fastest of each way to hold a row (and of clusters): which
    // mechanisms win on this shape, for the notes.
    std::map<std::string, const Measured*> best_of;
    for (const Measured& m : out.measured) {
      if (!m.ok) continue;
      const long long cluster = m.config.integer_or("cluster", 1);
      const std::string kind = m.config.text_or("row_cache", "-") +
                               (cluster > 1 ? "+cluster" + std::to_string(cluster) : "") +
                               (m.config.integer_or("split", 1) > 1 ? "+split" : "");
      if (!best_of[kind] || m.seconds < best_of[kind]->seconds) best_of[kind] = &m;
    }
    for (const auto& [kind, m] : best_of)
      std::printf("  best %-22s %7.0f GB/s  %s\n", kind.c_str(), out.min_bytes / m->seconds / 1e9,
                  m->config.key().c_str());
    return out;
  }

  // Times every shape's best configuration of one family+axis on every other
  // shape of it (when valid there), so the splitter has a full table.
  std::vector<ShapeTuning> cross_table(std::vector<ShapeOutcome*> group) {
    // Each shape's best, plus the first shape's default configuration (scalar
    // accesses: valid on every shape, so a general fallback always exists).
    std::vector<Config> bests;
    for (ShapeOutcome* o : group)
      if (o->best && std::find(bests.begin(), bests.end(), o->best->config) == bests.end())
        bests.push_back(o->best->config);
    const Config portable =
        find_family(group.front()->shape.family).default_config(group.front()->problem, device_);
    if (std::find(bests.begin(), bests.end(), portable) == bests.end()) bests.push_back(portable);
    std::vector<ShapeTuning> table;
    for (ShapeOutcome* o : group) {
      const KernelFamily& f = find_family(o->shape.family);
      const Space space = f.space(o->problem, device_);
      ShapeTuning t;
      t.problem = o->problem;
      std::vector<Config> todo;
      for (const Config& c : bests) {
        bool measured = false;
        for (const Measured& m : o->measured)
          if (m.config == c) {
            measured = true;
            Result r;
            r.config = c;
            r.status = m.ok ? Status::ok : Status::wrong_result;
            r.time.median_s = m.seconds;
            t.results.push_back(r);
          }
        if (!measured && space.is_valid(c)) todo.push_back(c);
      }
      if (!todo.empty()) {
        auto harness = make_harness(o->shape.family);
        harness->prepare(o->problem, 2026);
        for (const Measured& m : evaluate(f, o->problem, *harness, todo)) {
          Result r;
          r.config = m.config;
          r.status = m.ok ? Status::ok : Status::wrong_result;
          r.time.median_s = m.seconds;
          t.results.push_back(r);
        }
      }
      table.push_back(std::move(t));
    }
    return table;
  }

  // Device-to-device copy of a 1 GiB buffer, bytes read + written per second.
  double copy_bandwidth() {
    const std::size_t bytes = std::size_t{1} << 30;
    void *a = nullptr, *b = nullptr;
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) return 0;
    cudaMemset(
        a, 0x5a,
        bytes);  // copied bytes' values do not change a memcpy's speed; never timed on fresh pages
    cudaMemset(b, 0x3c, bytes);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<double> times;
    for (int i = 0; i < 23; ++i) {
      cudaEventRecord(e0, stream_);
      cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, stream_);
      cudaEventRecord(e1, stream_);
      cudaEventSynchronize(e1);
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      if (i >= 3) times.push_back(ms * 1e-3);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(a);
    cudaFree(b);
    std::sort(times.begin(), times.end());
    return 2.0 * static_cast<double>(bytes) / times[times.size() / 2] / 1e9;
  }

 private:
  static CompilerOptions options() {
    CompilerOptions o;
    o.arch = "sm_90";
    return o;
  }
  int sample_, neighbours_;
  bool seeds_only_;
  Compiler compiler_;
  DeviceSpec device_;
  cudaStream_t stream_ = nullptr;
  L2Flush flush_{L2Flush::device_l2_bytes()};  ///< twice the L2, before every timed launch
};

// PyTorch eager's seconds per call on each shape, two ways (see med() below).
struct TorchTimes {
  explicit TorchTimes(std::size_t shapes) : batched(shapes, 0), single_call(shapes, 0) {}
  std::vector<double> batched;      // ten back-to-back calls per event pair: the ratio's
  std::vector<double> single_call;  // one call per event pair, the host's dispatch included
};

// PyTorch eager on the same shapes: one python3 process, medians in seconds.
TorchTimes torch_times(const std::vector<ShapeOutcome>& outcomes) {
  std::ostringstream py;
  py << "import torch\n"
        "torch.manual_seed(0)\n"
        "dt = {'fp32': torch.float32, 'bf16': torch.bfloat16, 'fp16': torch.float16}\n"
        // Seconds per call, median of 21: `calls` back-to-back calls between two
        // events. One call per event pair also times the host's dispatch of the
        // call (the GPU idles until the kernel arrives); ten calls hide it, as
        // queuing our kernels' launches back to back does (median_launch_seconds).
        "def med(fn, calls):\n"
        "    for _ in range(5): fn()\n"
        "    ts = []\n"
        "    for _ in range(21):\n"
        "        a = torch.cuda.Event(enable_timing=True); b = "
        "torch.cuda.Event(enable_timing=True)\n"
        "        a.record()\n"
        "        for _ in range(calls): fn()\n"
        "        b.record(); b.synchronize(); ts.append(a.elapsed_time(b) * 1e-3 / calls)\n"
        "    ts.sort(); return ts[len(ts) // 2]\n"
        "cases = [\n";
  for (const ShapeOutcome& o : outcomes) {
    const Problem& p = o.problem;
    py << "  ('" << o.shape.family << "', '" << p.text("dtype") << "', " << p.integer("rows")
       << ", " << p.integer("cols") << ", '" << p.text_or("op", "") << "', '"
       << p.text_or("axis", "last") << "'),\n";
  }
  py << "]\n"
        "for i, (fam, d, rows, cols, op, axis) in enumerate(cases):\n"
        "    x = (torch.rand(rows, cols, device='cuda', dtype=torch.float32) * 2 - 1).to(dt[d])\n"
        "    if fam == 'softmax': fn = lambda: torch.softmax(x, dim=-1)\n"
        "    elif fam == 'rmsnorm':\n"
        "        w = (torch.rand(cols, device='cuda') + 0.5).to(dt[d])\n"
        "        fn = lambda: torch.nn.functional.rms_norm(x, (cols,), w, 1e-6)\n"
        "    else:\n"
        "        dim = -1 if axis == 'last' else 0\n"
        "        fn = (lambda: torch.sum(x, dim=dim)) if op == 'sum' else (lambda: torch.amax(x, "
        "dim=dim))\n"
        "    try:\n"
        "        print('TORCH', i, med(fn, 10), med(fn, 1), flush=True)\n"
        "    except Exception as e:\n"
        "        print('TORCHERR', i, repr(e), flush=True)\n"
        "    del x; torch.cuda.empty_cache()\n";
  const fs::path script = fs::temp_directory_path() / "ktune_rowwise_torch_eager.py";
  std::ofstream(script) << py.str();
  TorchTimes times(outcomes.size());
  const std::string cmd = "python3 " + script.string() + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return times;
  char line[4096];
  while (std::fgets(line, sizeof line, pipe)) {
    std::fputs(line, stdout);
    int i = 0;
    double batched = 0, single = 0;
    if (std::sscanf(line, "TORCH %d %lf %lf", &i, &batched, &single) == 3 && i >= 0 &&
        i < static_cast<int>(outcomes.size())) {
      times.batched[i] = batched;
      times.single_call[i] = single;
    }
  }
  pclose(pipe);
  return times;
}

std::string today() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path out_dir = ".";
  // About 150 configurations per shape: seeds, a guided sample, then three
  // rounds of neighbours around the three fastest.
  int sample = 100, neighbours = 50;
  std::vector<std::string> only;
  fs::path warm;
  bool torch = true;
  CLI::App app{
      "row-wise families (reduce, softmax, rmsnorm) tuned against the copy bandwidth and PyTorch"};
  bool no_torch = false;
  app.add_option("--out", out_dir, "write the report here");
  app.add_option("--sample", sample, "guided sample per shape")->capture_default_str();
  app.add_option("--neighbours", neighbours, "neighbours of the fastest per shape")
      ->capture_default_str();
  app.add_option(
      "--only", only,
      "tune only the shapes whose 'family problem' contains TEXT (repeat: any of them), e.g. "
      "--only cols=524288 --only cols=131072");
  app.add_option(
      "--warm", warm,
      "a previous run's rowwise-bench.json; its best configurations seed every shape of the same "
      "family (timed again here)");
  app.add_flag("--no-torch", no_torch, "skip the PyTorch comparison");
  bool seeds_only = false;
  app.add_flag("--seeds-only", seeds_only,
               "time only the --warm configurations valid for each shape (no sample, on-chip seeds "
               "or neighbours)");
  bool list = false;
  app.add_flag("--list", list, "print the shapes --only selects and exit (no GPU needed)");
  CLI11_PARSE(app, argc, argv);
  torch = !no_torch;
  auto selected = [&](const Shape& s) {
    const std::string label = s.family + " " + s.problem;
    return only.empty() || std::any_of(only.begin(), only.end(), [&](const std::string& text) {
             return label.find(text) != std::string::npos;
           });
  };
  if (list) {
    for (const Shape& s : shapes())
      if (selected(s)) std::printf("%s %s\n", s.family.c_str(), s.problem.c_str());
    return 0;
  }
  if (seeds_only && warm.empty()) {
    std::fprintf(stderr, "--seeds-only needs --warm JSON (the configurations to time)\n");
    return 2;
  }
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::fprintf(stderr, "bench_rowwise_bench needs a GPU: %s\n",
                 e != cudaSuccess ? cudaGetErrorString(e) : "no device");
    return 1;
  }
  fs::create_directories(out_dir);
  const auto t0 = std::chrono::steady_clock::now();
  Bench bench(sample, neighbours, seeds_only);
  const double copy_gbps = bench.copy_bandwidth();
  std::printf("device %s, %d SMs; D2D copy %.0f GB/s (read + write)\n", bench.device().name.c_str(),
              bench.device().sm_count, copy_gbps);

  // Seeds per family: a previous run's bests (--warm), then each shape's best
  // as this run goes (transfer to the family's later shapes).
  std::map<std::string, std::vector<Config>> seeds;
  if (!warm.empty()) {
    std::ifstream in(warm);
    if (!in) {
      std::fprintf(stderr, "cannot read --warm %s\n", warm.string().c_str());
      return 2;
    }
    const nlohmann::json previous = nlohmann::json::parse(in);
    for (const auto& row : previous.at("rows"))
      seeds[row.at("family").get<std::string>()].push_back(ValueMap::from_json(row.at("config")));
    std::printf("warm start: %zu configurations from %s\n", previous.at("rows").size(),
                warm.string().c_str());
  }
  std::vector<ShapeOutcome> outcomes;
  outcomes.reserve(shapes().size());
  for (const Shape& s : shapes()) {
    if (!selected(s)) continue;
    std::printf("tuning %s %s ...\n", s.family.c_str(), s.problem.c_str());
    std::fflush(stdout);
    outcomes.push_back(bench.tune(s, seeds[s.family]));
    if (outcomes.back().best_config()) seeds[s.family].push_back(*outcomes.back().best_config());
    // One line per tuned shape as it completes: what a run cut short still leaves.
    const ShapeOutcome& o = outcomes.back();
    nlohmann::json line = {
        {"family", s.family}, {"problem", s.problem}, {"min_bytes", o.min_bytes}};
    nlohmann::json all = nlohmann::json::array();
    for (const Measured& m : o.measured)
      all.push_back({{"config", m.config.key()}, {"seconds", m.seconds}, {"failure", m.failure}});
    line["measured"] = all;
    std::ofstream(out_dir / "rowwise-progress.jsonl", std::ios::app) << line.dump() << "\n";
  }
  for (ShapeOutcome& o : outcomes)
    for (const Measured& m : o.measured)
      if (m.ok && (!o.best || m.seconds < o.best->seconds)) o.best = &m;

  // Splitter over each family (+ axis) on real cross-measured data.
  nlohmann::json dispatches = nlohmann::json::array();
  std::map<std::string, std::vector<ShapeOutcome*>> by_family;
  for (ShapeOutcome& o : outcomes)
    by_family[o.shape.family + "." + o.problem.text_or("axis", "last")].push_back(&o);
  std::ostringstream split_md, headers;
  for (auto& [name, group] : by_family) {
    try {
      std::vector<ShapeTuning> table = bench.cross_table(group);
      Dispatch d = split_kernels(group.front()->shape.family, table, rowwise_grouping());
      dispatches.push_back(d.to_json());
      split_md << "| " << name << " | " << group.size() << " | " << d.routes.size() << " | "
               << d.geomean_speedup << " | `" << d.general.key() << "` |\n";
      headers << "// ===== " << name << "\n" << d.header_text() << "\n";
    } catch (const std::exception& ex) {
      split_md << "| " << name << " | " << group.size() << " | - | - | " << ex.what() << " |\n";
    }
  }

  std::ofstream(out_dir / "rowwise-dispatch.hpp.txt") << headers.str();
  TorchTimes torch_t(outcomes.size());
  if (torch) torch_t = torch_times(outcomes);
  const std::vector<double>& torch_s = torch_t.batched;

  std::ostringstream md;
  md << "Device: " << bench.device().name << " (" << bench.device().sm_count << " SMs); date "
     << today() << "; ktune " << tool_version() << "\n\n"
     << (seeds_only ? "Configurations per shape: exactly those of --warm " +
                          warm.filename().string() + " valid for it (--seeds-only)"
                    : "Search per shape: a guided sample of " + std::to_string(sample) +
                          ", up to " + std::to_string(neighbours) +
                          " neighbours in 3 rounds around the three fastest, the bests of the "
                          "family's earlier shapes" +
                          (warm.empty() ? std::string()
                                        : ", and the bests of a previous run (--warm " +
                                              warm.filename().string() + ")"))
     << "; every configuration verified (random and edge inputs), then timed as ktune tune times "
        "(measure/timing.hpp: "
     << bench.flush_bytes() / (1 << 20)
     << " MiB L2 flush before each launch, warm-up, repetitions to a spread of "
     << TimingOptions{}.target_spread << " or the cap; (noisy) where it was missed).\n\n"
     << "D2D copy bandwidth (cudaMemcpy of 1 GiB, read + write, median of 20): " << std::fixed
     << std::setprecision(0) << copy_gbps << " GB/s\n\n"
     << "PyTorch eager: seconds per call, median of 21 event pairs around 10 back-to-back calls "
        "(the host's "
        "dispatch hidden, as our launches are); one call per pair, which also times the dispatch, "
        "is "
        "`torch_single_call_seconds` in the JSON.\n\n"
     << "| family | shape | dtype | GB/s | % of copy | PyTorch GB/s | ratio to PyTorch | both "
        "targets | time (us) | tried / failed | configuration |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|\n";
  int meeting = 0;
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const ShapeOutcome& o = outcomes[i];
    const Problem& p = o.problem;
    std::string shape = std::to_string(p.integer("rows")) + "x" + std::to_string(p.integer("cols"));
    if (o.shape.family == "reduce") shape += " " + p.text("op") + " axis=" + p.text("axis");
    char buf[512];
    if (!o.best) {
      md << "| " << o.shape.family << " | " << shape << " | " << p.text("dtype")
         << " | no verified configuration | | | | no | | " << o.measured.size() << " / "
         << o.failures << " | |\n";
      continue;
    }
    const double gbps = o.min_bytes / o.best->seconds / 1e9;
    const double torch_gbps = torch_s[i] > 0 ? o.min_bytes / torch_s[i] / 1e9 : 0;
    const double ratio = torch_s[i] > 0 ? torch_s[i] / o.best->seconds : 0;
    // Targets (issue 8): >= 85% of the copy bandwidth and >= 1.3x PyTorch eager.
    const bool both = gbps >= 0.85 * copy_gbps && ratio >= 1.3;
    meeting += both ? 1 : 0;
    char torch_col[32] = "n/a", ratio_col[32] = "n/a";
    if (torch_gbps > 0) std::snprintf(torch_col, sizeof torch_col, "%.0f", torch_gbps);
    if (ratio > 0) std::snprintf(ratio_col, sizeof ratio_col, "%.3fx", ratio);
    std::snprintf(buf, sizeof buf,
                  "| %s | %s | %s | %.0f | %.1f%% | %s | %s | %s | %.1f%s | %zu / %d | `%s` |\n",
                  o.shape.family.c_str(), shape.c_str(), p.text("dtype").c_str(), gbps,
                  100 * gbps / copy_gbps, torch_col, ratio_col, both ? "yes" : "no",
                  o.best->seconds * 1e6, o.best->noisy ? " (noisy)" : "", o.measured.size(),
                  o.failures, o.best->config.key().c_str());
    md << buf;
    nlohmann::json all = nlohmann::json::array();
    for (const Measured& m : o.measured)
      all.push_back({{"config", m.config.key()},
                     {"ok", m.ok},
                     {"seconds", m.seconds},
                     {"noisy", m.noisy},
                     {"failure", m.failure}});
    rows.push_back({{"family", o.shape.family},
                    {"problem", p.key()},
                    {"gbps", gbps},
                    {"measured", all},
                    {"copy_fraction", gbps / copy_gbps},
                    {"seconds", o.best->seconds},
                    {"torch_seconds", torch_s[i]},
                    {"torch_single_call_seconds", torch_t.single_call[i]},
                    {"ratio_to_torch", ratio},
                    {"tried", o.measured.size()},
                    {"failed", o.failures},
                    {"config", o.best->config.to_json()}});
  }
  md << "\nShapes meeting both targets (>= 85% of copy, >= 1.3x PyTorch): " << meeting << " of "
     << outcomes.size() << "\n";
  md << "\nKernel splitter over the bench shapes (each shape's best configuration timed on the "
        "family's other shapes):\n\n"
     << "| family.axis | shapes | routes | geomean speedup over one general config | general "
        "config / note |\n"
     << "|---|---|---|---|---|\n"
     << split_md.str();
  md << "\nWall time of the bench: "
     << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s\n";
  std::printf("\n%s", md.str().c_str());
  std::ofstream(out_dir / "rowwise-bench.md") << md.str();
  nlohmann::json j = {{"device", bench.device().name},
                      {"copy_gbps", copy_gbps},
                      {"rows", rows},
                      {"dispatches", dispatches},
                      {"tool_version", tool_version()}};
  std::ofstream(out_dir / "rowwise-bench.json") << j.dump(2);
  return 0;
}
