// nvcc-compiled helpers of the row-wise harnesses: seeded random inputs,
// fp64 reference outputs and the device-side comparison of an output with
// its reference (so that 256 MB tensors verify without a host round trip).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace ktune::rowwise {

enum class DType { fp32, bf16, fp16 };
enum class RefKind { sum, max, softmax, rmsnorm };

/// Fills n elements with values drawn uniformly from [lo, hi) (a hash of
/// seed and index, so any launch shape gives the same data), rounded to dtype.
cudaError_t fill_uniform(void* data, DType dtype, long long n, double lo, double hi, std::uint64_t seed,
                         cudaStream_t stream);

/// fp64 reference over the last axis: sum / max -> rows values; softmax /
/// rmsnorm -> rows x cols values. `w` is the rmsnorm weight (cols).
cudaError_t reference_rows(RefKind kind, const void* x, const void* w, DType dtype, long long rows, long long cols,
                           double eps, double* ref, cudaStream_t stream);
/// fp64 reference of a sum / max over the rows: cols values.
cudaError_t reference_cols(RefKind kind, const void* x, DType dtype, long long rows, long long cols, double* ref,
                           cudaStream_t stream);

/// Sums of a comparison, accumulated on the device.
struct CompareStats {
  double err2 = 0;                    ///< sum of (out - ref)^2
  double ref2 = 0;                    ///< sum of ref^2
  double max_abs = 0;                 ///< largest |out - ref| over finite outputs
  unsigned long long nonfinite = 0;   ///< NaN or Inf outputs that are not the poison pattern
  unsigned long long unwritten = 0;   ///< outputs still holding the poison pattern
  unsigned long long first_bad = ~0ULL;  ///< first index that is non-finite, unwritten or off by > bad_rel
};

/// Compares n outputs of dtype with the fp64 reference. An element is "bad"
/// when |out - ref| > bad_rel * max(|ref|, ref_floor). `scratch` is device
/// memory for one CompareStats. Synchronizes the stream.
cudaError_t compare(const void* out, DType dtype, const double* ref, long long n, double bad_rel, double ref_floor,
                    CompareStats* scratch, CompareStats& result, cudaStream_t stream);

/// Reads element i of a device array of dtype as a double (for messages).
cudaError_t read_element(const void* data, DType dtype, long long i, double& value);

}  // namespace ktune::rowwise
