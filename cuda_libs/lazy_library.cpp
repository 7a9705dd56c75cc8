// LazyLibrary: dlopen on first use, one clear error when that fails.
#include "cuda_libs/lazy_library.hpp"

#include <dlfcn.h>

#include <mutex>

namespace ktune {
namespace {

std::string last_dl_error() {
  const char* error = dlerror();
  return error ? error : "unknown reason";
}

}  // namespace

LazyLibrary::LazyLibrary(std::string what, std::string file, std::string fallback_dir)
    : what_(std::move(what)), file_(std::move(file)), fallback_dir_(std::move(fallback_dir)) {}

void* LazyLibrary::handle() {
  // Opened under a lock so that threads racing to the first call open it
  // once; a failure is not remembered, so a later call tries again.
  std::lock_guard lock(mutex_);
  if (handle_) return handle_;
  handle_ = dlopen(file_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_) return handle_;
  const std::string first_error = last_dl_error();
  if (!fallback_dir_.empty()) {
    handle_ = dlopen((fallback_dir_ + "/" + file_).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_) return handle_;
  }
  throw LibraryUnavailable("cannot load " + what_ + " (" + file_ + "): " + first_error);
}

void* LazyLibrary::symbol(const char* name) {
  void* library = handle();
  dlerror();
  if (void* address = dlsym(library, name)) return address;
  throw LibraryUnavailable(what_ + " (" + file_ + ") has no function " + name + ": " +
                           last_dl_error());
}

}  // namespace ktune
