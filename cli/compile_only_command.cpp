// `ktune tune --compile-only`: resolves family, problem and target, picks the
// configurations, compiles them and prints the report.
#include "cli/compile_only_command.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/command.hpp"
#include "cli/user_kernel_option.hpp"
#include "engine/compile_only.hpp"

namespace ktune::cli {
namespace {

/// The first `lines` lines of a compiler log, indented, for the table.
std::string log_head(const std::string& log, int lines) {
  std::istringstream in(log);
  std::string line, out;
  for (int n = 0; n < lines && std::getline(in, line);)
    if (!line.empty()) out += "      " + line + "\n", ++n;
  return out;
}

void print_table(const CompileOnlyReport& report) {
  // Shared memory: the static bytes ptxas reports, and the dynamic bytes the
  // launch asks for (where the family states them; "-" otherwise).
  std::printf("%-4s %5s %12s %10s %10s %8s  %s\n", "ok", "regs", "spill st/ld", "smem B",
              "dyn smem B", "compile", "configuration");
  for (const auto& e : report.entries) {
    const auto& o = e.output;
    const std::string dynamic =
        e.dynamic_smem_bytes ? std::to_string(*e.dynamic_smem_bytes) : std::string("-");
    if (!o.ok) {
      std::printf("%-4s %5s %12s %10s %10s %8s  %s\n%s", "FAIL", "-", "-", "-", dynamic.c_str(),
                  "-", e.config.key().c_str(), log_head(o.log, 6).c_str());
      continue;
    }
    // A configuration of several kernels shows its largest figures.
    int regs = 0, st = 0, ld = 0, smem = 0;
    for (const auto& k : o.kernels) {
      regs = std::max(regs, k.registers);
      st = std::max(st, k.spill_store_bytes);
      ld = std::max(ld, k.spill_load_bytes);
      smem = std::max(smem, k.static_smem_bytes);
    }
    const std::string spill = std::to_string(st) + "/" + std::to_string(ld);
    std::printf("%-4s %5d %12s %10d %10s %7.2fs  %s%s\n", "ok", regs, spill.c_str(), smem,
                dynamic.c_str(), o.compile_seconds, e.config.key().c_str(),
                o.cache_hit ? "  (cached)" : "");
  }
  std::printf("\n%zu compiled, %zu failed to compile.\n", report.entries.size() - report.failed(),
              report.failed());
}

}  // namespace

int run_compile_only(const TuneSpec& spec, const std::string& arch, bool as_json) {
  if (!spec.replay.empty())
    throw UsageError("--compile-only compiles a family's kernels: it takes no --replay");
  if (spec.kernel.empty())
    throw UsageError("--compile-only needs --kernel FAMILY (or --spec FILE)");
  if (spec.profile) throw UsageError("--compile-only runs nothing on a GPU: it takes no --profile");
  const KernelFamily& family = find_family(spec.kernel);
  Problem problem;
  try {
    problem = parse_problem(family, spec.problem);  // a user kernel's sizes may all have defaults
  } catch (const ProblemError&) {
    if (!spec.problem.empty()) throw;
    throw UsageError(spec.kernel + " needs --problem (" + std::string(family.problem_help()) + ")");
  }
  const CompileTarget target = resolve_compile_target(arch);
  Space space = family.space(problem, target.device);
  try {
    space.require_nonempty();
  } catch (const SpaceError& e) {
    throw UsageError(e.what());
  }
  check_user_kernel_source(family, problem, target.device, target.arch);
  restrict_space(space, spec.require);
  const std::vector<Config> configs =
      compile_only_configs(space, spec.options.budget, spec.seed, !spec.require.empty());

  if (!as_json)
    std::cout << "Compiling " << configs.size() << " configurations of " << family.name() << " for "
              << problem.key() << " with NVRTC " << Compiler::nvrtc_version() << " for "
              << target.arch << " (" << target.device.name << "); nothing runs on a GPU\n"
              << std::flush;
  const CompileOnlyReport report =
      compile_configurations(family, problem, target, configs, default_compile_cache_dir());
  if (as_json)
    std::cout << to_json(report).dump(2) << "\n";
  else
    print_table(report);
  return report.failed() == 0 ? 0 : 1;
}

}  // namespace ktune::cli
