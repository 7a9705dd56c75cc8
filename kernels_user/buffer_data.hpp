// Host-side data of a user kernel's buffers: filling them as the description
// says, and comparing an output with its reference under atol/rtol. No CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels_templated/verify/tolerance.hpp"
#include "kernels_user/description.hpp"

namespace ktune::user {

/// Bytes of one element of `dtype` (float32, float64, int32, int64, uint32).
std::size_t dtype_bytes(const std::string& dtype);

/// `count` elements of the argument's dtype, filled as it says (random with
/// its seed in [lo, hi), a constant, or the element index).
std::vector<unsigned char> fill_buffer(const Argument& a, std::int64_t count);

/// The bounds an output is checked with: |out - ref| <= atol + rtol |ref|
/// per element; no relative L2 bound beyond that.
verify::Tolerances tolerances_of(const Argument& a);

/// Compares `out` with `ref` (the argument's dtype) element by element under
/// tolerances_of(a); an element still all 0xFF bytes where the reference
/// differs counts as unwritten. Throws std::invalid_argument when the sizes differ.
verify::CheckStats compare_buffer(const Argument& a, const std::vector<unsigned char>& out,
                                  const std::vector<unsigned char>& ref);

/// Elements of `bytes` (of the argument's dtype) still all 0xFF bytes: never written.
std::int64_t count_unwritten(const Argument& a, const std::vector<unsigned char>& bytes);

}  // namespace ktune::user
