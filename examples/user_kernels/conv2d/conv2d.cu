// 2-D convolution ("valid": out is h x w, in is (h + fh - 1) x (w + fw - 1),
// row-major) for ktune's user-kernel examples. Tuned through #defines: a
// BLOCK_X x BLOCK_Y block computes TILE_X x TILE_Y outputs per thread, reading
// the input from global memory or (USE_SMEM) from a tile staged in dynamic
// shared memory. conv2d_naive, one thread per output, is the reference.
__global__ void conv2d(float* out, const float* in, const float* filter, int h, int w, int fh,
                       int fw) {
  const int in_w = w + fw - 1;
  const int ox0 = blockIdx.x * BLOCK_X * TILE_X;
  const int oy0 = blockIdx.y * BLOCK_Y * TILE_Y;
#if USE_SMEM
  extern __shared__ float staged[];
  const int sw = BLOCK_X * TILE_X + fw - 1, sh = BLOCK_Y * TILE_Y + fh - 1;
  const int in_h = h + fh - 1;
  for (int i = threadIdx.y; i < sh; i += BLOCK_Y)
    for (int j = threadIdx.x; j < sw; j += BLOCK_X) {
      const int gy = oy0 + i, gx = ox0 + j;
      staged[i * sw + j] = gy < in_h && gx < in_w ? in[gy * in_w + gx] : 0.0f;
    }
  __syncthreads();
#endif
  for (int ty = 0; ty < TILE_Y; ++ty)
    for (int tx = 0; tx < TILE_X; ++tx) {
      const int ly = threadIdx.y + ty * BLOCK_Y, lx = threadIdx.x + tx * BLOCK_X;
      const int y = oy0 + ly, x = ox0 + lx;
      if (y >= h || x >= w) continue;
      float acc = 0.0f;
      for (int i = 0; i < fh; ++i)
        for (int j = 0; j < fw; ++j)
#if USE_SMEM
          acc += staged[(ly + i) * sw + lx + j] * filter[i * fw + j];
#else
          acc += in[(y + i) * in_w + x + j] * filter[i * fw + j];
#endif
      out[y * w + x] = acc;
    }
}

__global__ void conv2d_naive(float* out, const float* in, const float* filter, int h, int w, int fh,
                             int fw) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float acc = 0.0f;
  for (int i = 0; i < fh; ++i)
    for (int j = 0; j < fw; ++j) acc += in[(y + i) * (w + fw - 1) + x + j] * filter[i * fw + j];
  out[y * w + x] = acc;
}
