// Serialization of the worker's options (GpuEvaluatorOptions <-> JSON).
#include "engine/worker_protocol.hpp"

#include <stdexcept>

namespace ktune {

nlohmann::json gpu_options_to_json(const GpuEvaluatorOptions& o) {
  return {{"device", o.device},
          {"seed", o.seed},
          {"compiler",
           {{"arch", o.compiler.arch},
            {"cache_dir", o.compiler.cache_dir},
            {"extra", o.compiler.extra}}},
          {"timing",
           {{"warmup", o.timing.warmup},
            {"min_repetitions", o.timing.min_repetitions},
            {"max_repetitions", o.timing.max_repetitions},
            {"max_seconds", o.timing.max_seconds},
            {"target_spread", o.timing.target_spread},
            {"flush_l2", o.timing.flush_l2}}},
          {"check_determinism", o.check_determinism},
          {"kernel_timeout_s", o.kernel_timeout_s},
          {"compile_chunk", o.compile_chunk},
          {"profile", o.profile},
          {"energy", {{"enabled", o.energy.enabled}, {"min_window_s", o.energy.min_window_s}}}};
}

GpuEvaluatorOptions gpu_options_from_json(const nlohmann::json& j) {
  GpuEvaluatorOptions o;
  try {
    o.device = j.value("device", o.device);
    o.seed = j.value("seed", o.seed);
    if (j.contains("compiler")) {
      const auto& c = j.at("compiler");
      o.compiler.arch = c.value("arch", o.compiler.arch);
      o.compiler.cache_dir = c.value("cache_dir", o.compiler.cache_dir);
      o.compiler.extra = c.value("extra", o.compiler.extra);
    }
    if (j.contains("timing")) {
      const auto& t = j.at("timing");
      o.timing.warmup = t.value("warmup", o.timing.warmup);
      o.timing.min_repetitions = t.value("min_repetitions", o.timing.min_repetitions);
      o.timing.max_repetitions = t.value("max_repetitions", o.timing.max_repetitions);
      o.timing.max_seconds = t.value("max_seconds", o.timing.max_seconds);
      o.timing.target_spread = t.value("target_spread", o.timing.target_spread);
      o.timing.flush_l2 = t.value("flush_l2", o.timing.flush_l2);
    }
    o.check_determinism = j.value("check_determinism", o.check_determinism);
    o.kernel_timeout_s = j.value("kernel_timeout_s", o.kernel_timeout_s);
    o.compile_chunk = j.value("compile_chunk", o.compile_chunk);
    o.profile = j.value("profile", o.profile);
    if (j.contains("energy")) {
      const auto& e = j.at("energy");
      o.energy.enabled = e.value("enabled", o.energy.enabled);
      o.energy.min_window_s = e.value("min_window_s", o.energy.min_window_s);
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("malformed worker options: ") + e.what());
  }
  return o;
}

}  // namespace ktune
