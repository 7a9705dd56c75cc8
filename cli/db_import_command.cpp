// `ktune db import`: add the measurements of a JSON Lines, CSV or T4 file,
// all or nothing, each checked against this build's families first.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "cli/command.hpp"
#include "cli/db_shared.hpp"
#include "db/exchange.hpp"
#include "db/store.hpp"
#include "lookup/import_family_check.hpp"

namespace ktune::cli {
namespace {

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
  std::printf("read %lld measurements, %lld new, into %s\n", (long long)s.read, (long long)s.added,
              path.c_str());
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

const CommandRegistrar registrar(kDbImport, [](CLI::App& app) {
  struct Options {
    std::string db = default_db_path(), file, format;
  };
  auto o = std::make_shared<Options>();
  auto* imp = app.get_subcommand("db")->add_subcommand(
      "import",
      "Add the measurements of a JSON Lines, CSV or T4 file "
      "(all or nothing: a malformed record imports nothing)");
  add_db_option(imp, o->db);
  imp->add_option("file", o->file, "File to import")->required();
  imp->add_option("--format", o->format, "jsonl, csv or t4 (default: from the file name)");
  imp->callback([o] { set_exit_code(run_import(o->db, o->file, o->format)); });
});

}  // namespace
}  // namespace ktune::cli
