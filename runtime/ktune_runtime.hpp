// libktune_runtime: tuned kernels launched from a tuning database. Each call
// looks its problem up (a user database over the system one), takes the
// kernel from memory, else from the on-disk NVRTC cubin cache, else compiles
// it once, and launches it on the caller's stream. C++17; links the CUDA
// runtime and NVRTC (the driver is reached through the runtime at run time).
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "ktune_calls.hpp"

namespace ktune {

struct RuntimeOptions {
  std::string user_db;  ///< the user's database; empty or missing: none
  std::string
      system_db;  ///< the shipped database; empty: none (every call runs its family's default)
  /// Cubins compiled before are read from here (and new ones written);
  /// empty: $XDG_CACHE_HOME/ktune, else ~/.cache/ktune. "-" disables it.
  std::string cache_dir;
  /// The kernels_templated folder NVRTC compiles; empty: $KTUNE_KERNEL_DIR,
  /// else the installed copy, else the build's source tree.
  std::string kernel_dir;
  /// CUDA ordinal whose spec the choices are made for; -1: the current device.
  /// Calls launch on the calling thread's current device, which must be this one.
  int device = -1;
  /// Serve only this GPU's own measurements; by default another GPU of its
  /// arch answers what this one never measured (Explanation::how names it).
  bool own_device_only = false;
};

/// Where the runtime's kernels came from so far.
struct RuntimeCounts {
  long long memory_hits = 0;  ///< kernels found in memory
  long long builds = 0;       ///< compile + load runs
  long long disk_hits = 0;    ///< of those, cubins from the on-disk cache
};

/// Thread-safe: any thread may call on any stream. Calls on one stream share
/// that stream's workspace (split-K partials, row splits), which the runtime
/// allocates on the first call that needs it and keeps; the same shape called
/// again allocates nothing and synchronizes nothing, so once a shape has been
/// called on a stream, calls of it may be captured into a CUDA graph.
/// The calls (ktune::Calls) look each problem up and compile its kernel on first use.
class Runtime : public Calls {
 public:
  /// Opens the databases and the device. A status, never a throw.
  static CallStatus open(const RuntimeOptions& options, std::unique_ptr<Runtime>* out);

  RuntimeCounts counts() const;

  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  struct Impl;  ///< runtime/runtime_impl.hpp (tests build one from fakes)
  explicit Runtime(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ktune
