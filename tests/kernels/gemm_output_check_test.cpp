// check_gemm_output: the parallel check of a GEMM's output gathers what one
// verify::Checker pass in row-major order gathers, for every output type.
#include <gtest/gtest.h>

#include <cuda_fp16.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels_templated/gemm/gpu/gemm_output_check.hpp"

namespace ktune::gemm_gpu {
namespace {

/// An output of rows x cols (leading dimension ld) holding `values`, with the
/// padding between cols and ld filled with NaN (never read).
struct TestOutput {
  Elem type;
  long long rows, cols, ld;
  std::uint32_t poison;
  std::vector<unsigned char> bytes;

  TestOutput(Elem t, long long r, long long c, long long l, std::uint32_t p)
      : type(t), rows(r), cols(c), ld(l), poison(p), bytes(r * l * elem_bytes(t)) {
    for (long long i = 0; i < r; ++i)
      for (long long j = 0; j < l; ++j) set(i, j, std::numeric_limits<float>::quiet_NaN());
  }
  void set(long long row, long long col, float v) { set_bits(row, col, bits_of(v)); }
  void set_bits(long long row, long long col, std::uint32_t b) {
    unsigned char* p = bytes.data() + (row * ld + col) * elem_bytes(type);
    if (type == Elem::fp32) {
      std::memcpy(p, &b, 4);
    } else {
      const auto h = static_cast<std::uint16_t>(b);
      std::memcpy(p, &h, 2);
    }
  }
  std::uint32_t bits_of(float v) const {
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    if (type == Elem::bf16) return b >> 16;  // the values used are exact in bf16
    if (type == Elem::fp16) {
      const __half_raw raw = __half(__float2half_rn(v));
      return raw.x;
    }
    return b;
  }
  HostOutput view(bool poison_marks_unwritten = true) const {
    return {bytes.data(), type, rows, cols, ld, poison, poison_marks_unwritten};
  }
};

/// What the harness gathered before: one Checker over C in row-major order.
verify::CheckStats one_pass(const HostOutput& c, const std::vector<float>& ref,
                            const std::vector<float>& mag, const verify::ElementBound& bound) {
  verify::Checker checker(bound);
  for (long long row = 0; row < c.rows; ++row)
    for (long long col = 0; col < c.cols; ++col) {
      std::uint32_t bits = 0;
      const float got = output_element(c, row, col, &bits);
      const long long i = row * c.cols + col;
      if (c.poison_marks_unwritten && bits == c.poison)
        checker.add_unwritten(i);
      else
        checker.add(i, got, ref[i], mag[i]);
    }
  return checker.finish();
}

void expect_same(const verify::CheckStats& got, const verify::CheckStats& want) {
  EXPECT_EQ(got.checked, want.checked);
  EXPECT_EQ(got.off, want.off);
  EXPECT_EQ(got.non_finite, want.non_finite);
  EXPECT_EQ(got.unwritten, want.unwritten);
  EXPECT_EQ(got.undefined, want.undefined);
  EXPECT_EQ(got.max_abs, want.max_abs);
  EXPECT_EQ(got.max_rel, want.max_rel);
  EXPECT_EQ(got.worst_ratio, want.worst_ratio);
  EXPECT_EQ(got.worst_index, want.worst_index);
  EXPECT_EQ(got.first_bad, want.first_bad);
  EXPECT_NEAR(got.err2, want.err2, 1e-12 * (1 + want.err2));
  EXPECT_NEAR(got.ref2, want.ref2, 1e-12 * want.ref2);
}

struct Case {
  Elem type;
  std::uint32_t poison;
};

class GemmOutputCheck : public ::testing::TestWithParam<Case> {};

TEST_P(GemmOutputCheck, GathersWhatOnePassInOrderGathers) {
  // 37 rows: blocks of 16 rows and a short last one; ld > cols.
  const long long rows = 37, cols = 70, ld = 80;
  TestOutput c(GetParam().type, rows, cols, ld, GetParam().poison);
  std::vector<float> ref(rows * cols), mag(rows * cols, 4.0f);
  for (long long i = 0; i < rows; ++i)
    for (long long j = 0; j < cols; ++j) {
      const float v = static_cast<float>((i * 7 + j * 3) % 64 - 32) / 8;  // exact in every type
      ref[i * cols + j] = v;
      c.set(i, j, v);
    }
  const verify::ElementBound bound{1e-3, 1e-3, 1e-3};
  const verify::CheckStats clean = check_gemm_output(c.view(), ref.data(), mag.data(), bound);
  expect_same(clean, one_pass(c.view(), ref, mag, bound));
  EXPECT_EQ(clean.checked, rows * cols);
  EXPECT_EQ(clean.first_bad, -1);
  EXPECT_EQ(clean.err2, 0.0);

  c.set(36, 69, ref[36 * cols + 69] + 0.5f);  // off, in the last block
  c.set(20, 5, ref[20 * cols + 5] + 2.0f);    // off, the worst
  c.set(17, 3, std::numeric_limits<float>::infinity());
  c.set_bits(33, 40, GetParam().poison);  // never written
  const verify::CheckStats bad = check_gemm_output(c.view(), ref.data(), mag.data(), bound);
  expect_same(bad, one_pass(c.view(), ref, mag, bound));
  EXPECT_EQ(bad.off, 2);
  EXPECT_EQ(bad.non_finite, 1);
  EXPECT_EQ(bad.unwritten, 1);
  EXPECT_EQ(bad.first_bad, 17 * cols + 3);
  EXPECT_EQ(bad.worst_index, 20 * cols + 5);

  // beta != 0: C was read, so the poison pattern is a value (a NaN) like any other.
  const verify::CheckStats read = check_gemm_output(c.view(false), ref.data(), mag.data(), bound);
  expect_same(read, one_pass(c.view(false), ref, mag, bound));
  EXPECT_EQ(read.unwritten, 0);
  EXPECT_EQ(read.non_finite, 2);

  const auto blocks = bad_blocks(c.view(), ref.data(), mag.data(), bound);
  const std::map<std::pair<long long, long long>, long long> want{
      {{0, 0}, 3}, {{0, 1}, 1}};  // (17,3), (20,5), (33,40) in block (0,0); (36,69) in (0,1)
  EXPECT_EQ(blocks, want);
}

INSTANTIATE_TEST_SUITE_P(EveryOutputType, GemmOutputCheck,
                         ::testing::Values(Case{Elem::bf16, 0x7FDEu}, Case{Elem::fp16, 0x7E5Au},
                                           Case{Elem::fp32, 0x7FC0DEADu}),
                         [](const auto& info) {
                           return std::string(info.param.type == Elem::bf16   ? "bf16"
                                              : info.param.type == Elem::fp16 ? "fp16"
                                                                              : "fp32");
                         });

TEST(GemmOutputElement, ReadsEachTypeAndItsBits) {
  TestOutput bf(Elem::bf16, 1, 2, 2, 0), half(Elem::fp16, 1, 2, 2, 0),
      single(Elem::fp32, 1, 2, 2, 0);
  for (TestOutput* c : {&bf, &half, &single}) {
    c->set(0, 1, -1.5f);
    std::uint32_t bits = 0;
    EXPECT_EQ(output_element(c->view(), 0, 1, &bits), -1.5f);
    EXPECT_EQ(bits, c->bits_of(-1.5f));
  }
}

}  // namespace
}  // namespace ktune::gemm_gpu
