// nvcc-compiled helpers of the row-wise harnesses: seeded random inputs, the
// interface of each family's fp64 reference, and the device-side comparison
// of an output with its reference (so that 256 MB tensors verify without a
// host round trip).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels_templated/verify/tolerance.hpp"

namespace ktune::rowwise {

enum class DType { fp32, bf16, fp16 };

/// What a family's fp64 reference reads and writes (device pointers).
struct ReferenceCall {
  const void* x = nullptr;
  const void* w = nullptr;  ///< the column vector (RowwiseSpec::column_vector), else null
  DType dtype = DType::fp32;
  long long rows = 0, cols = 0;
  bool columns = false;   ///< reduced over the rows (RowwiseSpec::reduces_columns): cols outputs
  double scalar = 0;      ///< the family's real parameter (rmsnorm's eps), else 0
  int variant = 0;        ///< RowwiseSpec::reference_variant (reduce: 1 for max)
  double* ref = nullptr;  ///< one value per output (launch_plan.hpp output_elements)
  double* mag =
      nullptr;  ///< with InputValues::magnitude: the bound's magnitude per output, else null
  cudaStream_t stream = nullptr;
};
/// A family's fp64 reference, `<family>/gpu/<family>_reference.cu`
/// (families.def): queues its kernels on call.stream, returns the launch error.
using ReferenceFn = cudaError_t (*)(const ReferenceCall& call);

/// Fills n elements with values drawn uniformly from [lo, hi) (a hash of
/// seed and index, so any launch shape gives the same data), rounded to dtype.
cudaError_t fill_uniform(void* data, DType dtype, long long n, double lo, double hi,
                         std::uint64_t seed, cudaStream_t stream);

/// Edge-value inputs (rowwise/README.md, "Verification"): each line (a row,
/// or a column when `lines_are_columns`) takes pattern line % 6: 0 zeros,
/// 1 all equal to `equal_value`, 2 +-60000 alternating along the line (fp16's range), 3 all
/// -inf, 4 first half -inf and the rest random, 5 random in [lo, hi).
/// Without `minus_inf` (families where -inf has no finite answer) patterns 3
/// and 4 are random too.
cudaError_t fill_edge(void* data, DType dtype, long long rows, long long cols,
                      bool lines_are_columns, bool minus_inf, float equal_value, double lo,
                      double hi, std::uint64_t seed, cudaStream_t stream);

/// Device-side totals of check_outputs (device memory, one per check).
struct CompareStats {
  double err2 = 0, ref2 = 0, max_abs = 0, max_rel = 0;
  unsigned long long checked = 0, off = 0, non_finite = 0, unwritten = 0, undefined = 0;
  unsigned long long first_bad = ~0ULL;
  unsigned long long worst = 0;      ///< (float bits of |out - ref| / allowed) << 32 | index
  unsigned long long worst_row = 0;  ///< (float bits of the row's relative L2) << 32 | row
};

/// Checks n outputs of dtype against the fp64 reference, element by element
/// (verify::judge_element with `bound`; `mag` per output, or null), in lines
/// of `line_length` outputs; with `row_stats` each line is a row whose
/// relative L2 error is tracked. Indices are reported modulo 2^32.
/// `scratch` is device memory for one CompareStats. Synchronizes the stream.
cudaError_t check_outputs(const void* out, DType dtype, const double* ref, const double* mag,
                          long long n, long long line_length, bool row_stats,
                          const verify::ElementBound& bound, CompareStats* scratch,
                          verify::CheckStats& result, cudaStream_t stream);

/// Reads element i of a device array of dtype as a double (for messages).
cudaError_t read_element(const void* data, DType dtype, long long i, double& value);

}  // namespace ktune::rowwise
