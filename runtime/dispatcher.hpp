// Dispatcher: the call path shared by ktune::Runtime and an emitted
// ktune::Library. Per shape, once: candidates from a chooser (database lookup
// or generated router), the first the family's space accepts, its kernels
// from a supplier (NVRTC cache or compiled-in table), its launch geometry.
// Every call after that: one hash lookup under a shared lock, then the launch.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernels_templated/family.hpp"
#include "kernels_templated/gemm/gemm_family.hpp"
#include "kernels_templated/rowwise/launch_plan.hpp"
#include "runtime/call_key.hpp"
#include "runtime/ktune_calls.hpp"

namespace ktune::rt {

/// A configuration offered for a problem, and where it came from
/// ("exact", "nearest", "bucket", "general", ...).
struct Choice {
  Config config;
  std::string how;
};

/// Which configurations may run a problem, best first.
class ConfigChooser {
 public:
  virtual ~ConfigChooser() = default;
  /// Throws on failure (the dispatcher turns it into a status). The
  /// dispatcher runs the first candidate `space` accepts.
  virtual std::vector<Choice> candidates(const KernelFamily& family, const Problem& normalized,
                                         const Space& space, const DeviceSpec& device) const = 0;
};

/// The last resorts, appended to `choices`: the family's safe default, then the space's own
/// default.
void append_defaults(std::vector<Choice>& choices, const KernelFamily& family,
                     const Problem& normalized, const Space& space, const DeviceSpec& device);

/// The loaded kernels of one configuration, in launch order; `owner` keeps
/// the module they live in loaded.
struct KernelSet {
  std::vector<cudaKernel_t> kernels;
  std::shared_ptr<const void> owner;
};

/// Where a configuration's kernels come from.
class KernelSupplier {
 public:
  virtual ~KernelSupplier() = default;
  /// Thread-safe; concurrent requests for one configuration share one build.
  virtual CallStatus kernels(const KernelFamily& family, const Problem& normalized,
                             const Config& config, std::shared_ptr<const KernelSet>* out) = 0;
};

/// Everything a launch needs, decided once per shape.
struct Prepared {
  CallKind kind = CallKind::gemm;
  const KernelFamily* family = nullptr;
  Problem problem;  ///< normalized
  Config config;
  std::string how;   ///< the chosen candidate's origin; "(default)" suffixes mark a fallback
  GemmProblem gemm;  ///< gemm only
  GemmKnobs knobs;   ///< gemm only
  rowwise::LaunchPlan plan;      ///< row-wise families only
  long long rows = 0, cols = 0;  ///< row-wise families only
  float scalar = 0;              ///< row-wise: the family's real parameter (RowwiseArgs::eps)
  std::string
      column_vector;  ///< row-wise: the name of the vector it reads (a call's in1), else empty
  std::shared_ptr<const KernelSet> kernels;
};

/// The call's device pointers: gemm (A, B, C, bias); row-wise (x, the
/// family's column vector or null, y).
struct CallTensors {
  const void* in0 = nullptr;
  const void* in1 = nullptr;
  void* out = nullptr;
  const void* aux = nullptr;
};

/// Launches a prepared call on a stream (workspaces included).
class Launcher {
 public:
  virtual ~Launcher() = default;
  virtual CallStatus launch(const Prepared& prepared, const CallTensors& tensors,
                            cudaStream_t stream) = 0;
};

/// The spec of a live device: the built-in table's ceilings for its name (else
/// its arch) with the live resources the spaces read. `ordinal` -1: the
/// current device; `used` gets the ordinal. An error status without a device.
CallStatus live_device(int ordinal, int* used, DeviceSpec* out);

class Dispatcher {
 public:
  Dispatcher(DeviceSpec device, std::unique_ptr<ConfigChooser> chooser,
             std::unique_ptr<KernelSupplier> supplier, std::unique_ptr<Launcher> launcher);
  ~Dispatcher();

  /// Prepares the shape on its first call, then launches. Never throws.
  CallStatus call(const CallKey& key, const CallTensors& tensors, cudaStream_t stream);
  /// The shape's preparation (cached), without launching.
  CallStatus prepare(const CallKey& key, std::shared_ptr<const Prepared>* out);
  /// The configuration the shape runs and where it came from.
  CallStatus explain(const CallKey& key, Explanation* out);
  const DeviceSpec& device() const { return device_; }

 private:
  CallStatus prepare_uncached(const CallKey& key, std::shared_ptr<const Prepared>* out);

  DeviceSpec device_;
  rowwise::PlanDevice plan_device_;
  std::unique_ptr<ConfigChooser> chooser_;
  std::unique_ptr<KernelSupplier> supplier_;
  std::unique_ptr<Launcher> launcher_;
  mutable std::shared_mutex mutex_;
  std::unordered_map<CallKey, std::shared_ptr<const Prepared>, CallKeyHash> prepared_;
};

}  // namespace ktune::rt
