// The reduce family's fp64 reference: the sum or max of each row (one block
// per row) or of each column (one thread per column), and sum |x| per output.
#include "kernels_templated/rowwise/gpu/reference_device.cuh"

namespace ktune {
namespace {

using namespace rowwise;

__global__ void reduce_rows_reference(bool is_max, const void* x, DType t, long long rows,
                                      long long cols, double* ref, double* mag) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const long long off = row * cols;
    double acc = is_max ? -INFINITY : 0.0, abs_sum = 0;
    for (long long c = threadIdx.x; c < cols; c += kThreads) {
      double v = load_as_double(x, t, off + c);
      acc = is_max ? fmax(acc, v) : acc + v;
      abs_sum += fabs(v);
    }
    acc = block_reduce(acc, is_max);
    abs_sum = block_reduce(abs_sum, false);
    if (threadIdx.x == 0) ref[row] = acc;
    if (threadIdx.x == 0 && mag) mag[row] = abs_sum;
  }
}

// One thread per column, rows walked in order (coalesced across columns).
__global__ void reduce_cols_reference(bool is_max, const void* x, DType t, long long rows,
                                      long long cols, double* ref, double* mag) {
  for (long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; c < cols;
       c += static_cast<long long>(gridDim.x) * blockDim.x) {
    double acc = is_max ? -INFINITY : 0.0, abs_sum = 0;
    for (long long r = 0; r < rows; ++r) {
      double v = load_as_double(x, t, r * cols + c);
      acc = is_max ? fmax(acc, v) : acc + v;
      abs_sum += fabs(v);
    }
    ref[c] = acc;
    if (mag) mag[c] = abs_sum;
  }
}

}  // namespace

cudaError_t reduce_rowwise_reference(const rowwise::ReferenceCall& c) {
  const bool is_max = c.variant == 1;
  if (c.columns)
    reduce_cols_reference<<<blocks_for(c.cols, 65536), kThreads, 0, c.stream>>>(
        is_max, c.x, c.dtype, c.rows, c.cols, c.ref, c.mag);
  else
    reduce_rows_reference<<<row_blocks(c.rows), kThreads, 0, c.stream>>>(
        is_max, c.x, c.dtype, c.rows, c.cols, c.ref, c.mag);
  return cudaGetLastError();
}

}  // namespace ktune
