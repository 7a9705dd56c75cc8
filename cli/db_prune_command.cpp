// `ktune db prune --stale`: remove results measured with older template text,
// then the configurations, family versions and problems no result references.
#include <cstdio>
#include <memory>

#include "cli/command.hpp"
#include "cli/db_shared.hpp"
#include "compile/family_hash.hpp"
#include "db/current_hash.hpp"
#include "db/store.hpp"
#include "kernels_templated/family.hpp"

namespace ktune::cli {
namespace {

// "; M unreferenced configurations, F family versions, P problems": the rows
// a prune deletes with the results, as no result references them any more.
std::string unreferenced_text(const PruneSummary& s) {
  return "; " + std::to_string(s.configs) + " unreferenced configurations, " +
         std::to_string(s.families) + " family versions, " + std::to_string(s.problems) +
         " problems";
}

void prune_stale(const std::string& path, const std::string& kernel, const std::string& hash,
                 bool dry_run) {
  if (hash.empty()) {
    // Stale per row: not the hash of the current text of its kernel path.
    find_family(kernel);  // an unknown family is a usage error, not "everything is stale"
    const CurrentHash current = current_hash_resolver();
    Store store = dry_run ? Store::open_read_only(path) : Store::open(path);
    for (const auto& st : stale_results(store, kernel, current))
      std::printf("%s %s@%s: %lld results\n", dry_run ? "would remove" : "removing",
                  st.family.c_str(), st.family_hash.c_str(), (long long)st.results);
    PruneSummary s = prune_stale_results(store, kernel, current, dry_run);
    std::printf("%s %lld stale results of %s (current: each kernel path's template hash)%s\n",
                dry_run ? "would remove" : "removed", (long long)s.results, kernel.c_str(),
                unreferenced_text(s).c_str());
    return;
  }
  // One explicit current hash for every row of the family.
  Store store = dry_run ? Store::open_read_only(path) : Store::open(path);
  for (const auto& st : store.stale(kernel, hash))
    std::printf("%s %s@%s: %lld results\n", dry_run ? "would remove" : "removing",
                st.family.c_str(), st.family_hash.c_str(), (long long)st.results);
  PruneSummary s = store.prune_stale(kernel, hash, dry_run);
  std::printf("%s %lld stale results of %s (current template hash %s)%s\n",
              dry_run ? "would remove" : "removed", (long long)s.results, kernel.c_str(),
              hash.c_str(), unreferenced_text(s).c_str());
}

int run_prune(const std::string& path, const std::string& kernel, const std::string& hash,
              bool stale_flag, bool dry_run) {
  if (!stale_flag) throw UsageError("prune needs what to remove: --stale");
  if (kernel.empty()) throw UsageError("prune needs --kernel FAMILY");
  prune_stale(path, kernel, hash, dry_run);
  return 0;
}

const CommandRegistrar registrar(kDbPrune, [](CLI::App& app) {
  struct Options {
    std::string db = default_db_path(), kernel, hash;
    bool stale = false, dry_run = false;
  };
  auto o = std::make_shared<Options>();
  auto* prune = app.get_subcommand("db")->add_subcommand(
      "prune",
      "Remove stale results (measured with older template text), then "
      "the configurations, family versions and problems no result references");
  add_db_option(prune, o->db);
  prune->add_flag("--stale", o->stale, "Remove results whose template hash is not the current one");
  prune->add_option("--kernel", o->kernel, "Kernel family")->required();
  prune->add_option("--hash", o->hash,
                    "One current template hash for every result (default: per result, the "
                    "hash of this build's templates of the kernel path its problem and GPU take)");
  prune->add_flag("--dry-run", o->dry_run, "List what would be removed, write nothing");
  prune->callback(
      [o] { set_exit_code(run_prune(o->db, o->kernel, o->hash, o->stale, o->dry_run)); });
});

}  // namespace
}  // namespace ktune::cli
