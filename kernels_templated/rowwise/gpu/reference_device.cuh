// Device helpers of the nvcc-compiled row-wise verification code (the
// comparison and each family's fp64 reference): element loads as doubles,
// a block-wide reduction, launch sizes.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels_templated/rowwise/gpu/rowwise_reference.hpp"

namespace ktune::rowwise {

/// Threads per block of every verification kernel.
constexpr int kThreads = 256;

__device__ inline double load_as_double(const void* p, DType t, long long i) {
  switch (t) {
    case DType::fp32:
      return static_cast<const float*>(p)[i];
    case DType::bf16:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    case DType::fp16:
      return __half2float(static_cast<const __half*>(p)[i]);
  }
  return 0;
}

/// Block-wide sum or max of doubles over kThreads threads; every thread gets the result.
__device__ inline double block_reduce(double v, bool is_max) {
  __shared__ double buf[kThreads];
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half)
      buf[threadIdx.x] = is_max ? fmax(buf[threadIdx.x], buf[threadIdx.x + half])
                                : buf[threadIdx.x] + buf[threadIdx.x + half];
    __syncthreads();
  }
  double r = buf[0];
  __syncthreads();
  return r;
}

/// Blocks of kThreads for n items, at least 1, at most `cap` (grid-stride loops do the rest).
inline unsigned blocks_for(long long n, unsigned cap) {
  long long b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > cap ? cap : b));
}

/// Blocks of a one-block-per-row reference (grid-stride over rows).
inline unsigned row_blocks(long long rows) {
  return static_cast<unsigned>(rows < 65536 ? rows : 65536);
}

}  // namespace ktune::rowwise
