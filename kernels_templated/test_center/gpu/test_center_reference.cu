// The test_center family's fp64 reference: x - mean(x) over each row, one
// block per row, and mean |x| per element (the error bound's magnitude).
#include "kernels_templated/rowwise/gpu/reference_device.cuh"

namespace ktune {
namespace {

using namespace rowwise;

__global__ void test_center_reference(const void* x, DType t, long long rows, long long cols,
                                      double* ref, double* mag) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const long long off = row * cols;
    double sum = 0, abs_sum = 0;
    for (long long c = threadIdx.x; c < cols; c += kThreads) {
      const double v = load_as_double(x, t, off + c);
      sum += v;
      abs_sum += fabs(v);
    }
    const double mean = block_reduce(sum, false) / static_cast<double>(cols);
    const double mean_abs = block_reduce(abs_sum, false) / static_cast<double>(cols);
    for (long long c = threadIdx.x; c < cols; c += kThreads) {
      ref[off + c] = load_as_double(x, t, off + c) - mean;
      if (mag) mag[off + c] = mean_abs;
    }
  }
}

}  // namespace

cudaError_t test_center_rowwise_reference(const rowwise::ReferenceCall& c) {
  test_center_reference<<<row_blocks(c.rows), kThreads, 0, c.stream>>>(c.x, c.dtype, c.rows, c.cols,
                                                                       c.ref, c.mag);
  return cudaGetLastError();
}

}  // namespace ktune
