// RowwiseHarness: the FamilyHarness of every row-wise family (seeded inputs,
// the family's fp64 reference, launches from the shared launch plan,
// device-side verification with the family's bounds and per-dtype tolerances).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "kernels_templated/harness.hpp"
#include "kernels_templated/rowwise/gpu/rowwise_launch.hpp"
#include "kernels_templated/rowwise/gpu/rowwise_reference.hpp"
#include "kernels_templated/rowwise/launch_plan.hpp"
#include "kernels_templated/rowwise/rowwise_spec.hpp"

namespace ktune::rowwise {

class RowwiseHarness final : public FamilyHarness {
 public:
  /// `spec` outlives the harness (the specs are static objects).
  RowwiseHarness(const RowwiseSpec& spec, ReferenceFn reference);
  ~RowwiseHarness() override;
  RowwiseHarness(const RowwiseHarness&) = delete;
  RowwiseHarness& operator=(const RowwiseHarness&) = delete;

  void prepare(const Problem& problem, std::uint64_t seed) override;
  cudaError_t launch(const Config& config, std::span<const cudaKernel_t> kernels,
                     cudaStream_t stream) override;
  void poison_outputs(cudaStream_t stream) override;
  Verification verify(const Config& config, cudaStream_t stream) override;
  /// Set 1: the edge inputs of fill_edge (rowwise/README.md, "Verification").
  int input_sets() const override { return 2; }
  /// The output (the evaluator's bitwise determinism check compares two runs).
  std::pair<const void*, std::size_t> output_region() const override {
    return {y_,
            static_cast<std::size_t>(output_elements()) * static_cast<std::size_t>(elem_bytes_)};
  }
  void select_inputs(int set) override;

  /// Every bound verify() applies: the family's element bound over the
  /// reduction length, tolerance(config) over the whole output and, for
  /// whole-row families, 4 x tolerance(config) over each row (one row's
  /// error may sit a few times above the rms over all rows; a wrong row sits
  /// near 1).
  verify::Tolerances tolerances(const Config& config) const;
  /// The rel-L2 bound for this family, dtype and configuration (see README:
  /// fp16 2e-3; bf16 1e-2; fp32 the family's (1e-5, 1e-4 for sums), widened to
  /// 4e-7 * sqrt(n) when one thread accumulates a chain of n elements).
  double tolerance(const Config& config) const;
  /// Elements one thread of `config` adds up sequentially in fp32.
  long long accumulation_chain(const Config& config) const;
  /// Counters (RowwiseArgs::counters) not at zero, read back after the
  /// stream's work: kernels that use them must leave them zero, since timed
  /// launches run back to back without the zeroing poison_outputs does.
  long long nonzero_counters(cudaStream_t stream) const;
  /// Number of output elements of the prepared problem.
  long long output_elements() const;
  const Problem& problem() const { return problem_; }

 private:
  void release();

  const RowwiseSpec& spec_;
  ReferenceFn reference_;
  Problem problem_;
  DType dtype_ = DType::fp32;
  int elem_bytes_ = 4;
  PlanDevice device_;
  /// Elements one output reduces over (cols, or rows for a column reduction).
  long long reduction_length() const;
  int active_ = 0;          ///< the input set launches read
  void* x_edge_ = nullptr;  ///< input set 1
  double* ref_edge_ = nullptr;
  double* mag_ = nullptr;  ///< sum |x| per output (sums only), per input set
  double* mag_edge_ = nullptr;
  void* x_ = nullptr;
  void* w_ = nullptr;
  void* y_ = nullptr;
  float* ws_ = nullptr;
  long long ws_floats_ = 0;
  unsigned* counters_ = nullptr;  ///< zeroed counters of column reductions (RowwiseArgs::counters)
  long long counter_count_ = 0;
  RowwiseLauncher launcher_;  ///< attributes, persistent grids, clusters
  double* ref_ = nullptr;
  CompareStats* scratch_ = nullptr;
};

}  // namespace ktune::rowwise
