// RowwiseArgs: the one kernel parameter of every reduce/softmax/rmsnorm kernel,
// shared verbatim by the NVRTC-compiled templates and the host harnesses.
#pragma once

namespace ktune_rw {

/// Passed by value. A "virtual row" is one segment of a row: with split == 1
/// it is the whole row; with split > 1 row r is cut into `split` segments of
/// `seg_len` elements (the last may be shorter) that separate row groups take.
struct RowwiseArgs {
  const void* x;       ///< input, rows x cols, row-major, dtype T
  const void* w;       ///< rmsnorm weight (cols), else null
  void* y;             ///< output: rows x cols (softmax, rmsnorm), rows (reduce last), cols (reduce rows)
  float* ws;           ///< fp32 partials when split > 1 (see each family), else null
  unsigned* counters;  ///< reduce axis=rows with split > 1: one zeroed counter per column group (grid.x)
  long long rows;
  long long cols;
  long long seg_len;   ///< elements per segment, a multiple of the vector width
  int split;           ///< segments per row (axis=last) or row slices (axis=rows)
  float eps;           ///< rmsnorm epsilon
};

}  // namespace ktune_rw
