// Profiler metrics of one configuration (DRAM bytes, speed-of-light
// percentages, occupancy, L2 hit rate) and the bottleneck class derived from
// them. Pure C++: no CUDA, so the classification is tested anywhere.
#pragma once

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ktune {

/// What the CUPTI profiler measured over one launch of a configuration (all
/// of its kernels: counts are summed, percentages weighted by kernel time).
/// A field the profiler did not deliver is NaN.
struct ProfileMetrics {
  static constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();
  double dram_bytes_read = kMissing;     ///< dram__bytes_read.sum
  double dram_bytes_written = kMissing;  ///< dram__bytes_write.sum
  double compute_sol_pct = kMissing;     ///< sm__throughput.avg.pct_of_peak_sustained_elapsed
  double memory_sol_pct =
      kMissing;  ///< gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
  double dram_sol_pct = kMissing;            ///< dram__throughput.avg.pct_of_peak_sustained_elapsed
  double achieved_occupancy_pct = kMissing;  ///< sm__warps_active.avg.pct_of_peak_sustained_active
  double l2_hit_rate_pct = kMissing;         ///< lts__t_sector_hit_rate.pct
  double duration_s = kMissing;  ///< gpu__time_duration.sum (of the profiled launch, under replay)
  int kernels = 0;               ///< kernels (profiled ranges) in the launch
  int passes = 0;                ///< replay passes CUPTI needed for the metric set
};

/// The three classes of the speed-of-light analysis.
enum class BottleneckClass { memory, compute, latency };

std::string_view to_string(BottleneckClass c);

/// A bottleneck class with the figures it was decided on.
struct Bottleneck {
  BottleneckClass kind = BottleneckClass::latency;
  double compute_sol_pct = 0;
  double memory_sol_pct = 0;
  std::string reason;  ///< one line, with the figures
};

/// A unit counts as the bottleneck when its speed of light (throughput as a
/// percentage of its peak) reaches this.
inline constexpr double kSolBoundPct = 60.0;
/// Below this achieved occupancy a latency-bound kernel is said to lack warps.
inline constexpr double kLowOccupancyPct = 40.0;

/// Classifies from speed-of-light percentages:
/// - the larger of compute SOL and memory SOL decides when it is >= 60%:
///   `memory` if memory SOL >= compute SOL, else `compute`;
/// - both under 60%: `latency` (neither unit is near its peak: too few
///   warps in flight, dependency or synchronisation stalls, a partial wave,
///   launch overhead).
/// Memory SOL is `memory_sol_pct`, or `dram_sol_pct` when the former is
/// missing. Occupancy and L2 hit rate do not change the class; they go into
/// the reason when known. Throws std::invalid_argument when compute SOL or
/// both memory SOLs are missing (NaN) or negative.
Bottleneck classify_bottleneck(const ProfileMetrics& m);

/// The outcome of profiling one configuration: metrics, or why there are none.
struct ProfileOutcome {
  bool ok = false;
  ProfileMetrics metrics;                              ///< meaningful when ok
  nlohmann::json counters = nlohmann::json::object();  ///< raw values by CUPTI metric name
  std::string error;                                   ///< why profiling failed (when !ok)
  std::vector<std::string> notes;  ///< caveats of an ok outcome (metrics left out, kernels dropped)
  int launch_error = 0;  ///< the cudaError_t of the profiled launch itself when it failed, else 0
};

/// Writes an outcome into a Result's metrics: "profile" (the metrics and raw
/// counters, or {"error": why}), and when ok "bottleneck" (bottleneck_to_json)
/// and "bound" (the class name, read by the model searcher's steering).
/// Never throws: a classification that cannot be made is noted in "profile".
void store_profile(nlohmann::json& metrics, const ProfileOutcome& outcome);

/// {"dram_bytes_read", ..., "kernels", "passes"}: missing fields are left out.
nlohmann::json profile_metrics_to_json(const ProfileMetrics& m);
/// {"class", "compute_sol_pct", "memory_sol_pct", "reason"}.
nlohmann::json bottleneck_to_json(const Bottleneck& b);

}  // namespace ktune
