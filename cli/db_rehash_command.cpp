// `ktune db rehash`: re-key results stored under a legacy whole-family
// template hash to their kernel path's hash; with --compare-cubins, carry
// stale results across a template edit that leaves their cubins unchanged.
#include <cstdio>
#include <memory>

#include "cli/command.hpp"
#include "cli/db_shared.hpp"
#include "compile/compiler.hpp"
#include "compile/cubin_rehash.hpp"
#include "compile/family_hash.hpp"
#include "db/current_hash.hpp"
#include "db/store.hpp"
#include "kernels_templated/family.hpp"

namespace ktune::cli {
namespace {

int run_rehash(const std::string& path, const std::string& kernel, std::string from, bool dry_run) {
  const KernelFamily& family = find_family(kernel);
  const bool given = !from.empty();
  if (!given)
    from = family_source_hash(family);  // the legacy whole-family hash of this build's text
  Store store = dry_run ? Store::open_read_only(path) : Store::open(path);
  RehashSummary s = rehash_results(store, kernel, from, current_hash_resolver(), dry_run);
  std::printf("%s %s results keyed by %s (%s) to their kernel path's hash in %s\n",
              dry_run ? "would re-key" : "re-keyed", kernel.c_str(), from.c_str(),
              given ? "given with --from" : "whole-family hash of the current templates",
              path.c_str());
  for (const auto& [h, n] : s.by_new_hash)
    std::printf("  -> %s: %lld results\n", h.c_str(), (long long)n);
  std::printf("  %lld results %s", (long long)s.rehashed, dry_run ? "would move" : "moved");
  if (s.duplicates) std::printf(", %lld duplicate copies removed", (long long)s.duplicates);
  std::printf("; %lld already under their path's hash; %lld with no known path (left alone)\n",
              (long long)s.already_current, (long long)s.unknown);
  for (const auto& [h, n] : s.left_alone)
    std::printf("  left alone: %s@%s: %lld results (another hash)\n", kernel.c_str(), h.c_str(),
                (long long)n);
  return 0;
}

// `db rehash --compare-cubins`: compile/cubin_rehash.hpp.
int run_cubin_rehash(const std::string& path, const std::string& kernel, const std::string& from,
                     const std::string& old_dir, bool dry_run) {
  const KernelFamily& family = find_family(kernel);
  Store store = dry_run ? Store::open_read_only(path) : Store::open(path);
  CubinRehashOptions options;
  options.old_kernel_dir = old_dir;
  options.from_hash = from;
  options.compiler.cache_dir = default_compile_cache_dir();
  options.dry_run = dry_run;
  const CubinRehashSummary s = rehash_identical_cubins(store, family, options);
  std::printf(
      "compared the cubins of %lld stale %s configurations measured with the templates in %s "
      "against the "
      "current templates (%lld compilations, %.1f s)\n",
      (long long)s.compared, kernel.c_str(), old_dir.c_str(), (long long)s.compilations,
      s.compile_seconds);
  std::printf("  %lld identical: %lld results %s to their current hash", (long long)s.identical,
              (long long)s.rekey.moved, dry_run ? "would move" : "moved");
  if (s.rekey.duplicates)
    std::printf(" (%lld duplicate copies removed)", (long long)s.rekey.duplicates);
  std::printf(
      "\n  left under their hash: %lld with different cubins, %lld that failed to compile, %lld "
      "stored under "
      "a hash these templates do not give\n",
      (long long)s.different, (long long)s.failed, (long long)s.other_text);
  for (const auto& e : s.examples) std::printf("    %s\n", e.c_str());
  if (s.compared == 0 && s.other_text > 0)
    std::printf(
        "  no stale result was measured with the text in %s: give the kernels_templated folder of "
        "the "
        "commit they were measured at (a git worktree of it, say)\n",
        old_dir.c_str());
  return 0;
}

const CommandRegistrar registrar(kDbRehash, [](CLI::App& app) {
  struct Options {
    std::string db = default_db_path(), kernel, from, old_kernel_dir;
    bool dry_run = false;
  };
  auto o = std::make_shared<Options>();
  auto* rehash = app.get_subcommand("db")->add_subcommand(
      "rehash",
      "Re-key results stored under a legacy whole-family template hash to the per-kernel-path hash "
      "of "
      "their problem and GPU (one transaction; other hashes are left alone and counted); with "
      "--compare-cubins, carry stale results across a template edit that leaves their cubins "
      "unchanged");
  add_db_option(rehash, o->db);
  rehash->add_option("--kernel", o->kernel, "Kernel family, e.g. gemm")->required();
  rehash->add_option("--from", o->from,
                     "Hash to re-key (default: the whole-family hash of this build's "
                     "templates); asserts each path's files are unchanged since it was measured");
  rehash->add_option("--compare-cubins", o->old_kernel_dir,
                     "A kernels_templated folder (an older checkout's) holding the text stale "
                     "results were measured "
                     "with: re-key instead each stale configuration whose cubin compiled against "
                     "that text holds the "
                     "same machine code as the one compiled against the current text (with --from: "
                     "only that hash)");
  rehash->add_flag("--dry-run", o->dry_run, "Count what would be re-keyed, write nothing");
  rehash->callback([o] {
    set_exit_code(o->old_kernel_dir.empty()
                      ? run_rehash(o->db, o->kernel, o->from, o->dry_run)
                      : run_cubin_rehash(o->db, o->kernel, o->from, o->old_kernel_dir, o->dry_run));
  });
});

}  // namespace
}  // namespace ktune::cli
