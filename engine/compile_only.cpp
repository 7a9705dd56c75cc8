// Compile-only runs: configuration choice, parallel NVRTC compiles, JSON report.
#include "engine/compile_only.hpp"

#include <stdexcept>

#include "kernels_user/user_family.hpp"

namespace ktune {
namespace {

std::optional<std::int64_t> dynamic_smem_bytes(const KernelFamily& family, const Problem& problem,
                                               const Config& c, const DeviceSpec& device) {
  const auto* user = dynamic_cast<const user::UserFamily*>(&family);
  if (!user) return std::nullopt;
  try {
    return user->launch(problem, c, device).shared_memory;
  } catch (const user::DescriptionError&) {
    return std::nullopt;  // its launch does not evaluate: it would fail when run
  }
}

}  // namespace

CompileTarget resolve_compile_target(const std::string& text) {
  // "sm_90a" names the arch-specific target of sm_90: the device is sm_90's.
  std::string lookup = text;
  const bool arch_specific = text.rfind("sm_", 0) == 0 && text.size() > 3 && text.back() == 'a';
  if (arch_specific) lookup.pop_back();
  std::optional<DeviceSpec> device = find_builtin_device(lookup);
  if (!device) {
    std::string known;
    for (const DeviceSpec& d : builtin_devices())
      known += (known.empty() ? "" : ", ") + d.name + " (" + d.arch() + ")";
    throw std::invalid_argument(
        "--arch '" + text + "' names no built-in device or architecture (built in: " + known + ")");
  }
  const bool is_arch = text.rfind("sm_", 0) == 0;
  return {*device, is_arch ? text : device->arch()};
}

std::vector<Config> compile_only_configs(const Space& space, std::size_t budget, std::uint64_t seed,
                                         bool whole_space_allowed) {
  if (budget > 0) return space.sample(budget, seed);
  if (!whole_space_allowed)
    throw std::invalid_argument(
        "--compile-only needs --budget N (configurations to compile) or --require "
        "EXPR (compile the whole sub-space)");
  return space.enumerate();
}

std::size_t CompileOnlyReport::failed() const {
  std::size_t n = 0;
  for (const auto& e : entries) n += e.output.ok ? 0 : 1;
  return n;
}

CompileOnlyReport compile_configurations(const KernelFamily& family, const Problem& problem,
                                         const CompileTarget& target,
                                         const std::vector<Config>& configs,
                                         const std::string& cache_dir) {
  CompilerOptions options;
  options.arch = target.arch;
  options.cache_dir = cache_dir;
  const Compiler compiler(options);
  std::vector<KernelSource> sources;
  sources.reserve(configs.size());
  for (const Config& c : configs) sources.push_back(family.source(problem, c));
  std::vector<CompileOutput> outputs = compiler.compile_all(sources);

  CompileOnlyReport report{
      std::string(family.name()), problem.key(), target.device.name, target.arch, {}};
  for (std::size_t i = 0; i < configs.size(); ++i)
    report.entries.push_back({configs[i], std::move(outputs[i]),
                              dynamic_smem_bytes(family, problem, configs[i], target.device)});
  return report;
}

nlohmann::json to_json(const CompileOnlyReport& report) {
  nlohmann::json configs = nlohmann::json::array();
  for (const auto& e : report.entries) {
    nlohmann::json kernels = nlohmann::json::array();
    for (const auto& k : e.output.kernels) kernels.push_back(kernel_resources_json(k));
    nlohmann::json item = {{"config", e.config.to_json()},
                           {"key", e.config.key()},
                           {"ok", e.output.ok},
                           {"compile_seconds", e.output.compile_seconds},
                           {"cache_hit", e.output.cache_hit},
                           {"kernels", kernels}};
    if (e.dynamic_smem_bytes) item["dynamic_smem_bytes"] = *e.dynamic_smem_bytes;
    if (!e.output.ok) item["error"] = e.output.log;
    configs.push_back(std::move(item));
  }
  return {{"family", report.family},
          {"problem", report.problem},
          {"device", report.device},
          {"arch", report.arch},
          {"compiled", report.entries.size() - report.failed()},
          {"failed", report.failed()},
          {"configurations", configs}};
}

}  // namespace ktune
