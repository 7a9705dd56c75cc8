// Tiled matrix transpose (out = in^T, in is rows x cols, row-major) for
// ktune's user-kernel examples: a TILE x TILE tile staged in shared memory,
// read by BLOCK_ROWS rows of threads, with an optional padding column against
// bank conflicts. transpose_naive is the reference.
template <int TILE, int BLOCK_ROWS, bool PAD>
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[TILE][TILE + (PAD ? 1 : 0)];
  const int x = blockIdx.x * TILE + threadIdx.x;
  const int y0 = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (x < cols && y0 + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y0 + j) * cols + x];
  __syncthreads();
  const int tx = blockIdx.y * TILE + threadIdx.x;  // column of out = row of in
  const int ty0 = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (tx < rows && ty0 + j < cols)
      out[(ty0 + j) * rows + tx] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transpose_naive(float* out, const float* in, int rows, int cols) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}
