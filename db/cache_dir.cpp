#include "db/cache_dir.hpp"

#include <cstdlib>
#include <filesystem>

namespace ktune {
namespace {

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

std::string default_cache_dir() {
  namespace fs = std::filesystem;
  // One variable names the cache for every process of a run (a carried,
  // precompiled cache on the lent GPU machine: docs/gpu-machine.md).
  if (std::string named = env_or_empty("KTUNE_CACHE_DIR"); !named.empty()) return named;
  if (std::string xdg = env_or_empty("XDG_CACHE_HOME"); !xdg.empty())
    return (fs::path(xdg) / "ktune").string();
  if (std::string home = env_or_empty("HOME"); !home.empty())
    return (fs::path(home) / ".cache" / "ktune").string();
  return (fs::temp_directory_path() / "ktune-cache").string();
}

}  // namespace ktune
