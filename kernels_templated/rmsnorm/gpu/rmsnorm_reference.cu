// The rmsnorm family's fp64 reference: x / sqrt(mean(x^2) + eps) * w over
// each row, one block per row.
#include "kernels_templated/rowwise/gpu/reference_device.cuh"

namespace ktune {
namespace {

using namespace rowwise;

__global__ void rmsnorm_reference(const void* x, const void* w, DType t, long long rows,
                                  long long cols, double eps, double* ref) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const long long off = row * cols;
    double ss = 0;
    for (long long c = threadIdx.x; c < cols; c += kThreads) {
      double v = load_as_double(x, t, off + c);
      ss += v * v;
    }
    ss = block_reduce(ss, false);
    const double scale = 1.0 / sqrt(ss / static_cast<double>(cols) + eps);
    for (long long c = threadIdx.x; c < cols; c += kThreads)
      ref[off + c] = load_as_double(x, t, off + c) * scale * load_as_double(w, t, c);
  }
}

}  // namespace

cudaError_t rmsnorm_rowwise_reference(const rowwise::ReferenceCall& c) {
  rmsnorm_reference<<<row_blocks(c.rows), kThreads, 0, c.stream>>>(c.x, c.w, c.dtype, c.rows,
                                                                   c.cols, c.scalar, c.ref);
  return cudaGetLastError();
}

}  // namespace ktune
