// FamilyHarness: the host-side GPU work of a family (inputs, reference,
// launches, verification). CUDA runtime only; the engine drives it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <cuda_runtime_api.h>

#include "kernels_templated/verify/tolerance.hpp"
#include "space/value_map.hpp"

namespace ktune {

/// Outcome of comparing a kernel's output with the family's reference
/// (kernels_templated/verify/tolerance.hpp: element bound, relative L2, rows).
struct Verification {
  bool passed = false;
  double rel_l2_error = 0;  ///< ||out - ref|| / ||ref||
  double max_abs_error = 0;
  std::int64_t nan_or_inf = 0;    ///< non-finite outputs where the reference is finite
  std::int64_t unwritten = 0;     ///< outputs still holding the poison pattern
  double tolerance = 0;           ///< the rel_l2 bound that applied
  std::string detail;             ///< which check failed, first mismatching index and values
  verify::Tolerances tolerances;  ///< every bound that applied
  verify::CheckStats stats;       ///< everything the check gathered
};

/// Fills the summary fields of `v` (passed, rel_l2_error, max_abs_error,
/// nan_or_inf, unwritten, tolerance) from v.stats and v.tolerances; returns
/// the failure reason (empty when passed).
std::string conclude(Verification& v);

class FamilyHarness {
 public:
  virtual ~FamilyHarness() = default;
  /// Allocates inputs filled with seeded random data (never zeros) and the
  /// reference output; called once per problem, reused across configurations.
  /// Throws std::runtime_error on CUDA failure.
  virtual void prepare(const Problem& problem, std::uint64_t seed) = 0;
  /// Launches the configuration on `stream`; `kernels` follow the order of
  /// KernelSource::kernels. Returns the first CUDA error (launch, not sync).
  virtual cudaError_t launch(const Config& config, std::span<const cudaKernel_t> kernels,
                             cudaStream_t stream) = 0;
  /// Fills every output element with a NaN pattern (and resets any split-K
  /// workspace) so that unwritten elements are detected.
  virtual void poison_outputs(cudaStream_t stream) = 0;
  /// Compares the outputs with the reference (synchronizes the stream).
  virtual Verification verify(const Config& config, cudaStream_t stream) = 0;
  /// The main output in device memory (pointer, bytes), read by the evaluator's
  /// optional bitwise determinism check (two runs compared). The default,
  /// {nullptr, 0}, means the family does not offer the check.
  virtual std::pair<const void*, std::size_t> output_region() const { return {nullptr, 0}; }

  /// Input sets the family verifies on: 0 is the seeded random data (the one
  /// timed), the others edge inputs that break naive kernels (listed in the
  /// family's README, "Verification"). Default: only the random data.
  virtual int input_sets() const { return 1; }
  /// Makes later launches read input set `set` and verify() compare with its
  /// reference. The engine selects 0 again before timing.
  virtual void select_inputs(int set) { (void)set; }
  /// False for configurations built to differ between runs (atomics).
  virtual bool deterministic_by_design(const Config& config) const {
    (void)config;
    return true;
  }
};

/// A new harness for the family; throws std::invalid_argument for an unknown one.
std::unique_ptr<FamilyHarness> make_harness(std::string_view family);

}  // namespace ktune
