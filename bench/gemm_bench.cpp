// gemm benchmark: the tuned gemm configurations against cuBLAS in the same run.
// Suite "ampere": the mma.sync path (bf16 4096^3 and 8192^3, layout nn, with
// path=mma on sm_90), the SIMT path (fp32 4096^3), misaligned leading
// dimensions near 4096^3 against the aligned shape. Suite "hopper": the wgmma
// path (layout nt) at 4096^3, 8192^3 and the LLM shape set, with the geometric
// mean of the ratios. Suite "hopper-layouts": the wgmma path in every layout
// at 4096^3 and 8192^3, each against cuBLAS in the same layout. Suite
// "hopper-dtypes": the wgmma path's tf32 against cuBLAS's TF32 mode
// (CUBLAS_COMPUTE_32F_FAST_TF32) and fp8 against cuBLASLt's FP8 matmul with
// the same scales, at 4096^3 and 8192^3.
// Results are written as they come: the log line by line, and each case's
// table row to stdout and OUT/gemm-bench-rows.md as soon as it is measured,
// so a run cut by a time limit keeps every shape it finished. Kernels compile
// through the on-disk cache (default_compile_cache_dir(): $KTUNE_CACHE_DIR).
// Usage: bench_gemm_bench [--out DIR]
//                         [--suite ampere|hopper|hopper-square|hopper-layouts|hopper-dtypes|all]
//                         [--layouts nt,nn,tn,tt]   (hopper-layouts: these layouts only)
//                         [--llm]   (hopper-layouts: also the LLM shape set in each layout)
//                         [--dtypes tf32,e4m3]      (hopper-dtypes: these element types only)
//        bench_gemm_bench --problem KEYS --config KEY [--config KEY ...]   (time exactly these)
// A timed launch that has not finished after 10 s is taken for a hang (a
// deadlocking configuration): the bench says so and exits with status 3.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/gemm_bench_case.hpp"
#include "compile/compiler.hpp"
#include "compile/version.hpp"
#include "kernels_templated/gemm/gemm_family.hpp"
#include "kernels_templated/gemm/gpu/gemm_harness.hpp"
#include "measure/nvml.hpp"
#include "measure/timing.hpp"

namespace {

using namespace ktune;
using namespace ktune::gemm_bench;

/// The bench's log: every write goes to stdout and (once opened) to a file,
/// each line flushed, so a run cut by a time limit keeps what it logged.
class LiveLog : public std::streambuf {
 public:
  void open(const std::filesystem::path& file) { file_.open(file, std::ios::trunc); }

 protected:
  int overflow(int c) override {
    if (c != traits_type::eof()) {
      const char ch = static_cast<char>(c);
      write(&ch, 1);
    }
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    write(s, n);
    return n;
  }
  int sync() override {
    std::fflush(stdout);
    file_.flush();
    return 0;
  }

 private:
  void write(const char* s, std::streamsize n) {
    std::fwrite(s, 1, static_cast<std::size_t>(n), stdout);
    if (file_.is_open()) file_.write(s, n);
    if (std::find(s, s + n, '\n') != s + n) sync();
  }
  std::ofstream file_;
};

std::string table_row(const CaseResult& r);

/// NVRTC through the on-disk cache: a carried, precompiled cache on the lent GPU.
CompilerOptions cached_compiles() {
  CompilerOptions options;
  options.cache_dir = default_compile_cache_dir();
  return options;
}

/// What every case needs: the device, the compiler, a stream, the L2 flush
/// buffer, the log; and where each case's row goes as soon as it is measured.
struct Bench {
  DeviceSpec device;
  Compiler compiler{cached_compiles()};
  cudaStream_t stream = nullptr;
  std::unique_ptr<L2Flush> flush;  ///< twice the device's L2 (measure/timing.hpp)
  LiveLog log_buffer;
  std::ostream log{&log_buffer};
  CaseExtras extras;           ///< --all-in-turns, --sustain-ms (see run_case)
  std::filesystem::path rows;  ///< OUT/gemm-bench-rows.md; empty without --out

  CaseResult run(const std::string& label, const Problem& p, const std::vector<Config>& start,
                 int climb_rounds, std::size_t verify_top, bool allow_split = false) {
    CaseResult r = run_case(label, p, device, start, climb_rounds, compiler, stream, flush.get(),
                            log, verify_top, allow_split, extras);
    const std::string row = table_row(r);
    log << "row (" << label << "): " << row << std::flush;
    if (!rows.empty()) std::ofstream(rows, std::ios::app) << row;
    return r;
  }
};

Problem problem(const std::string& t) { return parse_problem(gemm_family(), t); }

double tuned_tflops(const CaseResult& r) { return r.best.verified ? r.tflops(r.best.ms) : 0; }

std::string table_row(const CaseResult& r) {
  const double tuned = tuned_tflops(r), blas = r.tflops(r.cublas_ms);
  char line[640];
  std::snprintf(line, sizeof line,
                "| %lldx%lldx%lld | %s | %s | %lld/%lld/%lld | %.1f | %.1f | %.2f | `%s` |\n",
                static_cast<long long>(r.problem.integer("m")),
                static_cast<long long>(r.problem.integer("n")),
                static_cast<long long>(r.problem.integer("k")), r.problem.text("dtype").c_str(),
                r.problem.text("layout").c_str(), static_cast<long long>(r.problem.integer("lda")),
                static_cast<long long>(r.problem.integer("ldb")),
                static_cast<long long>(r.problem.integer("ldc")), tuned, blas,
                blas > 0 ? tuned / blas : 0,
                r.best.verified ? r.best.config.key().c_str() : "(none verified)");
  return line;
}

constexpr const char* kTableHeader =
    "| shape | dtype | layout | ld a/b/c | tuned TFLOP/s | cuBLAS TFLOP/s | tuned / cuBLAS | best "
    "configuration |\n"
    "|---|---|---|---|---|---|---|---|\n";

/// Appends to `seeds` a copy of each of them with `knob` set to `value`.
void append_with(std::vector<Config>& seeds, const char* knob, const Value& value) {
  for (std::size_t i = 0, n = seeds.size(); i < n; ++i) {
    Config c = seeds[i];
    c.set(knob, value);
    seeds.push_back(c);
  }
}

/// The mma.sync and SIMT paths, and the misaligned leading dimensions.
std::string run_ampere_suite(Bench& b) {
  std::vector<Config> tc_seeds = {tc(128, 256, 32, 64, 64, 4, 8),  tc(256, 128, 32, 64, 64, 4, 8),
                                  tc(128, 128, 32, 64, 64, 4, 8),  tc(128, 256, 64, 64, 64, 3, 8),
                                  tc(256, 128, 64, 64, 64, 3, 8),  tc(128, 128, 64, 64, 32, 3, 8),
                                  tc(128, 256, 32, 64, 64, 3, 16), tc(256, 128, 32, 64, 64, 5, 8),
                                  tc(128, 128, 64, 64, 64, 3, 8),  tc(128, 128, 32, 64, 64, 5, 8),
                                  tc(128, 128, 32, 64, 64, 4, 4),  tc(128, 128, 32, 64, 64, 4, 16)};
  // The same tiles with C staged through shared memory (where it fits the ring).
  append_with(tc_seeds, "STAGE_C", true);
  std::vector<Config> simt_seeds = {simt(128, 128, 8, 32, 64, 8), simt(128, 128, 16, 32, 64, 8),
                                    simt(128, 256, 8, 64, 32, 8), simt(256, 128, 8, 64, 32, 8),
                                    simt(128, 128, 8, 64, 32, 8), simt(64, 128, 8, 32, 32, 8)};
  // The same tiles with registers capped for two resident blocks per SM.
  append_with(simt_seeds, "MIN_BLOCKS", std::int64_t{2});
  const DeviceSpec& d = b.device;
  std::vector<CaseResult> results;
  // path=mma: on sm_90, 16-bit problems of every layout would take the wgmma path.
  const Problem bf4k = problem("m=4096,n=4096,k=4096,dtype=bf16,path=mma");
  results.push_back(b.run("bf16 4096^3", bf4k, candidates(bf4k, d, tc_seeds, 16, 11), 2, 4));
  // 8192^3: the six fastest of 4096^3, re-timed, plus a few random ones.
  std::vector<Config> top;
  for (std::size_t i = 0; i < results[0].ranked.size() && i < 6; ++i)
    top.push_back(results[0].ranked[i].config);
  const Problem bf8k = problem("m=8192,n=8192,k=8192,dtype=bf16,path=mma");
  results.push_back(b.run("bf16 8192^3", bf8k, candidates(bf8k, d, top, 2, 12), 1, 2));
  const Problem fp4k = problem("m=4096,n=4096,k=4096,dtype=fp32");
  results.push_back(b.run("fp32 4096^3", fp4k, candidates(fp4k, d, simt_seeds, 12, 13), 2, 4));
  // Misaligned seeds: the usual tiles with narrow loads in the K loop, and
  // repacked (one extra copy of A and B to aligned rows, then 16-byte loads).
  std::vector<Config> mis_seeds;
  for (Config c : tc_seeds) {
    c.set("REPACK", true);
    mis_seeds.push_back(c);
    c.set("REPACK", false);
    c.set("VEC", std::int64_t{4});
    mis_seeds.push_back(c);
  }
  const Problem mis4 =
      problem("m=4096,n=4096,k=4096,dtype=bf16,lda=4100,ldb=4100,ldc=4100,path=mma");
  results.push_back(
      b.run("bf16 4096^3, ld=4100", mis4, candidates(mis4, d, mis_seeds, 4, 14), 1, 4));
  const Problem mis1 =
      problem("m=4096,n=4096,k=4096,dtype=bf16,lda=4097,ldb=4097,ldc=4097,path=mma");
  results.push_back(
      b.run("bf16 4096^3, ld=4097", mis1, candidates(mis1, d, mis_seeds, 8, 15), 1, 4));

  std::ostringstream table;
  table << "## mma.sync and SIMT paths\n\n" << kTableHeader;
  for (const CaseResult& r : results) table << table_row(r);
  const double aligned = tuned_tflops(results[0]);
  for (std::size_t i = 3; i < results.size(); ++i) {
    char line[256];
    std::snprintf(line, sizeof line, "\n%s: tuned %.1f TFLOP/s = %.2f x the aligned 4096^3 (%.1f)",
                  results[i].label.c_str(), tuned_tflops(results[i]),
                  aligned > 0 ? tuned_tflops(results[i]) / aligned : 0, aligned);
    table << line;
  }
  table << "\n\n";
  return table.str();
}

/// Starting points of the wgmma searches at the square shapes (repaired into
/// each problem's space: an N-major B takes BLOCK_N in steps of 64).
std::vector<Config> hopper_seeds() {
  return {wg(128, 256, 64, 4, 8, false), wg(128, 256, 64, 4, 8, true),
          wg(128, 128, 64, 6, 8, false), wg(128, 128, 64, 6, 8, true),
          wg(256, 128, 128, 4, 8, false), wg(256, 128, 128, 4, 8, true),
          wg(128, 192, 64, 5, 8, true), wg(128, 256, 64, 4, 16, true),
          wg(128, 128, 128, 6, 8, true), wg(64, 256, 64, 6, 8, true),
          wg(128, 256, 64, 4, 8, true, 1, 2), wg(128, 256, 64, 4, 8, false, 1, 2),
          wg(128, 256, 64, 4, 16, true, 1, 2), wg(128, 192, 64, 5, 8, true, 1, 2),
          wg(256, 128, 128, 4, 8, true, 1, 2), wg(128, 128, 64, 6, 8, true, 1, 2),
          // pingpong: one consumer's epilogue under the other's main loop
          wg(128, 128, 128, 6, 8, true, 1, 1, true), wg(128, 128, 128, 6, 8, true, 1, 2, true),
          wg(64, 256, 64, 5, 8, true, 1, 1, true), wg(64, 256, 64, 5, 8, true, 1, 2, true),
          wg(128, 128, 128, 6, 16, true, 1, 2, true),
          // C staged through shared memory (16-byte row segments)
          wg(128, 256, 64, 4, 8, true, 1, 1, false, true),
          wg(128, 256, 64, 4, 8, true, 1, 2, false, true),
          wg(128, 128, 128, 6, 8, true, 1, 2, true, true),
          wg(128, 128, 128, 6, 8, true, 1, 1, true, true),
          wg(128, 224, 64, 4, 8, false, 1, 1, false, true)};
}

/// The LLM shapes (M 128-8192; N, K in {4096, 11008, 14336}) in one layout,
/// searched from `top` (the best at 4096^3) and seeds for small M (narrow
/// blocks, split-K); `seed` starts the random samples.
std::vector<CaseResult> run_llm_set(Bench& b, const std::string& layout,
                                    const std::vector<Config>& top, std::uint64_t seed) {
  std::vector<Config> llm_seeds(top.begin(), top.begin() + std::min<std::size_t>(top.size(), 4));
  for (int split : {1, 2, 4}) {
    llm_seeds.push_back(wg(64, 128, 64, 8, 8, true, split));
    llm_seeds.push_back(wg(128, 128, 64, 6, 8, true, split));
    llm_seeds.push_back(wg(128, 128, 64, 6, 8, true, split, 2));
    llm_seeds.push_back(wg(128, 128, 128, 6, 8, true, split, 2, true));
  }
  llm_seeds.push_back(wg(128, 128, 128, 6, 8, true, 1, 2, true, true));
  llm_seeds.push_back(wg(64, 128, 64, 8, 8, true, 1, 1, false, true));
  std::vector<CaseResult> llm;
  for (int m : {128, 512, 2048, 8192})
    for (auto [n, k] : std::vector<std::pair<int, int>>{
             {4096, 4096}, {11008, 4096}, {4096, 11008}, {14336, 4096}, {4096, 14336}}) {
      const Problem p = problem("m=" + std::to_string(m) + ",n=" + std::to_string(n) +
                                ",k=" + std::to_string(k) + ",dtype=bf16,layout=" + layout);
      llm.push_back(b.run("llm " + layout, p, candidates(p, b.device, llm_seeds, 6, seed++, true),
                          1, 2, true));
    }
  return llm;
}

/// The geometric mean of tuned / cuBLAS over the LLM shapes, as a table line.
std::string llm_geomean_line(const std::vector<CaseResult>& llm) {
  double log_sum = 0;
  int counted = 0;
  for (const CaseResult& r : llm) {
    const double ratio = tuned_tflops(r) / r.tflops(r.cublas_ms);
    if (ratio > 0) {
      log_sum += std::log(ratio);
      ++counted;
    }
  }
  const std::string layout =
      llm.empty() ? "" : " (" + llm.front().problem.text_or("layout", "nt") + ")";
  char line[200];
  std::snprintf(
      line, sizeof line,
      "\nLLM shape set%s: geometric mean of tuned / cuBLAS = %.3f over %d of %zu shapes\n\n",
      layout.c_str(), counted ? std::exp(log_sum / counted) : 0.0, counted, llm.size());
  return line;
}

/// The wgmma path: 4096^3, 8192^3 and (with_llm) the LLM shapes, with their
/// geometric mean. Given configurations replace the search at 4096^3 and
/// 8192^3 (time exactly these: for a profiler run on one kernel).
std::string run_hopper_suite(Bench& b, bool with_llm, const std::vector<Config>& only) {
  const std::vector<Config> seeds = hopper_seeds();
  const DeviceSpec& d = b.device;
  std::vector<CaseResult> square;
  const Problem p4k = problem("m=4096,n=4096,k=4096,dtype=bf16,layout=nt");
  square.push_back(only.empty()
                       ? b.run("bf16 4096^3 nt", p4k, candidates(p4k, d, seeds, 12, 21), 2, 4)
                       : b.run("bf16 4096^3 nt", p4k, only, 0, only.size()));
  std::vector<Config> top;
  for (std::size_t i = 0; i < square[0].ranked.size() && i < 6; ++i)
    top.push_back(square[0].ranked[i].config);
  const Problem p8k = problem("m=8192,n=8192,k=8192,dtype=bf16,layout=nt");
  square.push_back(only.empty() ? b.run("bf16 8192^3 nt", p8k, candidates(p8k, d, top, 2, 22), 1, 2)
                                : b.run("bf16 8192^3 nt", p8k, only, 0, only.size()));
  // Misaligned leading dimensions near 4096^3 (cuBLAS loses most of its rate
  // there): the wgmma path repacks A and B to aligned rows first.
  std::vector<CaseResult> misaligned;
  if (only.empty()) {
    std::vector<Config> repacked;
    for (Config c : top) {
      c.set("REPACK", true);
      repacked.push_back(c);
    }
    for (const char* ld : {"4097", "4100"}) {
      const Problem p = problem(std::string("m=4096,n=4096,k=4096,dtype=bf16,layout=nt,lda=") + ld +
                                ",ldb=" + ld + ",ldc=" + ld);
      misaligned.push_back(b.run(std::string("bf16 4096^3 nt, ld=") + ld, p,
                                 candidates(p, d, repacked, 2, 23), 0, 2));
    }
  }

  const std::vector<CaseResult> llm =
      with_llm ? run_llm_set(b, "nt", top, 30) : std::vector<CaseResult>{};
  std::ostringstream table;
  table << "## wgmma path (Hopper)\n\n" << kTableHeader;
  for (const CaseResult& r : square) table << table_row(r);
  for (const CaseResult& r : misaligned) table << table_row(r);
  for (const CaseResult& r : llm) table << table_row(r);
  if (with_llm) table << llm_geomean_line(llm);
  const double aligned = tuned_tflops(square[0]);
  for (const CaseResult& r : misaligned) {
    char mis[256];
    std::snprintf(mis, sizeof mis,
                  "%s: tuned %.1f TFLOP/s = %.2f x the aligned 4096^3 nt (%.1f), %.2f x cuBLAS\n",
                  r.label.c_str(), tuned_tflops(r), aligned > 0 ? tuned_tflops(r) / aligned : 0,
                  aligned, tuned_tflops(r) / r.tflops(r.cublas_ms));
    table << mis;
  }
  return table.str();
}

/// The hopper suite's seeds at another element type: BLOCK_K set to its one
/// value (a 128-byte row); the ring's bytes per stage, hence what fits, are the same.
std::vector<Config> seeds_for(const Problem& p, const DeviceSpec& d, std::vector<Config> seeds) {
  const Value block_k = gemm_family().default_config(p, d).at("BLOCK_K");
  for (Config& c : seeds) c.set("BLOCK_K", block_k);
  return seeds;
}

/// tf32 and fp8 on the wgmma path at 4096^3 and 8192^3 (layout nt, and tf32
/// nn: B transposed to K-major first), each against cuBLAS's own mode for it.
std::string run_dtypes_suite(Bench& b, const std::vector<std::string>& dtypes) {
  const std::vector<Config> seeds = {wg(128, 256, 64, 4, 8, true),
                                     wg(128, 128, 64, 6, 8, true),
                                     wg(256, 128, 128, 4, 8, true),
                                     wg(128, 192, 64, 5, 8, true),
                                     wg(128, 256, 64, 4, 8, true, 1, 2),
                                     wg(128, 128, 128, 6, 8, true, 1, 1, true),
                                     wg(128, 128, 128, 6, 8, true, 1, 2, true),
                                     wg(128, 256, 64, 4, 8, true, 1, 1, false, true),
                                     wg(128, 128, 128, 6, 8, true, 1, 2, true, true),
                                     wg(64, 256, 64, 6, 8, true)};
  const DeviceSpec& d = b.device;
  std::vector<CaseResult> results;
  for (const std::string& name : dtypes) {
    const std::string dtype =
        name == "tf32" ? "dtype=tf32" : "dtype=e4m3,out=bf16,scale_a=0.5,scale_b=2";
    const Problem p4k = problem(std::string("m=4096,n=4096,k=4096,layout=nt,") + dtype);
    results.push_back(b.run(name + " 4096^3 nt", p4k,
                            candidates(p4k, d, seeds_for(p4k, d, seeds), 12, 41), 2, 4));
    std::vector<Config> top;
    for (std::size_t i = 0; i < results.back().ranked.size() && i < 6; ++i)
      top.push_back(results.back().ranked[i].config);
    const Problem p8k = problem(std::string("m=8192,n=8192,k=8192,layout=nt,") + dtype);
    results.push_back(b.run(name + " 8192^3 nt", p8k, candidates(p8k, d, top, 2, 42), 1, 2));
    if (name == "tf32") {
      // The transposing copy of B (layout nn) in front of the same kernels.
      const Problem nn = problem("m=4096,n=4096,k=4096,layout=nn,dtype=tf32");
      results.push_back(b.run("tf32 4096^3 nn", nn, candidates(nn, d, top, 2, 43), 0, 2));
    }
  }
  std::ostringstream table;
  table << "## wgmma path, tf32 (against cuBLAS TF32) and fp8 (against cuBLASLt FP8, fast "
           "accumulation)\n\n"
        << kTableHeader;
  for (const CaseResult& r : results) table << table_row(r);
  table << "\n";
  return table.str();
}

/// The wgmma path in every layout (bf16 4096^3 and 8192^3), each against
/// cuBLAS in the same layout: nt reads A and B K-major, nn an N-major B, tn
/// both MN-major, tt an M-major A. Each 8192^3 search starts from the six
/// fastest of its layout's 4096^3.
std::string run_hopper_layouts_suite(Bench& b, const std::vector<std::string>& layouts,
                                     bool with_llm) {
  const std::vector<Config> seeds = hopper_seeds();
  std::vector<CaseResult> results;
  const std::vector<std::string> every = {"nt", "nn", "tn", "tt"};
  std::vector<std::vector<CaseResult>> llm_of;  // with_llm: each layout's LLM set
  for (const std::string& layout : layouts) {
    // The same seeds for a layout whether it runs alone or with the others.
    std::uint64_t seed =
        50 + 2 * static_cast<std::uint64_t>(std::find(every.begin(), every.end(), layout) -
                                            every.begin());
    const Problem p4k = problem("m=4096,n=4096,k=4096,dtype=bf16,layout=" + layout);
    results.push_back(
        b.run("bf16 4096^3 " + layout, p4k, candidates(p4k, b.device, seeds, 12, seed++), 2, 4));
    std::vector<Config> top;
    for (std::size_t i = 0; i < results.back().ranked.size() && i < 6; ++i)
      top.push_back(results.back().ranked[i].config);
    const Problem p8k = problem("m=8192,n=8192,k=8192,dtype=bf16,layout=" + layout);
    results.push_back(
        b.run("bf16 8192^3 " + layout, p8k, candidates(p8k, b.device, top, 2, seed++), 1, 2));
    if (with_llm) llm_of.push_back(run_llm_set(b, layout, top, 30));
  }
  std::ostringstream table;
  table << "## wgmma path in every layout (cuBLAS in the same layout)\n\n" << kTableHeader;
  for (const CaseResult& r : results) table << table_row(r);
  for (const std::vector<CaseResult>& llm : llm_of) {
    for (const CaseResult& r : llm) table << table_row(r);
    table << llm_geomean_line(llm);
  }
  table << "\n";
  return table.str();
}

/// One problem, exactly the given configurations (no search): for a profiler
/// run on one kernel, or to re-time a stored winner against cuBLAS.
std::string run_single(Bench& b, const Problem& p, const std::vector<Config>& only) {
  std::vector<Config> valid;
  const Space s = gemm_family().space(p, b.device);
  for (const Config& c : only) {
    std::string why;
    if (!s.is_valid(c, &why)) {
      std::fprintf(stderr, "gemm_bench: --config %s is not valid for %s: %s\n", c.key().c_str(),
                   p.key().c_str(), why.c_str());
      std::exit(2);
    }
    valid.push_back(c);
  }
  const CaseResult r = b.run("single", p, valid, 0, valid.size());
  return std::string("## given configurations\n\n") + kTableHeader + table_row(r) + "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gemm benchmark: tuned configurations against cuBLAS in the same run"};
  std::string out_dir, suite = "all";
  app.add_option("--out", out_dir, "write gemm-bench.md and gemm-bench-log.txt here");
  app.add_option(
         "--suite", suite,
         "ampere (mma.sync, SIMT, misaligned), hopper (wgmma: 4096^3, 8192^3, misaligned "
         "4096^3, LLM "
         "shapes), hopper-square (the same without the LLM shapes), hopper-layouts (wgmma in "
         "every layout at 4096^3 and 8192^3), hopper-dtypes (wgmma tf32 and fp8 at 4096^3 and "
         "8192^3 against cuBLAS TF32 and cuBLASLt FP8) or all (ampere, hopper and hopper-layouts)")
      ->check(CLI::IsMember(
          {"ampere", "hopper", "hopper-square", "hopper-layouts", "hopper-dtypes", "all"}));
  std::vector<std::string> config_keys;
  app.add_option(
      "--config", config_keys,
      "with --suite hopper-square or --problem: time exactly this configuration (canonical key, "
      "repeatable) instead of searching");
  std::string problem_text;
  app.add_option("--problem", problem_text,
                 "time the --config configurations on this one gemm problem (e.g. "
                 "m=4096,n=4096,k=4096,dtype=bf16) "
                 "instead of running a suite");
  bool all_in_turns = false;
  app.add_flag("--all-in-turns", all_in_turns,
               "with --problem: also verify every --config and time all that pass, and cuBLAS, in "
               "turns with one "
               "another, next to each one's time alone");
  int sustain_ms = 0;
  app.add_option("--sustain-ms", sustain_ms,
                 "with --problem: also run every verified --config and cuBLAS back to back, each "
                 "alone for this "
                 "many milliseconds, twice round, and report the steady-state time with NVML's SM "
                 "clock, board "
                 "power and clock-event reasons sampled during it")
      ->check(CLI::Range(0, 60000));
  std::vector<std::string> layouts = {"nt", "nn", "tn", "tt"};
  app.add_option("--layouts", layouts,
                 "with --suite hopper-layouts: these layouts only (comma-separated), so that the "
                 "suite can be split over several time-limited runs")
      ->delimiter(',')
      ->check(CLI::IsMember({"nt", "nn", "tn", "tt"}));
  bool layouts_llm = false;
  app.add_flag("--llm", layouts_llm,
               "with --suite hopper-layouts: also the LLM shape set in each layout, searched from "
               "the layout's best at 4096^3");
  std::vector<std::string> dtypes = {"tf32", "e4m3"};
  app.add_option("--dtypes", dtypes, "with --suite hopper-dtypes: these element types only")
      ->delimiter(',')
      ->check(CLI::IsMember({"tf32", "e4m3"}));
  CLI11_PARSE(app, argc, argv);
  if ((all_in_turns || sustain_ms > 0) && problem_text.empty()) {
    std::fprintf(stderr, "gemm_bench: --all-in-turns and --sustain-ms need --problem\n");
    return 2;
  }
  std::vector<Config> only;
  try {
    for (const auto& key : config_keys) only.push_back(Config::parse(key));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_bench: bad --config: %s\n", e.what());
    return 2;
  }
  std::optional<Problem> single;
  if (!problem_text.empty()) {
    try {
      single = problem(problem_text);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gemm_bench: bad --problem: %s\n", e.what());
      return 2;
    }
    if (only.empty()) {
      std::fprintf(stderr, "gemm_bench: --problem needs at least one --config\n");
      return 2;
    }
  } else if (!only.empty() && suite != "hopper-square") {
    std::fprintf(stderr, "gemm_bench: --config needs --suite hopper-square or --problem\n");
    return 2;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("gemm_bench: skipped, no CUDA device\n");
    return 0;
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "device properties");
  Bench b;
  b.device = *find_builtin_device("h200");
  b.device.smem_per_block_optin = static_cast<int>(prop.sharedMemPerBlockOptin);
  b.device.sm_count = prop.multiProcessorCount;
  char bus[32] = {0};
  cudaDeviceGetPCIBusId(bus, sizeof bus, 0);
  check(cudaStreamCreate(&b.stream), "stream");
  b.flush = std::make_unique<L2Flush>(L2Flush::device_l2_bytes());
  if (b.flush->bytes() == 0)
    check(cudaErrorMemoryAllocation, "L2 flush buffer (twice the device's L2)");
  b.extras.all_in_turns = all_in_turns;
  b.extras.sustain_ms = sustain_ms;
  b.extras.bus = bus;
  const std::time_t started = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&started));
  if (!out_dir.empty()) {
    std::filesystem::create_directories(out_dir);
    b.log_buffer.open(std::filesystem::path(out_dir) / "gemm-bench-log.txt");
    b.rows = std::filesystem::path(out_dir) / "gemm-bench-rows.md";
    std::ofstream(b.rows, std::ios::trunc)
        << "# gemm benchmark rows, as measured (suite " << suite << ")\n\n"
        << date << "; device " << prop.name << " (" << prop.multiProcessorCount << " SMs); "
        << version_text() << "\n\n"
        << kTableHeader;
  }

  std::string tables;
  if (single) {
    tables += run_single(b, *single, only);
  } else if (suite == "hopper" || suite == "all")
    tables += run_hopper_suite(b, true, {});
  else if (suite == "hopper-square")
    tables += run_hopper_suite(b, false, only);
  else if (suite == "hopper-dtypes")
    tables += run_dtypes_suite(b, dtypes);
  if (!single && (suite == "hopper-layouts" || suite == "all"))
    tables += run_hopper_layouts_suite(b, layouts, layouts_llm);
  if (!single && (suite == "ampere" || suite == "all")) tables += run_ampere_suite(b);

  std::ostringstream head;
  const auto clock = Nvml::instance().sm_clock_mhz(bus);
  head << "# gemm benchmark\n\n"
       << "date " << date << "; device " << prop.name << " (" << prop.multiProcessorCount
       << " SMs); SM clock after run "
       << (clock ? std::to_string(*clock) + " MHz" : std::string("unknown")) << "; "
       << version_text()
       << "; timed as ktune tune times (measure/timing.hpp): CUDA events, median after "
       << TimingOptions{}.warmup << " warm-ups, " << TimingOptions{}.min_repetitions << " to "
       << TimingOptions{}.max_repetitions << " repetitions until a spread of "
       << TimingOptions{}.target_spread << ", L2 flushed (" << (b.flush->bytes() >> 20)
       << " MiB memset, twice the L2) before each; seeded uniform [-1,1] data.\n\n";
  const std::string report = head.str() + tables;
  std::printf("\n%s", report.c_str());
  if (!out_dir.empty()) std::ofstream(std::filesystem::path(out_dir) / "gemm-bench.md") << report;
  b.flush.reset();
  cudaStreamDestroy(b.stream);
  return 0;
}
