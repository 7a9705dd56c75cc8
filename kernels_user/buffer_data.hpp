// Host-side data of a user kernel's buffers: filling them as the description
// says, and comparing an output with its reference under atol/rtol. No CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels_user/description.hpp"

namespace ktune::user {

/// Bytes of one element of `dtype` (float32, float64, int32, int64, uint32).
std::size_t dtype_bytes(const std::string& dtype);

/// `count` elements of the argument's dtype, filled as it says (random with
/// its seed in [lo, hi), a constant, or the element index).
std::vector<unsigned char> fill_buffer(const Argument& a, std::int64_t count);

/// One output compared with its reference.
struct Comparison {
  bool passed = true;
  std::int64_t mismatches = 0;
  std::int64_t non_finite = 0;  ///< NaN or infinity where the reference is finite
  std::int64_t unwritten = 0;   ///< elements still all 0xFF bytes (the poison pattern)
  double max_abs_error = 0;
  double rel_l2_error = 0;
  std::string detail;  ///< the first mismatch: index, value, reference
};

/// Compares `out` with `ref` (same dtype and size) element by element:
/// |out - ref| <= atol + rtol * |ref|.
Comparison compare_buffer(const Argument& a, const std::vector<unsigned char>& out,
                          const std::vector<unsigned char>& ref);

/// Elements of `bytes` (of the argument's dtype) still all 0xFF bytes: never written.
std::int64_t count_unwritten(const Argument& a, const std::vector<unsigned char>& bytes);

}  // namespace ktune::user
