// `ktune db query`: the best verified configuration per problem (or the N
// fastest), as a table, JSON or keys for scripts.
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/db_shared.hpp"
#include "db/query.hpp"
#include "db/store.hpp"

namespace ktune::cli {
namespace {

void print_best_table(const std::vector<BestRow>& rows) {
  std::printf("%-28s %-12s %-52s %4s %-12s %10s %9s  %s\n", "device", "family", "problem", "rank",
              "median", "TFLOP/s", "GB/s", "configuration");
  std::size_t problems = 0;
  for (const auto& r : rows) {
    if (r.rank == 1) ++problems;
    std::printf("%-28s %-12s %-52s %4d %-12s %10.2f %9.1f  %s\n", r.device.c_str(),
                r.family.c_str(), r.problem_key.c_str(), r.rank, format_time(r.median_s).c_str(),
                r.tflops, r.gbps, r.config_key.c_str());
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

int run_query(const std::string& path, const std::string& kernel, const std::string& device,
              int top, bool as_json, bool keys) {
  Store store = Store::open_read_only(path);
  const StoredNames stored = stored_names(store);
  check_family_filter(kernel, stored);
  BestQuery query{kernel, device_filter(device, stored), "", lenient_current_hash()};
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

const CommandRegistrar registrar(kDbQuery, [](CLI::App& app) {
  struct Options {
    std::string db = default_db_path(), kernel, device;
    bool json = false, keys = false;
    int top = 1;
  };
  auto o = std::make_shared<Options>();
  auto* query = app.get_subcommand("db")->add_subcommand(
      "query", "Best verified configuration per problem (or the N fastest), as a table");
  add_db_option(query, o->db);
  query->add_option("--kernel", o->kernel, "Kernel family, e.g. gemm (default: all)");
  query->add_option("--device", o->device,
                    "GPU name or arch, e.g. 'NVIDIA H200' or sm_90 (default: all)");
  query
      ->add_option("--top", o->top,
                   "The N fastest distinct verified configurations per problem, in rank order "
                   "(default 1: the best)")
      ->check(CLI::Range(1, 1000));
  auto* json_flag = query->add_flag("--json", o->json, "Print JSON");
  query
      ->add_flag("--keys", o->keys,
                 "For scripts: one line per problem, its key and then its configurations' keys, "
                 "'|'-separated "
                 "(what `bench_gemm_bench --problem P --config C ...` takes)")
      ->excludes(json_flag);
  query->callback(
      [o] { set_exit_code(run_query(o->db, o->kernel, o->device, o->top, o->json, o->keys)); });
});

}  // namespace
}  // namespace ktune::cli
