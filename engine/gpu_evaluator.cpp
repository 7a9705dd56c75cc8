// GpuEvaluator: the compile -> load -> poison -> launch -> verify -> time
// pipeline for one family, problem and device.
#include "engine/gpu_evaluator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include <cuda_runtime_api.h>
#include <tbb/task_group.h>

#include "kernels_templated/harness.hpp"
#include "kernels_templated/verify/report.hpp"
#include "measure/device_query.hpp"
#include "measure/nvml.hpp"
#include "measure/profiler.hpp"
#include "space/space.hpp"

namespace ktune {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kDefaultSmemLimit = 48 * 1024;  // what a launch may use without opting in
constexpr std::size_t kMaxLogChars = 16 * 1024;
/// Performance sanity: achieved TFLOP/s above this multiple of the device's
/// highest peak cannot be real (the kernel skipped work).
constexpr double kPeakMargin = 1.5;

std::string cuda_text(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
}

std::string clip_log(const std::string& log) {
  if (log.size() <= kMaxLogChars) return log;
  return log.substr(0, kMaxLogChars) + "\n[... " + std::to_string(log.size() - kMaxLogChars) +
         " more characters]";
}

Result make_result(const Config& c, Status s, std::string message) {
  Result r;
  r.config = c;
  r.status = s;
  r.message = std::move(message);
  return r;
}

}  // namespace

bool is_sticky_cuda_error(int code) {
  switch (static_cast<cudaError_t>(code)) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorDevicesUnavailable:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

struct GpuEvaluator::Impl {
  const KernelFamily& family;
  Problem problem;
  GpuEvaluatorOptions options;
  LiveDevice live;
  std::optional<Space> space;
  std::unique_ptr<FamilyHarness> harness;
  std::optional<Compiler> compiler;
  std::optional<KernelProfiler> profiler;  ///< when options.profile
  cudaStream_t stream = nullptr;
  std::unique_ptr<L2Flush> flush;  ///< null: timing without a flush
  bool lost = false;
  std::string lost_reason;
  std::string source_hash;
  std::string nvrtc;
  double flops = 0;
  double min_bytes = 0;

  Impl(const KernelFamily& f, Problem p, GpuEvaluatorOptions o)
      : family(f), problem(std::move(p)), options(std::move(o)) {}

  // ---- error handling ----

  // After a failed CUDA call: is the context still usable? Clears the
  // non-sticky error so that the next configuration starts clean.
  bool note_error(cudaError_t err) {
    cudaGetLastError();
    if (is_sticky_cuda_error(err) || cudaDeviceSynchronize() != cudaSuccess) {
      lost = true;
      lost_reason = cuda_text(err);
      return true;
    }
    return false;
  }

  std::string lost_suffix() const { return " [CUDA context lost: the process must restart]"; }

  // Waits for the stream; a kernel still running after `limit_s` is a timeout.
  // Returns cudaSuccess, the stream's error, or cudaErrorNotReady on timeout.
  cudaError_t wait(double limit_s) {
    if (options.kernel_timeout_s <= 0) return cudaStreamSynchronize(stream);
    const auto deadline = Clock::now() + std::chrono::duration<double>(limit_s);
    int polls = 0;
    for (;;) {
      cudaError_t err = cudaStreamQuery(stream);
      if (err != cudaErrorNotReady) return err;
      if (Clock::now() > deadline) return cudaErrorNotReady;
      if (++polls < 2000)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }

  // Turns a failed wait into a Result (timeout or launch_error).
  Result failed_wait(const Config& c, cudaError_t err, const char* phase, double limit_s) {
    if (err == cudaErrorNotReady) {
      lost = true;
      lost_reason = "a kernel never returned";
      return make_result(c, Status::timeout,
                         std::string(phase) + ": kernel still running after " +
                             std::to_string(limit_s) + " s" + lost_suffix());
    }
    bool sticky = note_error(err);
    return make_result(c, Status::launch_error,
                       std::string(phase) + ": " + cuda_text(err) + (sticky ? lost_suffix() : ""));
  }

  // ---- pre-checks ----

  std::optional<Result> precheck(const Config& c, WorkEstimate& est) {
    std::string why;
    if (!space->is_valid(c, &why))
      return make_result(c, Status::invalid_config, "outside the space: " + why);
    try {
      est = family.estimate(problem, c, live.spec);
    } catch (const std::exception& e) {
      return make_result(c, Status::invalid_config,
                         std::string("cannot estimate the configuration: ") + e.what());
    }
    const DeviceSpec& d = live.spec;
    if (est.threads_per_block > d.max_threads_per_block)
      return make_result(c, Status::invalid_config,
                         "needs " + std::to_string(est.threads_per_block) +
                             " threads per block, the device allows " +
                             std::to_string(d.max_threads_per_block));
    if (d.smem_per_block_optin > 0 && est.smem_per_block > d.smem_per_block_optin)
      return make_result(c, Status::invalid_config,
                         "needs " + std::to_string(est.smem_per_block) +
                             " bytes of shared memory per block, the device allows " +
                             std::to_string(d.smem_per_block_optin));
    return std::nullopt;
  }

  // After compiling: resources that only ptxas knows.
  std::optional<Result> check_resources(const Config& c, const CompileOutput& out,
                                        const WorkEstimate& est) {
    const DeviceSpec& d = live.spec;
    for (const auto& k : out.kernels) {
      const long long threads = ((std::max(est.threads_per_block, 1) + 31) / 32) * 32;
      if (k.registers > 0 && d.regs_per_sm > 0 && k.registers * threads > d.regs_per_sm)
        return make_result(c, Status::invalid_config,
                           k.name_expression + " uses " + std::to_string(k.registers) +
                               " registers x " + std::to_string(threads) +
                               " threads, more than the " + std::to_string(d.regs_per_sm) +
                               " registers of an SM");
      if (d.smem_per_block_optin > 0 && k.static_smem_bytes > d.smem_per_block_optin)
        return make_result(c, Status::invalid_config,
                           k.name_expression + " uses " + std::to_string(k.static_smem_bytes) +
                               " bytes of static shared memory, more than the device allows");
    }
    return std::nullopt;
  }

  // ---- one configuration on the GPU ----

  nlohmann::json compile_metrics(const CompileOutput& out, const WorkEstimate& est) const {
    nlohmann::json kernels = nlohmann::json::array();
    int spill = 0, registers = 0, static_smem = 0, stack = 0;
    for (const auto& k : out.kernels) {
      kernels.push_back(kernel_resources_json(k));
      spill += k.spill_store_bytes + k.spill_load_bytes;
      registers = std::max(registers, k.registers);
      static_smem = std::max(static_smem, k.static_smem_bytes);
      stack = std::max(stack, k.stack_frame_bytes);
    }
    return {{"compile_seconds", out.compile_seconds},
            {"compile_cache_hit", out.cache_hit},
            {"arch", out.arch},
            {"nvrtc", nvrtc},
            {"registers", registers},
            {"spill_bytes", spill},
            {"stack_frame_bytes", stack},
            {"static_smem_bytes", static_smem},
            {"dynamic_smem_bytes", est.smem_per_block},
            {"threads_per_block", est.threads_per_block},
            {"blocks", est.blocks},
            {"kernels", kernels}};
  }

  void record_clocks(nlohmann::json& metrics, const char* when) const {
    const Nvml& nvml = Nvml::instance();
    if (!nvml.available()) return;
    if (auto mhz = nvml.sm_clock_mhz(live.pci_bus_id))
      metrics[std::string("sm_clock_mhz_") + when] = *mhz;
    if (auto t = nvml.temperature_c(live.pci_bus_id))
      metrics[std::string("temperature_c_") + when] = *t;
  }

  Result measure(const Config& c, const CompileOutput& out, const WorkEstimate& est) {
    if (!out.ok) {
      Result r = make_result(c, Status::compile_error, clip_log(out.log));
      r.metrics = {{"compile_seconds", out.compile_seconds}, {"arch", out.arch}, {"nvrtc", nvrtc}};
      verify::Report report;
      report.set_stage("compile", false);
      r.metrics["verification"] = verify::to_json(report);
      return r;
    }
    if (auto bad = check_resources(c, out, est)) {
      bad->metrics = compile_metrics(out, est);
      return *bad;
    }
    Result r = run_on_gpu(c, out, est);
    nlohmann::json m = compile_metrics(out, est);
    for (auto& [k, v] : r.metrics.items()) m[k] = v;
    r.metrics = std::move(m);
    return r;
  }

  Result run_on_gpu(const Config& c, const CompileOutput& out, const WorkEstimate& est) {
    cudaLibrary_t library = nullptr;
    cudaError_t err =
        cudaLibraryLoadData(&library, out.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (err != cudaSuccess) {
      bool sticky = note_error(err);
      return make_result(c, Status::launch_error,
                         "loading the cubin: " + cuda_text(err) + (sticky ? lost_suffix() : ""));
    }
    struct Unload {
      cudaLibrary_t lib;
      const bool* lost;
      ~Unload() {
        if (!*lost) cudaLibraryUnload(lib);
      }
    } unload{library, &lost};

    std::vector<cudaKernel_t> kernels;
    for (const auto& k : out.kernels) {
      cudaKernel_t kernel = nullptr;
      err = cudaLibraryGetKernel(&kernel, library, k.lowered_name.c_str());
      if (err != cudaSuccess) {
        note_error(err);
        return make_result(c, Status::launch_error,
                           "kernel " + k.lowered_name + " not in the cubin: " + cuda_text(err));
      }
      // Launches may use up to 48 KiB of dynamic shared memory without opting in.
      if (est.smem_per_block > kDefaultSmemLimit) {
        const int limit = live.spec.smem_per_block_optin - k.static_smem_bytes;
        err = cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, limit);
        if (err != cudaSuccess) {
          note_error(err);
          return make_result(c, Status::invalid_config,
                             "cannot raise the dynamic shared memory limit to " +
                                 std::to_string(limit) + ": " + cuda_text(err));
        }
      }
      kernels.push_back(kernel);
    }

    const double limit = options.kernel_timeout_s;
    Result r;
    r.config = c;
    verify::Report report;
    report.seeds = {options.seed};
    report.set_stage("compile", true);
    report.nondeterminism_expected = !harness->deterministic_by_design(c);
    // Launches read the seeded random inputs again whatever happens below.
    struct RandomInputs {
      FamilyHarness& h;
      ~RandomInputs() { h.select_inputs(0); }
    } restore{*harness};

    // 1. Numerical: poisoned outputs, one launch on the seeded random inputs,
    // compared with the reference.
    Verification v;
    if (std::optional<Result> failed = run_and_verify(c, kernels, 0, v)) return *failed;
    r.error = v.rel_l2_error;
    r.max_abs_error = v.max_abs_error;
    r.metrics["tolerance"] = v.tolerance;
    report.tolerances = v.tolerances;
    report.numerical = v.stats;
    report.set_stage("numerical", v.passed);
    if (!v.passed)
      return wrong_result(std::move(r), report, v, "numerical check (seeded random inputs)");

    // 2. Determinism: the same input again must give the same bits.
    if (options.check_determinism) {
      auto [ptr, bytes] = harness->output_region();
      if (ptr && bytes > 0) {
        std::vector<unsigned char> first(bytes), second(bytes);
        err = cudaMemcpy(first.data(), ptr, bytes, cudaMemcpyDeviceToHost);
        if (err == cudaSuccess) {
          harness->poison_outputs(stream);
          err = harness->launch(c, kernels, stream);
          if (err == cudaSuccess) err = wait(limit);
          if (err == cudaSuccess)
            err = cudaMemcpy(second.data(), ptr, bytes, cudaMemcpyDeviceToHost);
        }
        if (err != cudaSuccess) return failed_wait(c, err, "determinism run", limit);
        r.deterministic = std::memcmp(first.data(), second.data(), bytes) == 0;
        report.deterministic = r.deterministic;
        report.set_stage("determinism", *r.deterministic);
      }
    }

    // 3. Edge inputs (the family's README lists them).
    for (int set = 1; set < harness->input_sets(); ++set) {
      Verification edge;
      if (std::optional<Result> failed = run_and_verify(c, kernels, set, edge)) return *failed;
      if (report.edge)
        report.edge->merge(edge.stats);
      else
        report.edge = edge.stats;
      report.set_stage("edge", edge.passed);
      if (!edge.passed) return wrong_result(std::move(r), report, edge, "edge inputs");
    }
    harness->select_inputs(0);

    // 4. Timing.
    record_clocks(r.metrics, "before");
    std::optional<Result> failure = time_config(c, kernels, r);
    if (failure) return *failure;
    record_clocks(r.metrics, "after");
    r.status = Status::ok;
    const double t = r.time.median_s;
    if (t > 0) {
      r.tflops = flops / t / 1e12;
      r.gbps = min_bytes / t / 1e9;
    }
    // 5. Performance sanity: a time the device cannot reach means work was skipped.
    const double peak = std::max({live.spec.peak_tflops_simt_fp32, live.spec.peak_tflops_tf32,
                                  live.spec.peak_tflops_bf16, live.spec.peak_tflops_fp16});
    const bool sane = t > 0 && (peak <= 0 || r.tflops <= kPeakMargin * peak);
    report.set_stage("performance", sane);
    r.metrics["verification"] = verify::to_json(report);
    if (!sane) {
      r.status = Status::wrong_result;
      r.message = "performance sanity: " + std::to_string(r.tflops) + " TFLOP/s, more than " +
                  std::to_string(kPeakMargin) + " x the device's peak of " + std::to_string(peak);
      return r;
    }
    // 6. Profile, after timing so that its replays never reach the timed figures.
    if (profiler) profile_config(c, kernels, r);
    return r;
  }

  // Poison, launch on input set `set`, wait, verify into `v`; a Result when
  // the run itself failed (launch error, fault, timeout).
  std::optional<Result> run_and_verify(const Config& c, std::span<const cudaKernel_t> kernels,
                                       int set, Verification& v) {
    const char* phase = set == 0 ? "verification run" : "edge-input run";
    harness->select_inputs(set);
    harness->poison_outputs(stream);
    cudaError_t err = harness->launch(c, kernels, stream);
    if (err != cudaSuccess) {
      bool sticky = note_error(err);
      return make_result(
          c, Status::launch_error,
          std::string(phase) + ": launch: " + cuda_text(err) + (sticky ? lost_suffix() : ""));
    }
    err = wait(options.kernel_timeout_s);
    if (err != cudaSuccess) return failed_wait(c, err, phase, options.kernel_timeout_s);
    try {
      v = harness->verify(c, stream);
    } catch (const std::exception& e) {
      bool sticky = note_error(cudaGetLastError());
      sticky = sticky || lost;
      return make_result(c, Status::launch_error,
                         std::string("verification: ") + e.what() + (sticky ? lost_suffix() : ""));
    }
    return std::nullopt;
  }

  // The wrong_result of a failed check: which stage, why, and the record.
  static Result wrong_result(Result r, const verify::Report& report, const Verification& v,
                             const std::string& stage) {
    r.status = Status::wrong_result;
    r.metrics["verification"] = verify::to_json(report);
    r.metrics["nan_or_inf"] = v.nan_or_inf;
    r.metrics["unwritten"] = v.unwritten;
    r.message = stage + ": " + (v.detail.empty() ? std::string("failed") : v.detail) +
                "; rel_l2_error " + std::to_string(v.rel_l2_error) + " (tolerance " +
                std::to_string(v.tolerance) + "), max_abs_error " +
                std::to_string(v.max_abs_error) + ", " + std::to_string(v.nan_or_inf) +
                " non-finite, " + std::to_string(v.unwritten) + " unwritten";
    return r;
  }

  // One more launch under CUPTI; the outcome (or why there is none) goes into
  // r.metrics. The measurement stands whatever happens here.
  void profile_config(const Config& c, std::span<const cudaKernel_t> kernels, Result& r) {
    // The first pass starts from the cache state the timed runs had.
    // Synchronised, so that only the configuration's own kernels run under the profiler.
    if (r.metrics.value("l2_flushed", false) &&
        (flush->enqueue(stream, 0) != cudaSuccess || cudaStreamSynchronize(stream) != cudaSuccess))
      cudaGetLastError();
    const auto started = Clock::now();
    ProfileOutcome outcome =
        profiler->profile([&](cudaStream_t s) { return harness->launch(c, kernels, s); }, stream);
    store_profile(r.metrics, outcome);
    r.metrics["profile"]["wall_seconds"] =
        std::chrono::duration<double>(Clock::now() - started).count();
    if (outcome.launch_error != 0 && note_error(static_cast<cudaError_t>(outcome.launch_error)))
      r.metrics["profile"]["error"] = outcome.error + lost_suffix();
  }

  // Times `kernels` into r.time (measure/timing.hpp) and r.metrics["timing"]; a Result on failure.
  std::optional<Result> time_config(const Config& c, std::span<const cudaKernel_t> kernels,
                                    Result& r) {
    // Not per configuration: a split-K workspace that grows during a run must
    // not switch later configurations to a warm L2 (results of one problem
    // timed under two conditions cannot be ranked together).
    r.metrics["l2_flushed"] = flush != nullptr;
    const LaunchFn launch = [&](cudaStream_t s) { return harness->launch(c, kernels, s); };
    const TimedLaunches timed = time_launches(
        std::span<const LaunchFn>(&launch, 1), stream, options.timing, flush.get(),
        [this](double limit) { return wait(limit); }, options.kernel_timeout_s);
    if (timed.error != cudaSuccess)
      return failed_wait(c, timed.error, timed.failed_phase, timed.failed_limit_s);
    r.time = timed.stats.front();
    r.metrics["timing"] =
        timing_json(r.time, options.timing, timed.noisy, flush ? flush->bytes() : 0);
    return measure_energy_of(c, launch, r);
  }

  // Energy per launch and mean power into r.metrics (measure/energy.hpp), or
  // why there is none; a Result when the launches themselves failed.
  std::optional<Result> measure_energy_of(const Config& c, const LaunchFn& launch, Result& r) {
    if (!options.energy.enabled) {
      store_energy_unavailable(r.metrics,
                               "not measured (energy disabled in the evaluator's options)");
      return std::nullopt;
    }
    const Nvml& nvml = Nvml::instance();
    if (!nvml.available()) {
      store_energy_unavailable(
          r.metrics, "NVML is not available (libnvidia-ml.so.1 missing or nvmlInit failed)");
      return std::nullopt;
    }
    const EnergyCounter counter = [&] { return nvml.total_energy_mj(live.pci_bus_id); };
    if (!counter()) {
      store_energy_unavailable(r.metrics,
                               "NVML has no total energy counter for this GPU "
                               "(nvmlDeviceGetTotalEnergyConsumption missing or not supported)");
      return std::nullopt;
    }
    const EnergyMeasurement m = measure_energy(
        launch, r.time.median_s, stream, options.energy, counter,
        [this](double limit) { return wait(limit); }, options.kernel_timeout_s);
    if (m.error != cudaSuccess) return failed_wait(c, m.error, "energy runs", m.failed_limit_s);
    if (m.reading)
      store_energy(r.metrics, *m.reading);
    else
      store_energy_unavailable(r.metrics, m.unavailable);
    return std::nullopt;
  }
};

GpuEvaluator::GpuEvaluator(const KernelFamily& family, Problem problem, GpuEvaluatorOptions options)
    : impl_(std::make_unique<Impl>(family, family.normalize(problem), std::move(options))) {
  Impl& m = *impl_;
  DeviceQuery query = query_devices();
  if (query.devices.empty()) throw std::runtime_error("no GPU: " + query.none_reason);
  auto it = std::find_if(query.devices.begin(), query.devices.end(),
                         [&](const LiveDevice& d) { return d.ordinal == m.options.device; });
  if (it == query.devices.end())
    throw std::runtime_error("no CUDA device with ordinal " + std::to_string(m.options.device) +
                             " (" + std::to_string(query.devices.size()) + " visible)");
  m.live = *it;
  cudaError_t err = cudaSetDevice(m.options.device);
  if (err != cudaSuccess) throw std::runtime_error("cudaSetDevice: " + cuda_text(err));
  if (m.options.compiler.arch.empty()) m.options.compiler.arch = m.live.spec.arch();
  m.compiler.emplace(m.options.compiler);
  if (m.options.profile) m.profiler.emplace(m.options.device);
  m.nvrtc = Compiler::nvrtc_version();
  m.space.emplace(family.space(m.problem, m.live.spec));
  m.source_hash = family_source_hash(family, m.problem, m.live.spec);
  m.flops = family.flops(m.problem);
  m.min_bytes = family.min_bytes(m.problem);
  m.harness = make_harness(family.name());
  err = cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking);
  if (err != cudaSuccess) throw std::runtime_error("cudaStreamCreate: " + cuda_text(err));
  m.harness->prepare(m.problem, m.options.seed);
  if (m.options.timing.flush_l2) {
    m.flush = std::make_unique<L2Flush>(m.live.spec.l2_bytes);
    if (m.flush->bytes() == 0) m.flush.reset();  // timing goes on without flushing; metrics say so
  }
  err = cudaStreamSynchronize(m.stream);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) throw std::runtime_error("preparing the harness: " + cuda_text(err));
}

GpuEvaluator::~GpuEvaluator() {
  Impl& m = *impl_;
  m.harness.reset();
  if (m.lost) (void)m.flush.release();  // nothing can be freed in a lost context
  m.flush.reset();
  if (!m.lost && m.stream) cudaStreamDestroy(m.stream);
}

const DeviceSpec& GpuEvaluator::device() const { return impl_->live.spec; }
bool GpuEvaluator::context_lost() const { return impl_->lost; }
const std::string& GpuEvaluator::family_hash() const { return impl_->source_hash; }
const Problem& GpuEvaluator::problem() const { return impl_->problem; }

std::vector<Result> GpuEvaluator::evaluate(std::span<const Config> configs) {
  return evaluate(configs, EvaluationObserver{});
}

std::vector<Result> GpuEvaluator::evaluate(std::span<const Config> configs,
                                           const EvaluationObserver& observer) {
  Impl& m = *impl_;
  cudaSetDevice(m.options.device);
  std::vector<Result> results(configs.size());
  std::vector<bool> done(configs.size(), false);
  auto finish = [&](std::size_t i, Result r) {
    results[i] = std::move(r);
    done[i] = true;
    if (observer.on_result) observer.on_result(i, results[i]);
  };

  // Host-side pruning first: nothing invalid reaches NVRTC.
  struct Pending {
    std::size_t index;
    WorkEstimate estimate;
    KernelSource source;
  };
  std::vector<Pending> pending;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    WorkEstimate est;
    if (auto bad = m.precheck(configs[i], est)) {
      finish(i, std::move(*bad));
      continue;
    }
    try {
      pending.push_back({i, est, m.family.source(m.problem, configs[i])});
    } catch (const std::exception& e) {
      finish(i, make_result(configs[i], Status::compile_error,
                            std::string("no source for this configuration: ") + e.what()));
    }
  }

  // Compile step k+1 on a TBB task while step k is measured.
  const std::size_t chunk = m.options.compile_chunk > 0
                                ? static_cast<std::size_t>(m.options.compile_chunk)
                                : 2 * std::max(1u, std::thread::hardware_concurrency());
  auto compile_range = [&](std::size_t begin) {
    std::vector<KernelSource> sources;
    for (std::size_t j = begin; j < std::min(begin + chunk, pending.size()); ++j)
      sources.push_back(pending[j].source);
    return m.compiler->compile_all(sources);
  };
  std::vector<CompileOutput> current, next;
  tbb::task_group compiling;
  if (!pending.empty()) current = compile_range(0);
  for (std::size_t begin = 0; begin < pending.size(); begin += chunk) {
    const std::size_t next_begin = begin + chunk;
    if (next_begin < pending.size() && !m.lost)
      compiling.run([&, next_begin] { next = compile_range(next_begin); });
    for (std::size_t j = 0; j < current.size(); ++j) {
      const Pending& p = pending[begin + j];
      if (m.lost) break;
      if (current[j].ok && observer.on_gpu_start) observer.on_gpu_start(p.index);
      Result r;
      try {
        r = m.measure(configs[p.index], current[j], p.estimate);
      } catch (const std::exception& e) {
        // A harness or library failure on one configuration stays with it.
        bool sticky = m.note_error(cudaGetLastError()) || m.lost;
        r = make_result(
            configs[p.index], Status::launch_error,
            std::string("evaluation failed: ") + e.what() + (sticky ? m.lost_suffix() : ""));
      }
      finish(p.index, std::move(r));
    }
    compiling.wait();
    if (m.lost) break;
    current = std::move(next);
    next.clear();
  }
  compiling.wait();

  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (done[i]) continue;
    Result r = make_result(
        configs[i], Status::launch_error,
        "not run: the CUDA context was lost by an earlier configuration (" + m.lost_reason + ")");
    r.metrics["not_run"] = true;
    results[i] = std::move(r);
  }
  return results;
}

}  // namespace ktune
