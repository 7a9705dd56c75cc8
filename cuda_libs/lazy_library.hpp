// LazyLibrary: a CUDA toolkit library opened with dlopen on its first use.
#pragma once

#include <mutex>
#include <stdexcept>
#include <string>

namespace ktune {

/// A library could not be opened, or lacks a symbol: the message is one line
/// naming the library, the file tried and why.
class LibraryUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A shared library opened at its first symbol lookup, not at program start:
/// cuBLASLt alone took 130 ms of page faults to load, which `ktune lookup` and
/// every command that never runs a GEMM reference paid before main. Searched
/// as the dynamic linker would (RUNPATH, LD_LIBRARY_PATH, the cache), then in
/// the toolkit folder this build was configured with.
class LazyLibrary {
 public:
  /// `what`: the name users know (cuBLAS); `file`: its soname (libcublas.so.13);
  /// `fallback_dir`: the folder tried when the soname alone is not found.
  LazyLibrary(std::string what, std::string file, std::string fallback_dir);
  LazyLibrary(const LazyLibrary&) = delete;
  LazyLibrary& operator=(const LazyLibrary&) = delete;

  /// The address of `name`; throws LibraryUnavailable when the library cannot be
  /// opened or lacks it. Thread-safe; the library stays open for the process.
  void* symbol(const char* name);

 private:
  void* handle();

  std::string what_, file_, fallback_dir_;
  std::mutex mutex_;
  void* handle_ = nullptr;
};

/// Calls the library's `name`, resolved once per forwarding function `Own`
/// (the forwarder that stands in for it, whose type it shares).
template <auto Own, typename... Args>
auto forward_call(LazyLibrary& library, const char* name, Args... args) {
  static const auto real = reinterpret_cast<decltype(Own)>(library.symbol(name));
  return real(args...);
}

}  // namespace ktune
