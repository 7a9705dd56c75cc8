// Default database paths of the `ktune` commands (see db_paths.hpp).
#include "cli/db_paths.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace ktune::cli {
namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : "";
}

}  // namespace

std::string default_db_path() {
  const std::string env = env_or_empty("KTUNE_DB");
  return env.empty() ? "ktune.db" : env;
}

std::string default_system_db_path() {
  const std::string env = env_or_empty("KTUNE_SYSTEM_DB");
  if (!env.empty()) return env;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  return (exe.parent_path().parent_path() / "share" / "ktune" / "ktune.db").string();
}

}  // namespace ktune::cli
