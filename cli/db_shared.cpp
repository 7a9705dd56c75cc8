// What several `ktune db` subcommands share (see db_shared.hpp).
#include "cli/db_shared.hpp"

#include <algorithm>
#include <cstdio>

#include "cli/command.hpp"
#include "cli/db_paths.hpp"
#include "compile/family_hash.hpp"
#include "kernels_templated/family.hpp"
#include "space/name_list.hpp"

namespace ktune::cli {

void add_db_option(CLI::App* cmd, std::string& path) {
  cmd->add_option("--db", path, std::string("Tuning database (") + kDefaultDbHelp + ")");
}

std::string format_time(double seconds) {
  char buf[64];
  if (seconds <= 0) return "-";
  if (seconds < 1e-3)
    std::snprintf(buf, sizeof buf, "%.2f us", seconds * 1e6);
  else if (seconds < 1)
    std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.3f s", seconds);
  return buf;
}

CurrentHash lenient_current_hash() {
  return ktune::lenient_current_hash(current_hash_resolver(), [](const std::string& why) {
    std::fprintf(stderr, "note: %s; the newest-measured template version counts as current\n",
                 why.c_str());
  });
}

namespace {

bool holds(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

void check_family_filter(const std::string& family, const StoredNames& stored) {
  if (family.empty() || holds(stored.families, family)) return;
  const std::vector<std::string> built_in = family_names();
  if (holds(built_in, family)) return;
  throw UsageError("unknown kernel family '" + family + "': not built in (" + name_list(built_in) +
                   ") and not in the database (it stores: " + name_list(stored.families) + ")");
}

ExchangeFormat pick_format(const std::string& format, const std::string& file) {
  if (!format.empty()) return exchange_format_from_string(format);
  if (file == "-") return ExchangeFormat::jsonl;
  return exchange_format_for_path(file);
}

}  // namespace ktune::cli
