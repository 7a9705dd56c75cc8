// Row sums with cub::BlockReduce for ktune's user-kernel examples: one block
// per row; each thread loads ITEMS elements per pass, the block reduces with
// the BlockReduce algorithm ALGO (a tuning parameter). Verified against the
// first configuration that runs (the description's "first_valid").
#include <cub/block/block_reduce.cuh>

template <int BLOCK, int ITEMS, cub::BlockReduceAlgorithm ALGO>
__global__ void __launch_bounds__(BLOCK) row_sum(float* out, const float* in, int cols) {
  using Reduce = cub::BlockReduce<float, BLOCK, ALGO>;
  __shared__ typename Reduce::TempStorage temp;
  const float* row = in + static_cast<long long>(blockIdx.x) * cols;
  float partial = 0.0f;
  for (int base = threadIdx.x * ITEMS; base < cols; base += BLOCK * ITEMS)
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
      if (base + i < cols) partial += row[base + i];
  const float total = Reduce(temp).Sum(partial);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}
