// ktune::Library: the call API of libktune_runtime over kernels compiled ahead
// of time by `ktune emit-library` (no NVRTC, no database at run time). The
// generated sources fill EmittedTables; the application opens a Library on
// them (the generated ktune_emitted.hpp declares ktune_emitted_tables()).
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "ktune_calls.hpp"

namespace ktune {

/// The compiled kernels of one configuration for one kernel source: the
/// addresses of its __global__ functions, in launch order.
struct EmittedKernel {
  const char* source_hash;  ///< stable hash of the kernel source key (runtime/emit_keys.hpp
                            ///< kernel_source_key)
  const void* const* functions;
  int count;
};

/// One route of the router. `how` is exact (match: the normalized problem
/// key), group (match: the group key, emit_group_key), general (match: the
/// shape class; the splitter's fallback) or default (match: the shape class;
/// the family's safe default). A route is taken only where the family's space
/// accepts its configuration for the problem: its validity condition, checked
/// on the first call of each shape.
struct EmittedRoute {
  const char* family;
  const char* how;
  const char* match;
  const char* config;
  /// The GPU(s) whose measurements chose it ("NVIDIA H200"); null for a
  /// family default. Explanation::how names them: a library emitted from one
  /// GPU's rows and run on another GPU of the arch says so.
  const char* measured_on = nullptr;
};

struct EmittedTables {
  const char* database;  ///< the database the library was emitted from
  const char*
      template_hashes;  ///< "family=hash,...": the template text its kernels were measured with
  const char* device;   ///< e.g. "sm_90"
  const EmittedRoute* routes;
  int route_count;
  const EmittedKernel* const* kernels;
  int kernel_count;
};

/// The calls of ktune::Calls, with the threading and workspace rules of
/// ktune::Runtime; configurations come from the routes, kernels are compiled in.
class Library : public Calls {
 public:
  static CallStatus open(const EmittedTables& tables, std::unique_ptr<Library>* out,
                         int device = -1);

  const char* database() const;
  const char* template_hashes() const;

  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  struct Impl;
  explicit Library(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ktune
