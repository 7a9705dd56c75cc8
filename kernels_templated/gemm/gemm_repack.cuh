// gemm_repack.cuh: copies an operand whose leading dimension breaks 16-byte
// alignment into a workspace with an aligned leading dimension, so the main
// kernel reads it with 16-byte vectors (mma.sync, SIMT) or TMA (wgmma). A
// misaligned problem then costs one extra read and write of its operands
// instead of element-wise loads in the K loop (REPACK=true; the harness
// launches this kernel before the main one). repack_transpose writes an
// operand's transpose, for the wgmma tf32 path, which reads K-major only.
#pragma once

namespace ktune_gemm {

/// One operand to copy: `rows` rows of `cols` elements, `ld_src` apart in the
/// source and `ld_dst` apart in the destination (columns past `cols` are
/// neither read nor written: every consumer bounds its reads to `cols`).
struct RepackParams {
  const void* src;
  void* dst;
  long long ld_src, ld_dst;
  long long rows;
  int cols;
};

/// Work is split into warp items: 32 lanes x kRepackPerLane elements of one
/// row. A warp's accesses are 32 consecutive elements, coalesced whatever
/// the alignment; 8 loads per lane in flight cover DRAM latency. Rows of any
/// length keep every warp busy (a row of 4097 is 17 items, the last nearly
/// empty, instead of a third of the blocks idling on a 2048-wide split).
constexpr int kRepackPerLane = 8;
constexpr int kRepackThreads = 256;
constexpr int kRepackWarpSpan = 32 * kRepackPerLane;

/// Grid: any number of blocks; warps stride over the items.
template <typename T>
__global__ void __launch_bounds__(kRepackThreads) repack_rows(const RepackParams r) {
  const T* src = static_cast<const T*>(r.src);
  T* dst = static_cast<T*>(r.dst);
  const long long chunks = (r.cols + kRepackWarpSpan - 1) / kRepackWarpSpan;
  const long long items = r.rows * chunks;
  const long long warps = static_cast<long long>(gridDim.x) * (kRepackThreads / 32);
  const int lane = threadIdx.x % 32;
  for (long long item = blockIdx.x * (kRepackThreads / 32LL) + threadIdx.x / 32; item < items; item += warps) {
    const long long row = item / chunks;
    const int first = static_cast<int>(item - row * chunks) * kRepackWarpSpan + lane;
    const T* s = src + row * r.ld_src;
    T* d = dst + row * r.ld_dst;
    T v[kRepackPerLane];
#pragma unroll
    for (int j = 0; j < kRepackPerLane; ++j) {
      const int col = first + j * 32;
      if (col < r.cols) v[j] = s[col];
    }
#pragma unroll
    for (int j = 0; j < kRepackPerLane; ++j) {
      const int col = first + j * 32;
      if (col < r.cols) d[col] = v[j];
    }
  }
}

/// The transposing copy (wgmma tf32 reads both operands K-major): source row
/// r, column c goes to destination row c, column r; the destination has
/// `cols` rows of `rows` elements, ld_dst apart. 32 x 32 tiles pass through
/// shared memory (a 33-word row stride, so the column reads hit 32 banks), so
/// reads and writes both go along rows, coalesced.
constexpr int kTransposeTile = 32;
constexpr int kTransposeThreads = 256;  // 32 x 8: each thread moves 4 elements of a tile

/// Grid: any number of blocks; blocks stride over the tiles.
template <typename T>
__global__ void __launch_bounds__(kTransposeThreads) repack_transpose(const RepackParams r) {
  __shared__ T tile[kTransposeTile][kTransposeTile + 1];
  const T* src = static_cast<const T*>(r.src);
  T* dst = static_cast<T*>(r.dst);
  const long long tiles_c = (r.cols + kTransposeTile - 1) / kTransposeTile;
  const long long tiles = (r.rows + kTransposeTile - 1) / kTransposeTile * tiles_c;
  const int x = threadIdx.x % kTransposeTile, y = threadIdx.x / kTransposeTile;
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    const long long row0 = t / tiles_c * kTransposeTile, col0 = t % tiles_c * kTransposeTile;
#pragma unroll
    for (int i = y; i < kTransposeTile; i += kTransposeThreads / kTransposeTile) {
      if (row0 + i < r.rows && col0 + x < r.cols)
        tile[i][x] = src[(row0 + i) * r.ld_src + col0 + x];
    }
    __syncthreads();
#pragma unroll
    for (int i = y; i < kTransposeTile; i += kTransposeThreads / kTransposeTile) {
      if (col0 + i < r.cols && row0 + x < r.rows)
        dst[(col0 + i) * r.ld_dst + row0 + x] = tile[x][i];
    }
    __syncthreads();  // the next tile overwrites this one
  }
}

}  // namespace ktune_gemm
