// Loading user kernels: parse, register family and harness, remember the path.
#include "kernels_user/user_kernels.hpp"

#include <cstdlib>
#include <filesystem>
#include <list>
#include <mutex>
#include <sstream>

#include "kernels_templated/runtime_registry.hpp"
#include "kernels_user/gpu/user_harness.hpp"
#include "kernels_user/user_family.hpp"

namespace ktune::user {
namespace {

std::mutex& loaded_mutex() {
  static std::mutex m;
  return m;
}

// The loaded families, never freed: the registry holds pointers to them.
std::list<UserFamily>& loaded() {
  static std::list<UserFamily> all;
  return all;
}

void remember_path(const std::string& path) {
  const char* old = std::getenv(kUserKernelsEnv);
  std::string list = old ? old : "";
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ':');)
    if (item == path) return;
  list += (list.empty() ? "" : ":") + path;
  ::setenv(kUserKernelsEnv, list.c_str(), 1);
}

}  // namespace

const KernelFamily& load_user_kernel(const std::string& path) {
  std::lock_guard lock(loaded_mutex());
  std::error_code ec;
  const std::string canonical =
      std::filesystem::weakly_canonical(std::filesystem::absolute(path), ec).string();
  for (const UserFamily& f : loaded())
    if (f.spec().path == canonical) return f;
  KernelDescription d = load_description(path);
  try {
    find_family(d.name);
    throw DescriptionError("kernel description " + d.path + ": name: a kernel family named '" +
                           d.name + "' is already loaded");
  } catch (const DescriptionError&) {
    throw;
  } catch (const std::invalid_argument&) {
    // Unknown so far: as it should be.
  }
  const UserFamily& family = loaded().emplace_back(std::move(d));
  register_family(family);
  register_harness(family.spec().name, [&family] { return make_user_harness(family); });
  remember_path(family.spec().path);
  return family;
}

void load_user_kernels_from_env() {
  const char* list = std::getenv(kUserKernelsEnv);
  if (!list) return;
  std::stringstream in(list);
  for (std::string path; std::getline(in, path, ':');)
    if (!path.empty()) load_user_kernel(path);
}

}  // namespace ktune::user
