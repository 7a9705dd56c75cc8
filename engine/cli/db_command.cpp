// `ktune db`: stats, query, diff, export, import, merge, prune, rehash,
// emit-dispatch, checkpoint and migrate over tuning databases.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "compile/family_hash.hpp"
#include "db/current_hash.hpp"
#include "db/dispatch_emitter.hpp"
#include "db/exchange.hpp"
#include "db/merge.hpp"
#include "db/partial_file.hpp"
#include "db/query.hpp"
#include "db/schema.hpp"
#include "db/store.hpp"
#include "engine/cli/command.hpp"
#include "engine/cubin_rehash.hpp"
#include "engine/import_family_check.hpp"
#include "engine/lookup_validity.hpp"
#include "engine/timing.hpp"
#include "kernels_templated/family.hpp"
#include "kernels_templated/problem_check.hpp"

namespace ktune::cli {
namespace {

std::string format_time(double seconds) {
  char buf[64];
  if (seconds <= 0) return "-";
  if (seconds < 1e-3) std::snprintf(buf, sizeof buf, "%.2f us", seconds * 1e6);
  else if (seconds < 1) std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
  else std::snprintf(buf, sizeof buf, "%.3f s", seconds);
  return buf;
}

// The current hash of each stored row: the hash of its kernel path's template
// text in this build. Where the templates cannot be read (a binary without
// them), "" after one note: the family's newest-measured version is current.
CurrentHash lenient_current_hash() {
  auto strict = current_hash_resolver();
  auto noted = std::make_shared<bool>(false);
  return [strict, noted](const std::string& family, const Problem& problem, const std::string& device,
                         const std::string& arch) -> std::string {
    try {
      return strict(family, problem, device, arch);
    } catch (const std::runtime_error& e) {
      if (!*noted) std::fprintf(stderr, "note: %s; the newest-measured template version counts as current\n", e.what());
      *noted = true;
      return "";
    }
  };
}

nlohmann::json best_row_json(const BestRow& r) {
  return {{"family", r.family},       {"family_hash", r.family_hash}, {"device", r.device},
          {"arch", r.arch},           {"problem", r.problem.to_json()}, {"problem_key", r.problem_key},
          {"config", r.config.to_json()}, {"config_key", r.config_key}, {"median_s", r.median_s},
          {"tflops", r.tflops},       {"gbps", r.gbps},               {"ok_measurements", r.ok_measurements},
          {"source", r.provenance.source}, {"host", r.provenance.host},
          {"measured_at", r.provenance.measured_at}, {"rank", r.rank}};
}

void print_best_table(const std::vector<BestRow>& rows) {
  std::printf("%-28s %-12s %-52s %4s %-12s %10s %9s  %s\n", "device", "family", "problem", "rank", "median",
              "TFLOP/s", "GB/s", "configuration");
  std::size_t problems = 0;
  for (const auto& r : rows) {
    if (r.rank == 1) ++problems;
    std::printf("%-28s %-12s %-52s %4d %-12s %10.2f %9.1f  %s\n", r.device.c_str(), r.family.c_str(),
                r.problem_key.c_str(), r.rank, format_time(r.median_s).c_str(), r.tflops, r.gbps,
                r.config_key.c_str());
  }
  std::printf("%zu problems\n", problems);
}

/// For scripts: per (family, device, problem) one line, the problem key and
/// then its configurations' keys in rank order, '|'-separated: the arguments
/// of `bench_gemm_bench --problem P --config C1 --config C2 ...`.
void print_best_keys(const std::vector<BestRow>& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].rank == 1) std::printf("%s%s", i == 0 ? "" : "\n", rows[i].problem_key.c_str());
    std::printf("|%s", rows[i].config_key.c_str());
  }
  if (!rows.empty()) std::printf("\n");
}

/// ok results whose repetitions missed the spread target: marked noisy
/// (metrics.timing.noisy, engine/timing.hpp), and older ones stored before the
/// mark existed whose spread is above the default target.
struct NoisyCount {
  std::int64_t marked = 0, unmarked_over_target = 0;
};

NoisyCount count_noisy(const Store& store) {
  NoisyCount n;
  const double target = TimingOptions{}.target_spread;
  store.for_each([&](const Measurement& m) {
    const Result& r = m.result;
    if (!r.ok()) return true;
    const auto timing = r.metrics.find("timing");
    if (timing != r.metrics.end() && timing->is_object() && timing->contains("noisy")) {
      if (timing->at("noisy").is_boolean() && timing->at("noisy").get<bool>()) ++n.marked;
    } else if (r.time.spread > target) {
      ++n.unmarked_over_target;
    }
    return true;
  });
  return n;
}

int run_stats(const std::string& path, bool as_json) {
  Store store = Store::open_read_only(path);
  StoreStats s = store.stats();
  auto stale = stale_results(store, "", lenient_current_hash());
  const NoisyCount noisy = count_noisy(store);
  if (as_json) {
    nlohmann::json j{{"database", path},        {"schema_version", store.schema_version()},
                     {"devices", s.devices},    {"families", s.families},
                     {"problems", s.problems},  {"configs", s.configs},
                     {"results", s.results}};
    for (const auto& [k, v] : s.by_status) j["by_status"][k] = v;
    for (const auto& [k, v] : s.by_family) j["by_family"][k] = v;
    for (const auto& [k, v] : s.by_device) j["by_device"][k] = v;
    j["noisy"] = {{"marked", noisy.marked}, {"unmarked_over_target", noisy.unmarked_over_target}};
    j["stale"] = nlohmann::json::array();
    for (const auto& st : stale)
      j["stale"].push_back({{"family", st.family}, {"family_hash", st.family_hash}, {"results", st.results}});
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("%s (schema v%d)\n", path.c_str(), store.schema_version());
  std::printf("  %lld results, %lld configurations, %lld problems, %lld devices, %lld family versions\n",
              (long long)s.results, (long long)s.configs, (long long)s.problems, (long long)s.devices,
              (long long)s.families);
  std::printf("  by status:");
  for (const auto& [k, v] : s.by_status) std::printf(" %s %lld", k.c_str(), (long long)v);
  std::printf("\n  noisy timings (ok results that missed the spread target): %lld marked, %lld older unmarked above %g\n",
              (long long)noisy.marked, (long long)noisy.unmarked_over_target, TimingOptions{}.target_spread);
  std::printf("  by family version:\n");
  for (const auto& [k, v] : s.by_family) std::printf("    %-40s %lld\n", k.c_str(), (long long)v);
  std::printf("  by device:\n");
  for (const auto& [k, v] : s.by_device) std::printf("    %-40s %lld\n", k.c_str(), (long long)v);
  if (!stale.empty()) {
    std::printf("  stale (older template text, never served; `ktune db prune --stale --kernel F`):\n");
    for (const auto& st : stale)
      std::printf("    %s@%s: %lld results\n", st.family.c_str(), st.family_hash.c_str(), (long long)st.results);
    std::printf("  (where an edit left their code unchanged, `ktune db rehash --kernel F --compare-cubins "
                "OLD/kernels_templated` keeps them)\n");
  }
  return 0;
}

int run_query(const std::string& path, const std::string& kernel, const std::string& device, int top, bool as_json,
              bool keys) {
  Store store = Store::open_read_only(path);
  BestQuery query{kernel, device, "", lenient_current_hash()};
  query.top = top;
  auto rows = best_per_problem(store, query);
  if (keys) {
    print_best_keys(rows);
  } else if (as_json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& r : rows) j.push_back(best_row_json(r));
    std::cout << j.dump(2) << "\n";
  } else {
    print_best_table(rows);
  }
  return 0;
}

int run_diff(const std::string& a, const std::string& b, const std::string& kernel,
             const std::string& device, bool as_json) {
  BestDiff d = diff_best(Store::open_read_only(a), Store::open_read_only(b), {kernel, device, "", lenient_current_hash()});
  if (as_json) {
    nlohmann::json j{{"same", d.same}, {"only_a", nlohmann::json::array()},
                     {"only_b", nlohmann::json::array()}, {"changed", nlohmann::json::array()}};
    for (const auto& r : d.only_a) j["only_a"].push_back(best_row_json(r));
    for (const auto& r : d.only_b) j["only_b"].push_back(best_row_json(r));
    for (const auto& c : d.changed) j["changed"].push_back({{"a", best_row_json(c.a)}, {"b", best_row_json(c.b)}});
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  for (const auto& r : d.only_a)
    std::printf("- only in A: %s %s %s: %s (%s)\n", r.device.c_str(), r.family.c_str(), r.problem_key.c_str(),
                r.config_key.c_str(), format_time(r.median_s).c_str());
  for (const auto& r : d.only_b)
    std::printf("+ only in B: %s %s %s: %s (%s)\n", r.device.c_str(), r.family.c_str(), r.problem_key.c_str(),
                r.config_key.c_str(), format_time(r.median_s).c_str());
  for (const auto& c : d.changed)
    std::printf("~ %s %s %s: A %s (%s, hash %s) / B %s (%s, hash %s)\n", c.a.device.c_str(), c.a.family.c_str(),
                c.a.problem_key.c_str(), c.a.config_key.c_str(), format_time(c.a.median_s).c_str(),
                c.a.family_hash.c_str(), c.b.config_key.c_str(), format_time(c.b.median_s).c_str(),
                c.b.family_hash.c_str());
  std::printf("%zu only in A, %zu only in B, %zu with another best, %lld the same\n", d.only_a.size(),
              d.only_b.size(), d.changed.size(), (long long)d.same);
  return 0;
}

ExchangeFormat pick_format(const std::string& format, const std::string& file) {
  if (!format.empty()) return exchange_format_from_string(format);
  if (file == "-") return ExchangeFormat::jsonl;
  return exchange_format_for_path(file);
}

int run_export(const std::string& path, const std::string& file, const std::string& format) {
  Store store = Store::open_read_only(path);
  ExchangeFormat f = pick_format(format, file);
  std::int64_t n = 0;
  if (file == "-") {
    n = export_measurements(store, std::cout, f);
  } else {
    // A failed or killed export leaves the previous file (or none), never half of one.
    write_file_whole(file, [&](std::ostream& out) { n = export_measurements(store, out, f); });
  }
  std::fprintf(stderr, "exported %lld measurements (%s)\n", (long long)n, std::string(to_string(f)).c_str());
  return 0;
}

int run_import(const std::string& path, const std::string& file, const std::string& format) {
  ExchangeFormat f = pick_format(format, file);
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);  // of what a link points to
  if (ec) throw UsageError("cannot read '" + file + "': " + ec.message());
  if (std::filesystem::is_directory(status))
    throw UsageError("'" + file + "' is a folder, not a file to import");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UsageError("cannot read '" + file + "'");
  // Parsed and checked in full before the database is even opened: a
  // malformed record leaves it (or its absence) exactly as it was.
  std::vector<Measurement> all;
  FamilyImportCheck check(lenient_current_hash());
  try {
    all = parse_measurements(in, f, ImportOptions{[&check](const Measurement& m) { check(m); }});
  } catch (const ImportError& e) {
    throw UsageError("'" + file + "' " + e.what() + " (nothing imported)");
  }
  Store store = Store::open(path);
  ImportSummary s;
  s.read = static_cast<std::int64_t>(all.size());
  s.added = store.insert(all);
  std::printf("read %lld measurements, %lld new, into %s\n", (long long)s.read, (long long)s.added, path.c_str());
  if (!check.unregistered().empty()) {
    std::string families;
    for (const auto& [name, n] : check.unregistered())
      families += (families.empty() ? "" : ", ") + name + " (" + std::to_string(n) + ")";
    std::fprintf(stderr,
                 "note: kernels this build does not register, stored without a space check: %s\n",
                 families.c_str());
  }
  return 0;
}

int run_merge(const std::vector<std::string>& inputs, const std::string& output) {
  if (inputs.size() < 1) throw UsageError("merge needs at least one input database");
  MergeSummary m = merge_databases(inputs, output);
  std::printf("read %lld measurements from %zu databases, %lld new; %s holds %lld\n", (long long)m.read,
              inputs.size(), (long long)m.added, output.c_str(), (long long)m.output_total);
  return 0;
}

// "; M unreferenced configurations, F family versions, P problems": the rows
// a prune deletes with the results, as no result references them any more.
std::string unreferenced_text(const PruneSummary& s) {
  return "; " + std::to_string(s.configs) + " unreferenced configurations, " + std::to_string(s.families) +
         " family versions, " + std::to_string(s.problems) + " problems";
}

void prune_stale(const std::string& path, const std::string& kernel, const std::string& hash, bool dry_run) {
  if (hash.empty()) {
    // Stale per row: not the hash of the current text of its kernel path.
    find_family(kernel);  // an unknown family is a usage error, not "everything is stale"
    const CurrentHash current = current_hash_resolver();
    Store store = dry_run ? Store::open_read_only(path) : Store::open(path);
    for (const auto& st : stale_results(store, kernel, current))
      std::printf("%s %s@%s: %lld results\n", dry_run ? "would remove" : "removing", st.family.c_str(),
                  st.family_hash.c_str(), (long long)st.results);
    PruneSummary s = prune_stale_results(store, kernel, current, dry_run);
    std::printf("%s %lld stale results of %s (current: each kernel path's template hash)%s\n",
                dry_run ? "would remove" : "removed", (long long)s.results, kernel.c_str(),
                unreferenced_text(s).c_str());
    return;
  }
  // One explicit current hash for every row of the family.
  Store store = dry_run ? Store::open_read_only(path) : Store::open(path);
  for (const auto& st : store.stale(kernel, hash))
    std::printf("%s %s@%s: %lld results\n", dry_run ? "would remove" : "removing", st.family.c_str(),
                st.family_hash.c_str(), (long long)st.results);
  PruneSummary s = store.prune_stale(kernel, hash, dry_run);
  std::printf("%s %lld stale results of %s (current template hash %s)%s\n", dry_run ? "would remove" : "removed",
              (long long)s.results, kernel.c_str(), hash.c_str(), unreferenced_text(s).c_str());
}

int run_prune(const std::string& path, const std::string& kernel, const std::string& hash,
              bool stale_flag, bool dry_run) {
  if (!stale_flag) throw UsageError("prune needs what to remove: --stale");
  if (kernel.empty()) throw UsageError("prune needs --kernel FAMILY");
  prune_stale(path, kernel, hash, dry_run);
  return 0;
}

int run_emit(const std::string& path, const std::string& kernel, const std::string& device,
             const std::string& output, const std::string& default_text, const std::string& shape_keys) {
  if (kernel.empty() || device.empty()) throw UsageError("emit-dispatch needs --kernel and --device");
  Store store = Store::open_read_only(path);
  DispatchOptions o;
  o.family = kernel;
  o.device = device;
  if (!default_text.empty()) o.default_config = ValueMap::parse(default_text);
  if (!shape_keys.empty()) o.shape_keys = split_names(shape_keys);
  if (o.shape_keys.empty()) {
    try {
      o.shape_keys = find_family(kernel).shape_keys();
    } catch (const std::invalid_argument&) {
      // not registered in this build: the keys stored with the problems are used
    }
  }
  o.source_label = path;
  o.current = lenient_current_hash();
  try {
    o.condition = dispatch_conditions(find_family(kernel));  // each choice carries when it is valid
  } catch (const std::invalid_argument&) {
    // not registered in this build: no conditions known
  }
  std::string header = emit_dispatch_header(store, o);
  if (output.empty() || output == "-") {
    std::cout << header;
  } else {
    write_file_whole(output, [&](std::ostream& out) { out << header; });
    std::fprintf(stderr, "wrote %s\n", output.c_str());
  }
  return 0;
}

int run_rehash(const std::string& path, const std::string& kernel, std::string from, bool dry_run) {
  const KernelFamily& family = find_family(kernel);
  const bool given = !from.empty();
  if (!given) from = family_source_hash(family);  // the legacy whole-family hash of this build's text
  Store store = dry_run ? Store::open_read_only(path) : Store::open(path);
  RehashSummary s = rehash_results(store, kernel, from, current_hash_resolver(), dry_run);
  std::printf("%s %s results keyed by %s (%s) to their kernel path's hash in %s\n",
              dry_run ? "would re-key" : "re-keyed", kernel.c_str(), from.c_str(),
              given ? "given with --from" : "whole-family hash of the current templates", path.c_str());
  for (const auto& [h, n] : s.by_new_hash) std::printf("  -> %s: %lld results\n", h.c_str(), (long long)n);
  std::printf("  %lld results %s", (long long)s.rehashed, dry_run ? "would move" : "moved");
  if (s.duplicates) std::printf(", %lld duplicate copies removed", (long long)s.duplicates);
  std::printf("; %lld already under their path's hash; %lld with no known path (left alone)\n",
              (long long)s.already_current, (long long)s.unknown);
  for (const auto& [h, n] : s.left_alone)
    std::printf("  left alone: %s@%s: %lld results (another hash)\n", kernel.c_str(), h.c_str(), (long long)n);
  return 0;
}

// `db rehash --compare-cubins`: engine/cubin_rehash.hpp.
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
  std::printf("compared the cubins of %lld stale %s configurations measured with the templates in %s against the "
              "current templates (%lld compilations, %.1f s)\n",
              (long long)s.compared, kernel.c_str(), old_dir.c_str(), (long long)s.compilations, s.compile_seconds);
  std::printf("  %lld identical: %lld results %s to their current hash", (long long)s.identical,
              (long long)s.rekey.moved, dry_run ? "would move" : "moved");
  if (s.rekey.duplicates) std::printf(" (%lld duplicate copies removed)", (long long)s.rekey.duplicates);
  std::printf("\n  left under their hash: %lld with different cubins, %lld that failed to compile, %lld stored under "
              "a hash these templates do not give\n",
              (long long)s.different, (long long)s.failed, (long long)s.other_text);
  for (const auto& e : s.examples) std::printf("    %s\n", e.c_str());
  if (s.compared == 0 && s.other_text > 0)
    std::printf("  no stale result was measured with the text in %s: give the kernels_templated folder of the "
                "commit they were measured at (a git worktree of it, say)\n",
                old_dir.c_str());
  return 0;
}

int run_checkpoint(const std::string& path) {
  const std::int64_t results = checkpoint_for_shipping(path);
  std::printf("%s: %lld results, all in the file itself (no -wal), rollback-journal mode: ready to ship, "
              "readable from a read-only folder\n",
              path.c_str(), (long long)results);
  return 0;
}

int run_migrate(const std::string& path) {
  Store store = Store::open(path);  // migrates forward on open
  std::printf("%s is at schema version %d\n", path.c_str(), store.schema_version());
  return 0;
}

const CommandRegistrar registrar(70, [](CLI::App& app) {
  auto* db = app.add_subcommand("db", "Inspect, share and maintain tuning databases: stats, query, diff, "
                                      "export, import, merge, prune, rehash, emit-dispatch, checkpoint, migrate");
  db->require_subcommand(1);

  struct Options {
    std::string db = default_db_path(), kernel, device, file, format, output, hash, from, default_config, shape_keys,
                old_kernel_dir;
    std::vector<std::string> inputs;
    bool json = false, stale = false, dry_run = false, keys = false;
    int top = 1;
  };
  auto o = std::make_shared<Options>();
  auto db_option = [o](CLI::App* cmd) {
    cmd->add_option("--db", o->db, std::string("Tuning database (") + kDefaultDbHelp + ")");
  };

  auto* stats = db->add_subcommand("stats", "Counts of results by status, family version and device; stale results");
  db_option(stats);
  stats->add_flag("--json", o->json, "Print JSON");
  stats->callback([o] { set_exit_code(run_stats(o->db, o->json)); });

  auto* query = db->add_subcommand("query", "Best verified configuration per problem (or the N fastest), as a table");
  db_option(query);
  query->add_option("--kernel", o->kernel, "Kernel family, e.g. gemm (default: all)");
  query->add_option("--device", o->device, "GPU name or arch, e.g. 'NVIDIA H200' or sm_90 (default: all)");
  query->add_option("--top", o->top, "The N fastest distinct verified configurations per problem, in rank order "
                                     "(default 1: the best)")
      ->check(CLI::Range(1, 1000));
  auto* json_flag = query->add_flag("--json", o->json, "Print JSON");
  query->add_flag("--keys", o->keys,
                  "For scripts: one line per problem, its key and then its configurations' keys, '|'-separated "
                  "(what `bench_gemm_bench --problem P --config C ...` takes)")
      ->excludes(json_flag);
  query->callback([o] { set_exit_code(run_query(o->db, o->kernel, o->device, o->top, o->json, o->keys)); });

  auto* diff = db->add_subcommand("diff", "Compare the best configurations of two databases");
  diff->add_option("databases", o->inputs, "The two databases A and B")->required()->expected(2);
  diff->add_option("--kernel", o->kernel, "Only this kernel family");
  diff->add_option("--device", o->device, "Only this GPU name or arch");
  diff->add_flag("--json", o->json, "Print JSON");
  diff->callback([o] { set_exit_code(run_diff(o->inputs[0], o->inputs[1], o->kernel, o->device, o->json)); });

  auto* exp = db->add_subcommand("export", "Write every measurement as JSON Lines, CSV or T4 JSON");
  db_option(exp);
  exp->add_option("-o,--output", o->file, "Output file ('-' for standard output)")->required();
  exp->add_option("--format", o->format, "jsonl, csv or t4 (default: from the file name; '-' is jsonl)");
  exp->callback([o] { set_exit_code(run_export(o->db, o->file, o->format)); });

  auto* imp = db->add_subcommand("import", "Add the measurements of a JSON Lines, CSV or T4 file "
                                           "(all or nothing: a malformed record imports nothing)");
  db_option(imp);
  imp->add_option("file", o->file, "File to import")->required();
  imp->add_option("--format", o->format, "jsonl, csv or t4 (default: from the file name)");
  imp->callback([o] { set_exit_code(run_import(o->db, o->file, o->format)); });

  auto* merge = db->add_subcommand("merge", "Union of databases, de-duplicated, every source kept");
  merge->add_option("inputs", o->inputs, "Databases to merge")->required()->expected(1, -1);
  merge->add_option("-o,--output", o->output, "Output database (created, or added to)")->required();
  merge->callback([o] { set_exit_code(run_merge(o->inputs, o->output)); });

  auto* prune =
      db->add_subcommand("prune",
                         "Remove stale results (measured with older template text), then "
                         "the configurations, family versions and problems no result references");
  db_option(prune);
  prune->add_flag("--stale", o->stale, "Remove results whose template hash is not the current one");
  prune->add_option("--kernel", o->kernel, "Kernel family")->required();
  prune->add_option("--hash", o->hash,
                    "One current template hash for every result (default: per result, the "
                    "hash of this build's templates of the kernel path its problem and GPU take)");
  prune->add_flag("--dry-run", o->dry_run, "List what would be removed, write nothing");
  prune->callback(
      [o] { set_exit_code(run_prune(o->db, o->kernel, o->hash, o->stale, o->dry_run)); });

  auto* rehash = db->add_subcommand(
      "rehash", "Re-key results stored under a legacy whole-family template hash to the per-kernel-path hash of "
                "their problem and GPU (one transaction; other hashes are left alone and counted); with "
                "--compare-cubins, carry stale results across a template edit that leaves their cubins unchanged");
  db_option(rehash);
  rehash->add_option("--kernel", o->kernel, "Kernel family, e.g. gemm")->required();
  rehash->add_option("--from", o->from, "Hash to re-key (default: the whole-family hash of this build's "
                                        "templates); asserts each path's files are unchanged since it was measured");
  rehash->add_option("--compare-cubins", o->old_kernel_dir,
                     "A kernels_templated folder (an older checkout's) holding the text stale results were measured "
                     "with: re-key instead each stale configuration whose cubin compiled against that text holds the "
                     "same machine code as the one compiled against the current text (with --from: only that hash)");
  rehash->add_flag("--dry-run", o->dry_run, "Count what would be re-keyed, write nothing");
  rehash->callback([o] {
    set_exit_code(o->old_kernel_dir.empty()
                      ? run_rehash(o->db, o->kernel, o->from, o->dry_run)
                      : run_cubin_rehash(o->db, o->kernel, o->from, o->old_kernel_dir, o->dry_run));
  });

  auto* emit = db->add_subcommand("emit-dispatch", "Generate a dependency-free C++ header routing a problem "
                                                   "to its tuned configuration (exact, shape bucket, default)");
  db_option(emit);
  emit->add_option("--kernel", o->kernel, "Kernel family")->required();
  emit->add_option("--device", o->device, "GPU name or arch, e.g. sm_90")->required();
  emit->add_option("-o,--output", o->output, "Header to write ('-' or absent: standard output)");
  emit->add_option("--default", o->default_config, "Configuration served when nothing matches, e.g. 'BLOCK_M=64,...'");
  emit->add_option("--shape-keys", o->shape_keys, "Shape keys in parameter order, e.g. m,n,k (default: the family's)");
  emit->callback([o] {
    set_exit_code(run_emit(o->db, o->kernel, o->device, o->output, o->default_config, o->shape_keys));
  });

  auto* checkpoint = db->add_subcommand("checkpoint", "Fold the write-ahead log into the database file and leave "
                                                     "WAL mode, so the file alone can be shipped (read-only "
                                                     "folders read it as is)");
  checkpoint->add_option("database", o->file, "Database to prepare")->required();
  checkpoint->callback([o] { set_exit_code(run_checkpoint(o->file)); });

  auto* migrate = db->add_subcommand("migrate", "Upgrade a database to this build's schema version");
  migrate->add_option("database", o->file, "Database to upgrade")->required();
  migrate->callback([o] { set_exit_code(run_migrate(o->file)); });
});

}  // namespace
}  // namespace ktune::cli
