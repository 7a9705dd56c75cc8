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

#include "space/value_map.hpp"

namespace ktune {

/// Outcome of comparing a kernel's output with the family's reference.
struct Verification {
  bool passed = false;
  double rel_l2_error = 0;      ///< ||out - ref|| / ||ref||
  double max_abs_error = 0;
  std::int64_t nan_or_inf = 0;  ///< non-finite outputs (NaN never passes)
  std::int64_t unwritten = 0;   ///< outputs still holding the poison pattern
  double tolerance = 0;         ///< the rel_l2 bound that applied
  std::string detail;           ///< first mismatching index and values, for the log
};

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
};

/// A new harness for the family; throws std::invalid_argument for an unknown one.
std::unique_ptr<FamilyHarness> make_harness(std::string_view family);

}  // namespace ktune
