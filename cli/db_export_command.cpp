// `ktune db export`: every measurement as JSON Lines, CSV or T4 JSON.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "cli/db_shared.hpp"
#include "db/exchange.hpp"
#include "db/partial_file.hpp"
#include "db/store.hpp"

namespace ktune::cli {
namespace {

int run_export(const std::string& path, const std::string& file, const std::string& format,
               const std::string& since) {
  std::string from;
  if (!since.empty()) {
    try {
      from = canonical_measurement_time(since);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--since: ") + e.what());
    }
  }
  Store store = Store::open_read_only(path);
  ExchangeFormat f = pick_format(format, file);
  std::int64_t n = 0;
  if (file == "-") {
    n = export_measurements(store, std::cout, f, from);
  } else {
    // A failed or killed export leaves the previous file (or none), never half of one.
    write_file_whole(file,
                     [&](std::ostream& out) { n = export_measurements(store, out, f, from); });
  }
  std::fprintf(stderr, "exported %lld measurements (%s)\n", (long long)n,
               std::string(to_string(f)).c_str());
  return 0;
}

const CommandRegistrar registrar(kDbExport, [](CLI::App& app) {
  struct Options {
    std::string db = default_db_path(), file, format, since;
  };
  auto o = std::make_shared<Options>();
  auto* exp = app.get_subcommand("db")->add_subcommand(
      "export", "Write every measurement as JSON Lines, CSV or T4 JSON");
  add_db_option(exp, o->db);
  exp->add_option("-o,--output", o->file, "Output file ('-' for standard output)")->required();
  exp->add_option("--format", o->format,
                  "jsonl, csv or t4 (default: from the file name; '-' is jsonl)");
  exp->add_option("--since", o->since,
                  "Only measurements made at or after this UTC time, e.g. 2026-12-06T17:58:00Z "
                  "(what a sweep added to a copy of a database)");
  exp->callback([o] { set_exit_code(run_export(o->db, o->file, o->format, o->since)); });
});

}  // namespace
}  // namespace ktune::cli
