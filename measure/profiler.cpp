// KernelProfiler: the CUPTI Range Profiler sequence (host configuration once;
// per profile: enable, counter data image, auto-range kernel-replay config,
// start / launch / stop, decode, evaluate, disable), with libcupti opened at
// run time.
#include "measure/profiler.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>

// Types only (CUcontext, CUresult in CUPTI's parameter structs): libcuda is
// never linked; cuCtxGetCurrent is reached through cudart's entry points.
#include <cuda.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

namespace fs = std::filesystem;

namespace ktune {
namespace {

// The metric names of ProfileMetrics' fields, as CUPTI (and Nsight Compute) name them.
constexpr const char* kDramRead = "dram__bytes_read.sum";
constexpr const char* kDramWrite = "dram__bytes_write.sum";
constexpr const char* kComputeSol = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kMemorySol =
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kDramSol = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr const char* kL2Hit = "lts__t_sector_hit_rate.pct";
constexpr const char* kDuration = "gpu__time_duration.sum";

// Kernels (auto ranges) one profiled launch may contain; a configuration
// launching more has the rest dropped (and says so).
constexpr std::size_t kMaxRanges = 16;

#define KTUNE_CUPTI_FUNCTIONS(X)                  \
  X(cuptiGetResultString)                         \
  X(cuptiProfilerInitialize)                      \
  X(cuptiDeviceGetChipName)                       \
  X(cuptiProfilerGetCounterAvailability)          \
  X(cuptiProfilerHostInitialize)                  \
  X(cuptiProfilerHostDeinitialize)                \
  X(cuptiProfilerHostConfigAddMetrics)            \
  X(cuptiProfilerHostGetConfigImageSize)          \
  X(cuptiProfilerHostGetConfigImage)              \
  X(cuptiProfilerHostGetNumOfPasses)              \
  X(cuptiProfilerHostEvaluateToGpuValues)         \
  X(cuptiProfilerHostGetMetricProperties)         \
  X(cuptiRangeProfilerEnable)                     \
  X(cuptiRangeProfilerDisable)                    \
  X(cuptiRangeProfilerSetConfig)                  \
  X(cuptiRangeProfilerStart)                      \
  X(cuptiRangeProfilerStop)                       \
  X(cuptiRangeProfilerDecodeData)                 \
  X(cuptiRangeProfilerGetCounterDataSize)         \
  X(cuptiRangeProfilerCounterDataImageInitialize) \
  X(cuptiRangeProfilerGetCounterDataInfo)

// The CUPTI entry points used, resolved from the dlopen'ed library.
struct CuptiApi {
  void* handle = nullptr;
  std::string path;
#define KTUNE_CUPTI_MEMBER(name) decltype(&::name) name = nullptr;
  KTUNE_CUPTI_FUNCTIONS(KTUNE_CUPTI_MEMBER)
#undef KTUNE_CUPTI_MEMBER
};

std::string cupti_soname() { return "libcupti.so." + std::to_string(CUDART_VERSION / 1000); }

std::vector<std::string> cupti_candidates() {
  const std::string soname = cupti_soname();
  std::vector<std::string> paths;
  if (const char* env = std::getenv("KTUNE_CUPTI_LIBRARY"); env && *env) paths.emplace_back(env);
  paths.push_back(soname);
  // Beside the cudart this process runs with: the toolkit's own CUPTI.
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cudaGetDeviceCount), &info) != 0 && info.dli_fname) {
    const fs::path dir = fs::path(info.dli_fname).parent_path();
    paths.push_back((dir / soname).string());
    paths.push_back((dir / ".." / "extras" / "CUPTI" / "lib64" / soname).string());
  }
  paths.push_back("/usr/local/cuda/lib64/" + soname);
  paths.push_back("/usr/local/cuda/extras/CUPTI/lib64/" + soname);
  return paths;
}

// CUPTI opens libnvperf_host.so (and the target library) by name when the
// profiler starts; loading them first from CUPTI's own folder lets that
// succeed where the folder is not on the loader's path (the loader matches
// an already loaded library by its soname).
void preload_nvperf_beside(const std::string& cupti_path) {
  const fs::path dir = fs::path(cupti_path).parent_path();
  if (dir.empty()) return;
  for (const char* name : {"libnvperf_host.so", "libnvperf_target.so"}) {
    std::error_code ec;
    if (fs::exists(dir / name, ec)) dlopen((dir / name).c_str(), RTLD_NOW | RTLD_GLOBAL);
  }
}

std::optional<CuptiApi> load_cupti(std::string& error) {
  std::string tried;
  for (const std::string& candidate : cupti_candidates()) {
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      tried += "\n  " + candidate + ": " + (why ? why : "not loadable");
      continue;
    }
    CuptiApi api;
    api.handle = handle;
    api.path = candidate;
    std::string missing;
#define KTUNE_CUPTI_RESOLVE(name)                                       \
  api.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name)); \
  if (!api.name) missing += (missing.empty() ? "" : ", ") + std::string(#name);
    KTUNE_CUPTI_FUNCTIONS(KTUNE_CUPTI_RESOLVE)
#undef KTUNE_CUPTI_RESOLVE
    if (!missing.empty()) {
      tried += "\n  " + candidate + ": lacks the Range Profiler API (" + missing + ")";
      dlclose(handle);
      continue;
    }
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(api.cuptiRangeProfilerEnable), &info) != 0 && info.dli_fname)
      api.path = info.dli_fname;
    preload_nvperf_beside(api.path);
    return api;
  }
  error = "CUPTI (" + cupti_soname() + ") could not be loaded; tried:" + tried;
  return std::nullopt;
}

std::string cupti_text(const CuptiApi& api, CUptiResult r) {
  const char* text = nullptr;
  std::string out =
      api.cuptiGetResultString && api.cuptiGetResultString(r, &text) == CUPTI_SUCCESS && text
          ? std::string(text)
          : "CUPTI error " + std::to_string(static_cast<int>(r));
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    out +=
        " (GPU performance counters are restricted to administrators on this machine: run as root "
        "or load "
        "the nvidia module with NVreg_RestrictProfilingToAdminUsers=0)";
  return out;
}

std::string cuda_text(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
}

// CUPTI parameter structs start with their size and are otherwise zeroed.
template <class P>
P params(std::size_t size) {
  P p{};
  p.structSize = size;
  return p;
}

// What is set up once per device: the metric configuration (host object,
// config image) and, if that failed, why.
struct DeviceSetup {
  std::string error;
  std::string chip;
  std::vector<std::uint8_t> availability;
  CUpti_Profiler_Host_Object* host = nullptr;
  std::vector<std::string> metrics;      ///< the supported subset of the request, in order
  std::vector<const char*> metric_ptrs;  ///< into `metrics`
  std::vector<std::uint8_t> config_image;
  std::size_t passes = 0;
  double duration_to_s = 1e-9;  ///< gpu__time_duration's unit in seconds
  std::vector<std::string> notes;
};

// Process-wide CUPTI state, never torn down: CUPTI's teardown at exit has
// nothing to give back that the process' end does not.
struct Global {
  std::mutex mutex;
  bool load_tried = false;
  std::optional<CuptiApi> api;
  std::string load_error;
  bool initialized = false;
  std::map<int, DeviceSetup> devices;
};

Global& global() {
  static Global* g = new Global;
  return *g;
}

std::optional<CUcontext> current_context(std::string& error) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  cudaError_t e = cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, CUDART_VERSION,
                                                   cudaEnableDefault, &found);
  if (e != cudaSuccess || !fn || found != cudaDriverEntryPointSuccess) {
    error = "cannot reach cuCtxGetCurrent through the runtime: " + cuda_text(e);
    return std::nullopt;
  }
  CUcontext ctx = nullptr;
  CUresult r = reinterpret_cast<CUresult (*)(CUcontext*)>(fn)(&ctx);
  if (r != CUDA_SUCCESS || !ctx) {
    error = "no current CUDA context (cuCtxGetCurrent returned " +
            std::to_string(static_cast<int>(r)) + ")";
    return std::nullopt;
  }
  return ctx;
}

// A fresh host object for the device's chip; nullptr and `error` on failure.
CUpti_Profiler_Host_Object* new_host(const CuptiApi& api, DeviceSetup& s, std::string& error) {
  auto p = params<CUpti_Profiler_Host_Initialize_Params>(
      CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = s.chip.c_str();
  p.pCounterAvailabilityImage = s.availability.empty() ? nullptr : s.availability.data();
  if (CUptiResult r = api.cuptiProfilerHostInitialize(&p); r != CUPTI_SUCCESS) {
    error = "cuptiProfilerHostInitialize (chip " + s.chip + "): " + cupti_text(api, r);
    return nullptr;
  }
  return p.pHostObject;
}

void delete_host(const CuptiApi& api, CUpti_Profiler_Host_Object* host) {
  if (!host) return;
  auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(
      CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  p.pHostObject = host;
  api.cuptiProfilerHostDeinitialize(&p);
}

CUptiResult add_metrics(const CuptiApi& api, CUpti_Profiler_Host_Object* host,
                        std::vector<const char*>& names) {
  auto p = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  p.pHostObject = host;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  return api.cuptiProfilerHostConfigAddMetrics(&p);
}

// Builds the host object and config image for the requested metrics; a
// metric the chip does not know is left out (and noted) rather than
// costing all the others.
void configure_metrics(const CuptiApi& api, DeviceSetup& s,
                       const std::vector<std::string>& requested) {
  std::vector<const char*> all;
  for (const std::string& name : requested) all.push_back(name.c_str());
  std::string error;
  s.host = new_host(api, s, error);
  if (!s.host) {
    s.error = error;
    return;
  }
  CUptiResult r = add_metrics(api, s.host, all);
  std::vector<const char*> kept = all;
  if (r != CUPTI_SUCCESS) {
    // Find the culprits one by one, each on a scratch host object.
    delete_host(api, s.host);
    s.host = nullptr;
    kept.clear();
    for (const char* name : all) {
      CUpti_Profiler_Host_Object* scratch = new_host(api, s, error);
      if (!scratch) {
        s.error = error;
        return;
      }
      std::vector<const char*> one{name};
      CUptiResult rr = add_metrics(api, scratch, one);
      if (rr == CUPTI_SUCCESS)
        kept.push_back(name);
      else
        s.notes.push_back(std::string(name) + " not collected: " + cupti_text(api, rr));
      delete_host(api, scratch);
    }
    if (kept.empty()) {
      s.error =
          "the chip (" + s.chip + ") supports none of the requested metrics: " + cupti_text(api, r);
      return;
    }
    s.host = new_host(api, s, error);
    if (!s.host) {
      s.error = error;
      return;
    }
    if (CUptiResult again = add_metrics(api, s.host, kept); again != CUPTI_SUCCESS) {
      s.error = "cuptiProfilerHostConfigAddMetrics: " + cupti_text(api, again);
      return;
    }
  }
  for (const char* name : kept) s.metrics.emplace_back(name);
  for (const std::string& name : s.metrics) s.metric_ptrs.push_back(name.c_str());

  auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = s.host;
  if (CUptiResult e = api.cuptiProfilerHostGetConfigImageSize(&size); e != CUPTI_SUCCESS) {
    s.error = "cuptiProfilerHostGetConfigImageSize: " + cupti_text(api, e);
    return;
  }
  s.config_image.resize(size.configImageSize);
  auto image = params<CUpti_Profiler_Host_GetConfigImage_Params>(
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  image.pHostObject = s.host;
  image.configImageSize = s.config_image.size();
  image.pConfigImage = s.config_image.data();
  if (CUptiResult e = api.cuptiProfilerHostGetConfigImage(&image); e != CUPTI_SUCCESS) {
    s.error = "cuptiProfilerHostGetConfigImage: " + cupti_text(api, e);
    return;
  }
  auto passes = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  passes.configImageSize = s.config_image.size();
  passes.pConfigImage = s.config_image.data();
  if (CUptiResult e = api.cuptiProfilerHostGetNumOfPasses(&passes); e == CUPTI_SUCCESS)
    s.passes = passes.numOfPasses;

  // gpu__time_duration is in nanoseconds on the chips we know; ask anyway.
  auto props = params<CUpti_Profiler_Host_GetMetricProperties_Params>(
      CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
  props.pHostObject = s.host;
  props.pMetricName = kDuration;
  if (api.cuptiProfilerHostGetMetricProperties(&props) == CUPTI_SUCCESS && props.pDimUnit) {
    const std::string unit = props.pDimUnit;
    // CUDA 13.0 says "nanosecond"; Nsight Compute's reports say "nsecond".
    if (unit == "nanosecond" || unit == "nsecond")
      s.duration_to_s = 1e-9;
    else if (unit == "microsecond" || unit == "usecond")
      s.duration_to_s = 1e-6;
    else if (unit == "millisecond" || unit == "msecond")
      s.duration_to_s = 1e-3;
    else if (unit == "second")
      s.duration_to_s = 1;
    else
      s.notes.push_back("unknown unit '" + unit + "' of " + kDuration + ": read as nanoseconds");
  }
}

// Everything done once per device (under the global lock).
void set_up_device(const CuptiApi& api, int device, CUcontext ctx, DeviceSetup& s) {
  auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<std::size_t>(device);
  if (CUptiResult r = api.cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS || !chip.pChipName) {
    s.error = "cuptiDeviceGetChipName: " + cupti_text(api, r);
    return;
  }
  s.chip = chip.pChipName;

  auto avail = params<CUpti_Profiler_GetCounterAvailability_Params>(
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  avail.ctx = ctx;
  if (CUptiResult r = api.cuptiProfilerGetCounterAvailability(&avail); r != CUPTI_SUCCESS) {
    s.error = "cuptiProfilerGetCounterAvailability: " + cupti_text(api, r);
    return;
  }
  s.availability.resize(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = s.availability.data();
  if (CUptiResult r = api.cuptiProfilerGetCounterAvailability(&avail); r != CUPTI_SUCCESS) {
    s.error = "cuptiProfilerGetCounterAvailability: " + cupti_text(api, r);
    return;
  }
  configure_metrics(api, s, profiled_metric_names());
}

// Sums counts and weights percentages by each kernel's duration.
ProfileMetrics aggregate(const DeviceSetup& s, const std::vector<std::vector<double>>& ranges,
                         nlohmann::json& counters) {
  auto index_of = [&](const char* name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < s.metrics.size(); ++i)
      if (s.metrics[i] == name) return i;
    return std::nullopt;
  };
  const auto duration = index_of(kDuration);
  std::vector<double> weight(ranges.size(), 1.0);
  if (duration) {
    double total = 0;
    for (const auto& v : ranges) total += std::isfinite(v[*duration]) ? v[*duration] : 0;
    if (total > 0)
      for (std::size_t k = 0; k < ranges.size(); ++k)
        weight[k] = std::isfinite(ranges[k][*duration]) ? ranges[k][*duration] : 0;
  }
  auto value = [&](const char* name, bool is_sum) -> double {
    auto i = index_of(name);
    if (!i) return ProfileMetrics::kMissing;
    double acc = 0, wsum = 0;
    for (std::size_t k = 0; k < ranges.size(); ++k) {
      const double v = ranges[k][*i];
      if (!std::isfinite(v)) continue;
      if (is_sum) {
        acc += v;
        wsum = 1;
      } else {
        acc += weight[k] * v;
        wsum += weight[k];
      }
    }
    if (wsum <= 0) return ProfileMetrics::kMissing;
    const double out = is_sum ? acc : acc / wsum;
    counters[name] = out;
    return out;
  };
  ProfileMetrics m;
  m.dram_bytes_read = value(kDramRead, true);
  m.dram_bytes_written = value(kDramWrite, true);
  m.compute_sol_pct = value(kComputeSol, false);
  m.memory_sol_pct = value(kMemorySol, false);
  m.dram_sol_pct = value(kDramSol, false);
  m.achieved_occupancy_pct = value(kOccupancy, false);
  m.l2_hit_rate_pct = value(kL2Hit, false);
  const double d = value(kDuration, true);
  m.duration_s = std::isfinite(d) ? d * s.duration_to_s : ProfileMetrics::kMissing;
  m.kernels = static_cast<int>(ranges.size());
  m.passes = static_cast<int>(s.passes);
  return m;
}

ProfileOutcome failure(std::string why) {
  ProfileOutcome o;
  o.error = std::move(why);
  return o;
}

// One profiled launch with the range profiler enabled on `ctx`.
ProfileOutcome profile_once(const CuptiApi& api, const DeviceSetup& s, CUcontext ctx,
                            const std::function<cudaError_t(cudaStream_t)>& launch,
                            cudaStream_t stream) {
  auto enable =
      params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  enable.ctx = ctx;
  if (CUptiResult r = api.cuptiRangeProfilerEnable(&enable); r != CUPTI_SUCCESS)
    return failure("cuptiRangeProfilerEnable: " + cupti_text(api, r));
  CUpti_RangeProfiler_Object* object = enable.pRangeProfilerObject;
  // Disabled on every way out: launches after this one run unobserved.
  struct Disable {
    const CuptiApi& api;
    CUpti_RangeProfiler_Object* object;
    ~Disable() {
      auto p = params<CUpti_RangeProfiler_Disable_Params>(
          CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
      p.pRangeProfilerObject = object;
      api.cuptiRangeProfilerDisable(&p);
    }
  } disable{api, object};

  std::vector<const char*> names = s.metric_ptrs;
  auto size = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pRangeProfilerObject = object;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = kMaxRanges;
  size.maxNumRangeTreeNodes = kMaxRanges;
  if (CUptiResult r = api.cuptiRangeProfilerGetCounterDataSize(&size); r != CUPTI_SUCCESS)
    return failure("cuptiRangeProfilerGetCounterDataSize: " + cupti_text(api, r));
  std::vector<std::uint8_t> data(size.counterDataSize);
  auto init = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pRangeProfilerObject = object;
  init.counterDataSize = data.size();
  init.pCounterData = data.data();
  if (CUptiResult r = api.cuptiRangeProfilerCounterDataImageInitialize(&init); r != CUPTI_SUCCESS)
    return failure("cuptiRangeProfilerCounterDataImageInitialize: " + cupti_text(api, r));

  auto config = params<CUpti_RangeProfiler_SetConfig_Params>(
      CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  config.pRangeProfilerObject = object;
  config.configSize = s.config_image.size();
  config.pConfig = s.config_image.data();
  config.counterDataImageSize = data.size();
  config.pCounterDataImage = data.data();
  config.range = CUPTI_AutoRange;          // one range per kernel
  config.replayMode = CUPTI_KernelReplay;  // CUPTI reruns each kernel for every pass
  config.maxRangesPerPass = kMaxRanges;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  if (CUptiResult r = api.cuptiRangeProfilerSetConfig(&config); r != CUPTI_SUCCESS)
    return failure("cuptiRangeProfilerSetConfig: " + cupti_text(api, r));

  // Kernel replay completes every pass within the one launch; the loop is a
  // guard in case CUPTI asks for the launch again.
  const int max_rounds = static_cast<int>(std::max<std::size_t>(s.passes, 1)) + 1;
  bool submitted = false;
  int rounds = 0;
  while (!submitted && rounds < max_rounds) {
    ++rounds;
    auto start =
        params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
    start.pRangeProfilerObject = object;
    if (CUptiResult r = api.cuptiRangeProfilerStart(&start); r != CUPTI_SUCCESS)
      return failure("cuptiRangeProfilerStart: " + cupti_text(api, r));
    cudaError_t err = launch(stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
    auto stop =
        params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    stop.pRangeProfilerObject = object;
    CUptiResult stopped = api.cuptiRangeProfilerStop(&stop);
    if (err != cudaSuccess) {
      ProfileOutcome o = failure("the profiled launch failed: " + cuda_text(err));
      o.launch_error = static_cast<int>(err);
      return o;
    }
    if (stopped != CUPTI_SUCCESS)
      return failure("cuptiRangeProfilerStop: " + cupti_text(api, stopped));
    submitted = stop.isAllPassSubmitted != 0;
  }
  if (!submitted)
    return failure("CUPTI had not collected all " + std::to_string(s.passes) + " passes after " +
                   std::to_string(rounds) + " launches");

  auto decode = params<CUpti_RangeProfiler_DecodeData_Params>(
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  decode.pRangeProfilerObject = object;
  if (CUptiResult r = api.cuptiRangeProfilerDecodeData(&decode); r != CUPTI_SUCCESS)
    return failure("cuptiRangeProfilerDecodeData: " + cupti_text(api, r));

  auto info = params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  if (CUptiResult r = api.cuptiRangeProfilerGetCounterDataInfo(&info); r != CUPTI_SUCCESS)
    return failure("cuptiRangeProfilerGetCounterDataInfo: " + cupti_text(api, r));
  if (info.numTotalRanges == 0)
    return failure("no kernel ran under the profiler (the launch enqueued none?)");

  std::vector<std::vector<double>> ranges;
  for (std::size_t k = 0; k < info.numTotalRanges; ++k) {
    std::vector<double> values(names.size(), ProfileMetrics::kMissing);
    auto eval = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    eval.pHostObject = s.host;
    eval.pCounterDataImage = data.data();
    eval.counterDataImageSize = data.size();
    eval.rangeIndex = k;
    eval.ppMetricNames = names.data();
    eval.numMetrics = names.size();
    eval.pMetricValues = values.data();
    if (CUptiResult r = api.cuptiProfilerHostEvaluateToGpuValues(&eval); r != CUPTI_SUCCESS)
      return failure("cuptiProfilerHostEvaluateToGpuValues (range " + std::to_string(k) +
                     "): " + cupti_text(api, r));
    ranges.push_back(std::move(values));
  }

  ProfileOutcome o;
  o.metrics = aggregate(s, ranges, o.counters);
  o.ok = true;
  o.notes = s.notes;
  if (decode.numOfRangeDropped > 0)
    o.notes.push_back(std::to_string(decode.numOfRangeDropped) + " kernels beyond the first " +
                      std::to_string(kMaxRanges) + " were not profiled");
  return o;
}

}  // namespace

const std::vector<std::string>& profiled_metric_names() {
  static const std::vector<std::string> names = {kDramRead, kDramWrite, kComputeSol, kMemorySol,
                                                 kDramSol,  kOccupancy, kL2Hit,      kDuration};
  return names;
}

MetricPlan plan_profiler_metrics(const std::string& chip) {
  return plan_profiler_metrics(chip, profiled_metric_names());
}

MetricPlan plan_profiler_metrics(const std::string& chip, const std::vector<std::string>& metrics) {
  MetricPlan plan;
  try {
    Global& g = global();
    std::lock_guard lock(g.mutex);
    if (!g.load_tried) {
      g.load_tried = true;
      g.api = load_cupti(g.load_error);
    }
    if (!g.api) {
      plan.error = g.load_error;
      return plan;
    }
    DeviceSetup s;
    s.chip = chip;
    configure_metrics(*g.api, s, metrics);
    delete_host(*g.api, s.host);
    plan.metrics = s.metrics;
    plan.passes = s.passes;
    plan.notes = s.notes;
    plan.duration_to_s = s.duration_to_s;
    plan.error = s.error;
  } catch (const std::exception& e) {
    plan.error = std::string("profiler: ") + e.what();
  }
  return plan;
}

KernelProfiler::KernelProfiler(int device) : device_(device) {}
KernelProfiler::~KernelProfiler() = default;

ProfileOutcome KernelProfiler::profile(const std::function<cudaError_t(cudaStream_t)>& launch,
                                       cudaStream_t stream) {
  try {
    Global& g = global();
    std::lock_guard lock(g.mutex);
    // A missing GPU or driver is answered before CUPTI is touched.
    if (cudaError_t e = cudaSetDevice(device_); e != cudaSuccess) {
      cudaGetLastError();
      return failure("no usable GPU " + std::to_string(device_) +
                     ": cudaSetDevice: " + cuda_text(e));
    }
    if (cudaError_t e = cudaFree(nullptr); e != cudaSuccess) {
      cudaGetLastError();
      return failure("no CUDA context on GPU " + std::to_string(device_) + ": " + cuda_text(e));
    }
    std::string error;
    std::optional<CUcontext> ctx = current_context(error);
    if (!ctx) return failure(error);

    if (!g.load_tried) {
      g.load_tried = true;
      g.api = load_cupti(g.load_error);
    }
    if (!g.api) return failure(g.load_error);
    const CuptiApi& api = *g.api;
    if (!g.initialized) {
      auto p =
          params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
      if (CUptiResult r = api.cuptiProfilerInitialize(&p); r != CUPTI_SUCCESS)
        return failure("cuptiProfilerInitialize: " + cupti_text(api, r));
      g.initialized = true;
    }
    auto [it, fresh] = g.devices.try_emplace(device_);
    DeviceSetup& setup = it->second;
    if (fresh) set_up_device(api, device_, *ctx, setup);
    if (!setup.error.empty())
      return failure("profiling unavailable on GPU " + std::to_string(device_) + ": " +
                     setup.error);
    return profile_once(api, setup, *ctx, launch, stream);
  } catch (const std::exception& e) {
    return failure(std::string("profiler: ") + e.what());
  }
}

}  // namespace ktune
