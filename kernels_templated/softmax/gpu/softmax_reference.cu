// The softmax family's fp64 reference: exp(x - max) / sum(exp(x - max)) over
// each row, one block per row.
#include "kernels_templated/rowwise/gpu/reference_device.cuh"

namespace ktune {
namespace {

using namespace rowwise;

__global__ void softmax_reference(const void* x, DType t, long long rows, long long cols,
                                  double* ref) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const long long off = row * cols;
    double m = -INFINITY;
    for (long long c = threadIdx.x; c < cols; c += kThreads)
      m = fmax(m, load_as_double(x, t, off + c));
    m = block_reduce(m, true);
    double s = 0;
    for (long long c = threadIdx.x; c < cols; c += kThreads)
      s += exp(load_as_double(x, t, off + c) - m);
    s = block_reduce(s, false);
    for (long long c = threadIdx.x; c < cols; c += kThreads)
      ref[off + c] = exp(load_as_double(x, t, off + c) - m) / s;
  }
}

}  // namespace

cudaError_t softmax_rowwise_reference(const rowwise::ReferenceCall& c) {
  softmax_reference<<<row_blocks(c.rows), kThreads, 0, c.stream>>>(c.x, c.dtype, c.rows, c.cols,
                                                                   c.ref);
  return cudaGetLastError();
}

}  // namespace ktune
