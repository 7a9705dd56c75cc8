// The bottleneck classification and the JSON form of profiler metrics.
#include "measure/profiler_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace ktune {
namespace {

bool known(double v) { return std::isfinite(v); }

std::string pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", v);
  return buf;
}

// The figures that explain a class but do not decide it, as " (a, b)".
std::string context(const ProfileMetrics& m, bool memory_side) {
  std::string out;
  auto add = [&](const char* name, double v) {
    if (!known(v)) return;
    out += (out.empty() ? " (" : ", ") + std::string(name) + " " + pct(v);
  };
  if (memory_side) {
    add("DRAM SOL", m.dram_sol_pct);
    add("L2 hit rate", m.l2_hit_rate_pct);
  } else {
    add("achieved occupancy", m.achieved_occupancy_pct);
  }
  return out.empty() ? out : out + ")";
}

}  // namespace

std::string_view to_string(BottleneckClass c) {
  switch (c) {
    case BottleneckClass::memory:
      return "memory";
    case BottleneckClass::compute:
      return "compute";
    case BottleneckClass::latency:
      return "latency";
  }
  return "latency";
}

Bottleneck classify_bottleneck(const ProfileMetrics& m) {
  const double memory = known(m.memory_sol_pct) ? m.memory_sol_pct : m.dram_sol_pct;
  if (!known(m.compute_sol_pct) || m.compute_sol_pct < 0)
    throw std::invalid_argument(
        "classify_bottleneck: compute SOL (sm__throughput) is missing or negative");
  if (!known(memory) || memory < 0)
    throw std::invalid_argument(
        "classify_bottleneck: memory SOL (gpu__compute_memory_throughput or dram__throughput) is "
        "missing or negative");

  Bottleneck b;
  b.compute_sol_pct = m.compute_sol_pct;
  b.memory_sol_pct = memory;
  const std::string figures =
      "compute SOL " + pct(b.compute_sol_pct) + ", memory SOL " + pct(memory);
  if (std::max(memory, b.compute_sol_pct) >= kSolBoundPct) {
    if (memory >= b.compute_sol_pct) {
      b.kind = BottleneckClass::memory;
      b.reason = "memory SOL " + pct(memory) + " >= " + pct(kSolBoundPct) +
                 " and not below compute SOL " + pct(b.compute_sol_pct) + context(m, true);
    } else {
      b.kind = BottleneckClass::compute;
      b.reason = "compute SOL " + pct(b.compute_sol_pct) + " >= " + pct(kSolBoundPct) +
                 " and above memory SOL " + pct(memory) + context(m, false);
    }
    return b;
  }
  b.kind = BottleneckClass::latency;
  b.reason = figures + ", both under " + pct(kSolBoundPct);
  if (known(m.achieved_occupancy_pct)) {
    b.reason +=
        "; achieved occupancy " + pct(m.achieved_occupancy_pct) +
        (m.achieved_occupancy_pct < kLowOccupancyPct
             ? " (too few warps to hide latency)"
             : " (warps present but stalled: dependencies, synchronisation or a partial wave)");
  }
  return b;
}

nlohmann::json profile_metrics_to_json(const ProfileMetrics& m) {
  nlohmann::json j = nlohmann::json::object();
  auto put = [&](const char* key, double v) {
    if (known(v)) j[key] = v;
  };
  put("dram_bytes_read", m.dram_bytes_read);
  put("dram_bytes_written", m.dram_bytes_written);
  put("compute_sol_pct", m.compute_sol_pct);
  put("memory_sol_pct", m.memory_sol_pct);
  put("dram_sol_pct", m.dram_sol_pct);
  put("achieved_occupancy_pct", m.achieved_occupancy_pct);
  put("l2_hit_rate_pct", m.l2_hit_rate_pct);
  put("duration_s", m.duration_s);
  j["kernels"] = m.kernels;
  j["passes"] = m.passes;
  return j;
}

nlohmann::json bottleneck_to_json(const Bottleneck& b) {
  return {{"class", std::string(to_string(b.kind))},
          {"compute_sol_pct", b.compute_sol_pct},
          {"memory_sol_pct", b.memory_sol_pct},
          {"reason", b.reason}};
}

void store_profile(nlohmann::json& metrics, const ProfileOutcome& outcome) {
  if (!metrics.is_object()) metrics = nlohmann::json::object();
  if (!outcome.ok) {
    metrics["profile"] = {
        {"error", outcome.error.empty() ? std::string("profiling failed") : outcome.error}};
    return;
  }
  nlohmann::json profile = profile_metrics_to_json(outcome.metrics);
  profile["counters"] = outcome.counters;
  if (!outcome.notes.empty()) profile["notes"] = outcome.notes;
  try {
    Bottleneck b = classify_bottleneck(outcome.metrics);
    metrics["bottleneck"] = bottleneck_to_json(b);
    metrics["bound"] = std::string(to_string(b.kind));
  } catch (const std::exception& e) {
    profile["classification_error"] = e.what();
  }
  metrics["profile"] = std::move(profile);
}

}  // namespace ktune
