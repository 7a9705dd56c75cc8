// check_gemm_output: per-block Checkers on TBB's threads, merged in row order.
#include "kernels_templated/gemm/gpu/gemm_output_check.hpp"

#include <cuda_fp16.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace ktune::gemm_gpu {
namespace {

/// Rows a task judges: about 64 K elements a task at the LLM widths, and a
/// fixed split, so the merge (and the sums' rounding) never depends on the
/// scheduler.
constexpr long long kRowsPerBlock = 16;

bool unwritten(const HostOutput& c, std::uint32_t bits) {
  return c.poison_marks_unwritten && bits == c.poison;
}

}  // namespace

float output_element(const HostOutput& c, long long row, long long col, std::uint32_t* bits) {
  const unsigned char* p = c.data + (row * c.ld + col) * elem_bytes(c.type);
  if (c.type == Elem::fp32) {
    std::uint32_t b;
    std::memcpy(&b, p, 4);
    *bits = b;
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  std::uint16_t h;
  std::memcpy(&h, p, 2);
  *bits = h;
  if (c.type == Elem::bf16) {
    const std::uint32_t b = static_cast<std::uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  __half_raw raw;
  raw.x = h;
  return __half2float(__half(raw));
}

verify::CheckStats check_gemm_output(const HostOutput& c, const float* reference,
                                     const float* magnitude, const verify::ElementBound& bound) {
  const long long blocks = (c.rows + kRowsPerBlock - 1) / kRowsPerBlock;
  std::vector<verify::CheckStats> per_block(static_cast<std::size_t>(blocks));
  tbb::parallel_for(0LL, blocks, [&](long long block) {
    verify::Checker checker(bound);
    const long long end = std::min(c.rows, (block + 1) * kRowsPerBlock);
    for (long long row = block * kRowsPerBlock; row < end; ++row) {
      for (long long col = 0; col < c.cols; ++col) {
        std::uint32_t bits = 0;
        const float got = output_element(c, row, col, &bits);
        const long long i = row * c.cols + col;
        if (unwritten(c, bits))
          checker.add_unwritten(i);
        else
          checker.add(i, got, reference[i], magnitude[i]);
      }
    }
    per_block[static_cast<std::size_t>(block)] = checker.finish();
  });
  verify::CheckStats all;
  for (const verify::CheckStats& s : per_block) all.merge(s);
  return all;
}

std::map<std::pair<long long, long long>, long long> bad_blocks(const HostOutput& c,
                                                                const float* reference,
                                                                const float* magnitude,
                                                                const verify::ElementBound& bound) {
  std::map<std::pair<long long, long long>, long long> bad;
  for (long long row = 0; row < c.rows; ++row) {
    for (long long col = 0; col < c.cols; ++col) {
      std::uint32_t bits = 0;
      const float got = output_element(c, row, col, &bits);
      const long long i = row * c.cols + col;
      if (unwritten(c, bits) || !std::isfinite(got) ||
          std::abs(static_cast<double>(got) - reference[i]) >
              verify::allowed_error(bound, reference[i], magnitude[i]))
        ++bad[{row / 64, col / 64}];
    }
  }
  return bad;
}

}  // namespace ktune::gemm_gpu
