// gemm_repack.cuh: copies an operand whose leading dimension breaks 16-byte
// alignment into a workspace with an aligned leading dimension, so the main
// kernel reads it with 16-byte vectors (mma.sync, SIMT) or TMA (wgmma). A
// misaligned problem then costs one extra read and write of its operands
// instead of element-wise loads in the K loop (REPACK=true; the harness
// launches this kernel before the main one).
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

/// Elements each thread copies per row: enough independent loads in flight
/// to cover DRAM latency with 2-byte accesses.
constexpr int kRepackPerThread = 8;
constexpr int kRepackThreads = 256;

/// Grid: x covers a row in chunks of kRepackThreads x kRepackPerThread
/// elements, y strides over the rows. A warp reads and writes consecutive
/// elements, so every access is coalesced whatever the alignment.
template <typename T>
__global__ void __launch_bounds__(kRepackThreads) repack_rows(const RepackParams r) {
  const T* src = static_cast<const T*>(r.src);
  T* dst = static_cast<T*>(r.dst);
  const int first = blockIdx.x * (kRepackThreads * kRepackPerThread) + threadIdx.x;
  for (long long row = blockIdx.y; row < r.rows; row += gridDim.y) {
    const T* s = src + row * r.ld_src;
    T* d = dst + row * r.ld_dst;
    T v[kRepackPerThread];
#pragma unroll
    for (int j = 0; j < kRepackPerThread; ++j) {
      const int col = first + j * kRepackThreads;
      if (col < r.cols) v[j] = s[col];
    }
#pragma unroll
    for (int j = 0; j < kRepackPerThread; ++j) {
      const int col = first + j * kRepackThreads;
      if (col < r.cols) d[col] = v[j];
    }
  }
}

}  // namespace ktune_gemm
