#include "compile/cubin_rehash.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "compile/cubin_compare.hpp"
#include "compile/family_hash.hpp"

namespace ktune {
namespace {

/// The stale configurations one architecture compiles, with their sources.
struct Batch {
  std::vector<const StaleConfiguration*> stale;
  std::vector<KernelSource> sources;
};

/// Why a comparison left its results behind, or "" when the cubins are identical.
std::string difference(const CompileOutput& before, const CompileOutput& now) {
  if (!before.ok) return "does not compile against the old templates";
  if (!now.ok) return "does not compile against the current templates";
  std::string why;
  if (!same_machine_code(before.cubin, now.cubin, &why)) return "the cubins differ (" + why + ")";
  return "";
}

}  // namespace

CubinRehashSummary rehash_identical_cubins(Store& store, const KernelFamily& family,
                                           const CubinRehashOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (options.old_kernel_dir.empty() || !fs::is_directory(options.old_kernel_dir, ec))
    throw std::invalid_argument("--compare-cubins: '" + options.old_kernel_dir +
                                "' is not a folder");
  const std::string family_name(family.name());
  CubinRehashSummary s;
  auto left_behind = [&s](const StaleConfiguration& sc, const std::string& why) {
    if (s.examples.size() < 5)
      s.examples.push_back(sc.problem.key() + " | " + sc.config.key() + ": " + why);
  };

  // The stale configurations measured with the old folder's text: their stored
  // hash is what that text hashes to for their problem and GPU.
  const std::vector<StaleConfiguration> stale =
      stale_configurations(store, family_name, current_hash_resolver());
  std::map<std::tuple<std::string, std::string, std::string>, std::string>
      old_hashes;                        // (device, arch, problem)
  std::map<std::string, Batch> batches;  // by architecture
  for (const auto& sc : stale) {
    if (!options.from_hash.empty() && sc.hash != options.from_hash) continue;
    const DeviceSpec device = stored_device_spec(sc.device, sc.arch);
    auto [it, fresh] =
        old_hashes.try_emplace(std::make_tuple(sc.device, sc.arch, sc.problem.key()));
    if (fresh) {
      try {
        it->second = family_source_hash(family, sc.problem, device, options.old_kernel_dir);
      } catch (const std::runtime_error& e) {
        throw std::invalid_argument("--compare-cubins: '" + options.old_kernel_dir +
                                    "' does not hold the " + family_name +
                                    " templates: " + e.what());
      }
    }
    if (it->second != sc.hash) {
      ++s.other_text;
      continue;
    }
    ++s.compared;
    try {
      KernelSource source = family.source(sc.problem, sc.config);
      Batch& batch = batches[device.arch()];
      batch.stale.push_back(&sc);
      batch.sources.push_back(std::move(source));
    } catch (const std::exception& e) {  // a configuration this build's family no longer writes
      ++s.failed;
      left_behind(sc, e.what());
    }
  }
  for (const auto& [arch, batch] : batches)
    s.compilations += 2 * static_cast<std::int64_t>(batch.sources.size());

  // Each side compiles with its own folder and without the precompiled header,
  // so that nothing but the template text differs between the two.
  std::vector<StaleConfiguration> identical;
  const auto start = std::chrono::steady_clock::now();
  for (const auto& [arch, batch] : batches) {
    CompilerOptions before = options.compiler, now = options.compiler;
    before.arch = now.arch = arch;
    before.precompiled_headers = now.precompiled_headers = false;
    before.kernel_dir = options.old_kernel_dir;
    now.kernel_dir.clear();  // the current templates, as current_hash_resolver() reads them
    const std::vector<CompileOutput> old_cubins = Compiler(before).compile_all(batch.sources);
    const std::vector<CompileOutput> new_cubins = Compiler(now).compile_all(batch.sources);
    for (std::size_t j = 0; j < batch.sources.size(); ++j) {
      const StaleConfiguration& sc = *batch.stale[j];
      const std::string why = difference(old_cubins[j], new_cubins[j]);
      if (why.empty()) {
        ++s.identical;
        identical.push_back(sc);
        continue;
      }
      ++(old_cubins[j].ok && new_cubins[j].ok ? s.different : s.failed);
      left_behind(sc, why);
    }
  }
  s.compile_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  s.rekey = rekey_configurations(store, identical, options.dry_run);
  return s;
}

}  // namespace ktune
