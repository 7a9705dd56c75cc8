// The C ABI's database operations: query, export, import and merge, each the
// library call behind the matching `ktune db` subcommand.
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "capi/capi_status.hpp"
#include "compile/family_hash.hpp"
#include "db/current_hash.hpp"
#include "db/exchange.hpp"
#include "db/merge.hpp"
#include "db/partial_file.hpp"
#include "db/query.hpp"
#include "lookup/import_family_check.hpp"

namespace ktune::capi {
namespace {

std::string text_or_empty(const char* s) { return s ? s : ""; }

void require(const char* s, const char* what) {
  if (!s || !*s) throw std::invalid_argument(std::string(what) + " is empty");
}

ExchangeFormat format_for(const char* format, const std::string& file) {
  if (format && *format) return exchange_format_from_string(format);
  return exchange_format_for_path(file);
}

}  // namespace
}  // namespace ktune::capi

using namespace ktune;
using namespace ktune::capi;

extern "C" {

ktune_status ktune_db_query(const char* path, const char* family, const char* device, int top,
                            char** json_out) {
  return guard([&] {
    require(path, "the database path");
    if (!json_out) throw std::invalid_argument("json_out is null");
    if (top < 1) throw std::invalid_argument("top must be at least 1");
    Store store = Store::open_read_only(path);
    // Where a stored row's template text cannot be read (no templates beside
    // the library), its family's newest-measured version counts as current,
    // as in `ktune db query`.
    // A short GPU name ("h200") selects what its full name measured, as in `ktune db query`.
    BestQuery query{text_or_empty(family),
                    device_filter(text_or_empty(device), stored_names(store)), "",
                    lenient_current_hash(current_hash_resolver())};
    query.top = top;
    nlohmann::json rows = nlohmann::json::array();
    for (const BestRow& r : best_per_problem(store, query)) rows.push_back(best_row_json(r));
    *json_out = copy_out(rows.dump());
    return succeed();
  });
}

ktune_status ktune_db_export(const char* path, const char* out_path, const char* format,
                             long long* exported) {
  return guard([&] {
    require(path, "the database path");
    require(out_path, "the output file");
    const ExchangeFormat f = format_for(format, out_path);
    Store store = Store::open_read_only(path);
    std::int64_t n = 0;
    // A failed export leaves the previous file (or none), never half of one.
    write_file_whole(out_path, [&](std::ostream& out) { n = export_measurements(store, out, f); });
    if (exported) *exported = n;
    return succeed();
  });
}

ktune_status ktune_db_import(const char* path, const char* in_path, const char* format,
                             long long* read, long long* added) {
  return guard([&] {
    require(path, "the database path");
    require(in_path, "the input file");
    const ExchangeFormat f = format_for(format, in_path);
    std::ifstream in(in_path, std::ios::binary);
    if (!in) throw std::invalid_argument(std::string("cannot read '") + in_path + "'");
    // Parsed and checked in full before the database is opened: a malformed
    // record leaves it (or its absence) exactly as it was.
    // The same check as `ktune db import`: what ktune writes imports back.
    std::vector<Measurement> all;
    FamilyImportCheck check(current_hash_resolver());
    try {
      all = parse_measurements(in, f, ImportOptions{[&check](const Measurement& m) { check(m); }});
    } catch (const ImportError& e) {
      throw std::invalid_argument(std::string("'") + in_path + "' " + e.what() +
                                  " (nothing imported)");
    }
    Store store = Store::open(path);
    const std::int64_t n = store.insert(all);
    if (read) *read = static_cast<long long>(all.size());
    if (added) *added = n;
    return succeed();
  });
}

ktune_status ktune_db_merge(const char* const* inputs, int n_inputs, const char* output,
                            long long* read, long long* added, long long* output_total) {
  return guard([&] {
    require(output, "the output database");
    if (n_inputs < 1 || !inputs)
      throw std::invalid_argument("merge needs at least one input database");
    std::vector<std::string> paths;
    for (int i = 0; i < n_inputs; ++i) {
      require(inputs[i], "an input database path");
      paths.emplace_back(inputs[i]);
    }
    const MergeSummary m = merge_databases(paths, output);
    if (read) *read = m.read;
    if (added) *added = m.added;
    if (output_total) *output_total = m.output_total;
    return succeed();
  });
}

}  // extern "C"
