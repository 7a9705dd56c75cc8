// check_gemm_output: C, copied to the host, judged element by element against
// the fp32 reference, on every core.
#pragma once

#include <cstdint>
#include <map>
#include <utility>

#include "kernels_templated/gemm/gpu/gemm_harness_kernels.hpp"
#include "kernels_templated/verify/tolerance.hpp"

namespace ktune::gemm_gpu {

/// C as the kernel left it, on the host: rows x cols elements of `type`,
/// row-major with leading dimension ld. An element whose bits equal `poison`
/// was never written when `poison_marks_unwritten` (beta = 0: C is not read).
struct HostOutput {
  const unsigned char* data = nullptr;
  Elem type = Elem::fp32;
  long long rows = 0, cols = 0, ld = 0;
  std::uint32_t poison = 0;
  bool poison_marks_unwritten = true;
};

/// Element (row, col) of C as a float; its raw bits into `bits`.
float output_element(const HostOutput& c, long long row, long long col, std::uint32_t* bits);

/// The statistics verify::Checker gathers over C in row-major order (element
/// i = row * cols + col of `reference` and `magnitude`): the counts, maxima,
/// first bad and worst elements are the same; the sums of squares differ only
/// in the order of their additions. Blocks of rows are judged in parallel
/// (an 8192 x 11008 output took over a second on one core).
verify::CheckStats check_gemm_output(const HostOutput& c, const float* reference,
                                     const float* magnitude, const verify::ElementBound& bound);

/// Elements that fail their bound, are not finite or were never written, per
/// 64 x 64 block of C ((row block, column block) -> count): where the errors
/// of a failed check gather names the cause.
std::map<std::pair<long long, long long>, long long> bad_blocks(const HostOutput& c,
                                                                const float* reference,
                                                                const float* magnitude,
                                                                const verify::ElementBound& bound);

}  // namespace ktune::gemm_gpu
