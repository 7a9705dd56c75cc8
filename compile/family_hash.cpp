// family_source_hash: the version key of a kernel family, the hash of its
// template files' text (results measured with other text are stale), for the
// whole family or for the kernel path one problem takes on one device.
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "compile/family_hash.hpp"
#include "space/value_map.hpp"

namespace ktune {
namespace {

/// Which of the listed files a folder must hold: all of them (this build's
/// templates), or those it has (an older folder, from before files were added).
enum class MissingFiles { refuse, leave_out };

std::string hash_of_files(const KernelFamily& family, const std::vector<std::string>& files,
                          const std::filesystem::path& dir = Compiler::kernel_dir(),
                          MissingFiles missing = MissingFiles::refuse) {
  std::string all;
  int read = 0;
  for (const auto& rel : files) {
    std::ifstream in(dir / rel, std::ios::binary);
    if (!in && missing == MissingFiles::leave_out && !std::filesystem::exists(dir / rel)) continue;
    if (!in)
      throw std::runtime_error("kernel family '" + std::string(family.name()) +
                               "': cannot read template file " + (dir / rel).string() +
                               " (set KTUNE_KERNEL_DIR to the kernels_templated folder)");
    ++read;
    std::ostringstream text;
    text << in.rdbuf();
    all += text.str();
  }
  if (missing == MissingFiles::leave_out && read == 0)
    throw std::runtime_error("kernel family '" + std::string(family.name()) + "': " + dir.string() +
                             " holds none of its template files");
  return stable_hash_hex(all);
}

// "sm_90" -> (9, 0); "sm_100" -> (10, 0); (0, 0) when it is not of that form.
std::pair<int, int> cc_of_arch(const std::string& arch) {
  if (arch.rfind("sm_", 0) != 0) return {0, 0};
  int n = 0;
  bool digits = false;
  for (char c : arch.substr(3)) {
    if (c < '0' || c > '9') break;  // "sm_90a": the suffix does not change the cc
    n = n * 10 + (c - '0');
    digits = true;
  }
  if (!digits) return {0, 0};
  return {n / 10, n % 10};
}

}  // namespace

std::string family_source_hash(const KernelFamily& family) {
  return hash_of_files(family, family.template_files());
}

std::string family_source_hash(const KernelFamily& family, const Problem& normalized,
                               const DeviceSpec& device) {
  return hash_of_files(family, family.template_files_for(normalized, device));
}

std::string family_source_hash(const KernelFamily& family, const Problem& normalized,
                               const DeviceSpec& device, const std::string& kernel_dir) {
  // A file the path lists now and the folder lacks was added since: the text
  // measured then is the other files' (the hash concatenates them in order).
  return hash_of_files(family, family.template_files_for(normalized, device), kernel_dir,
                       MissingFiles::leave_out);
}

DeviceSpec stored_device_spec(const std::string& name, const std::string& arch) {
  if (auto b = find_builtin_device(name); b && b->name == name) return *b;
  if (!arch.empty())
    if (auto b = find_builtin_device(arch)) {
      DeviceSpec s = *b;
      s.name = name;
      return s;
    }
  DeviceSpec s;
  s.name = name;
  auto [major, minor] = cc_of_arch(arch);
  s.cc_major = major;
  s.cc_minor = minor;
  return s;
}

CurrentHash current_hash_resolver() {
  struct Memo {
    std::mutex mutex;
    std::map<std::tuple<std::string, std::string, std::string, std::string>, std::string> hashes;
    std::map<std::pair<std::string, std::vector<std::string>>, std::string>
        by_files;  // files read once
  };
  auto memo = std::make_shared<Memo>();
  return [memo](const std::string& family_name, const Problem& problem, const std::string& device,
                const std::string& arch) -> std::string {
    auto key = std::make_tuple(family_name, problem.key(), device, arch);
    {
      std::lock_guard lock(memo->mutex);
      if (auto it = memo->hashes.find(key); it != memo->hashes.end()) return it->second;
    }
    std::string hash;
    const KernelFamily* family = nullptr;
    try {
      family = &find_family(family_name);
    } catch (const std::invalid_argument&) {
      family = nullptr;  // not registered in this build: unknown
    }
    if (family) {
      std::vector<std::string> files;
      try {
        files = family->template_files_for(problem, stored_device_spec(device, arch));
      } catch (const std::exception&) {
        files = family->template_files();  // a problem this build cannot read: the whole family
      }
      auto files_key = std::make_pair(family_name, files);
      {
        std::lock_guard lock(memo->mutex);
        if (auto it = memo->by_files.find(files_key); it != memo->by_files.end()) hash = it->second;
      }
      if (hash.empty()) {
        hash =
            hash_of_files(*family, files);  // unreadable templates throw: the caller names the file
        std::lock_guard lock(memo->mutex);
        memo->by_files.emplace(std::move(files_key), hash);
      }
    }
    std::lock_guard lock(memo->mutex);
    memo->hashes.emplace(std::move(key), hash);
    return hash;
  };
}

}  // namespace ktune
