// Tolerance maths (kernels_templated/verify/tolerance.hpp): hand-computed
// bounds and element verdicts, and host-simulated kernels: a correct bf16
// GEMM at K = 4096 passes; a dropped k-tile in one output tile, one wrong row
// of a 32768-row bf16 reduction and a NaN fail, where the old whole-output
// relative L2 check (1e-2) lets them through.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels_templated/rowwise/rowwise_family.hpp"
#include "kernels_templated/verify/report.hpp"
#include "kernels_templated/verify/tolerance.hpp"

using namespace ktune::verify;

namespace {

// A row-wise family's own element bound (its RowwiseSpec).
ElementBound family_bound(const char* family, Precision output, long long n) {
  return ktune::rowwise::find_rowwise_family(family).spec().element_bound(output, n,
                                                                          ktune::Problem{});
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kOldGlobalTolerance = 1e-2;  // the rel-L2 bound bf16 results passed before

/// fp32 -> bf16 -> fp32, round to nearest even (what __float2bfloat16_rn does).
float to_bf16(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  b += 0x7FFFu + ((b >> 16) & 1u);
  b &= 0xFFFF0000u;
  std::memcpy(&f, &b, 4);
  return f;
}

std::vector<float> bf16_uniform(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = to_bf16(u(rng));
  return v;
}

/// A bf16 GEMM as a tiled kernel computes it: fp32 partial sums per k-tile of
/// 32, tiles added in order, the result rounded to bf16. `drop` skips k-tile
/// `drop_tile` in the output tile of rows [16, 32) x columns [32, 48).
struct HostGemm {
  // 192 x 192: large enough that one 16 x 16 tile missing a k-tile stays
  // under 1% of the output's L2 norm.
  int m = 192, n = 192, k = 4096;
  std::vector<float> a, b;  // row-major M x K, K x N
  std::vector<float> ref, mag;

  explicit HostGemm(std::uint64_t seed)
      : a(bf16_uniform(192 * 4096, seed)), b(bf16_uniform(4096 * 192, seed + 1)) {
    // The reference as cuBLAS' fp32 reference is: fp32, K in order; the
    // magnitude sum |a||b| beside it.
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        float s = 0, t = 0;
        for (int p = 0; p < k; ++p) {
          s += a[i * k + p] * b[p * n + j];
          t += std::fabs(a[i * k + p]) * std::fabs(b[p * n + j]);
        }
        ref.push_back(s);
        mag.push_back(t);
      }
  }

  std::vector<float> kernel(bool drop = false, int drop_tile = 5) const {
    std::vector<float> c;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        const bool in_tile = i >= 16 && i < 32 && j >= 32 && j < 48;
        float acc = 0;
        for (int t = 0; t < k / 32; ++t) {
          if (drop && in_tile && t == drop_tile) continue;
          float part = 0;
          for (int p = t * 32; p < t * 32 + 32; ++p) part += a[i * k + p] * b[p * n + j];
          acc += part;
        }
        c.push_back(to_bf16(acc));
      }
    return c;
  }

  CheckStats check(const std::vector<float>& c) const {
    Checker checker(gemm_bound(Precision::bf16, Precision::bf16, k));
    for (std::size_t i = 0; i < c.size(); ++i)
      checker.add(static_cast<long long>(i), c[i], ref[i], mag[i]);
    return checker.finish();
  }
};

Tolerances gemm_tolerances(long long k) {
  return {gemm_bound(Precision::bf16, Precision::bf16, k), 1e-2, 0};
}

}  // namespace

TEST(Precision, UnitRoundoffsAndNames) {
  EXPECT_EQ(unit_roundoff(Precision::fp32), std::ldexp(1.0, -24));
  EXPECT_EQ(unit_roundoff(Precision::tf32), std::ldexp(1.0, -11));
  EXPECT_EQ(unit_roundoff(Precision::bf16), std::ldexp(1.0, -8));
  EXPECT_EQ(unit_roundoff(Precision::fp16), std::ldexp(1.0, -11));
  EXPECT_EQ(unit_roundoff(Precision::fp8_e4m3), std::ldexp(1.0, -4));
  EXPECT_EQ(unit_roundoff(Precision::fp8_e5m2), std::ldexp(1.0, -3));
  EXPECT_EQ(precision_from_name("bf16"), Precision::bf16);
  EXPECT_EQ(to_string(Precision::fp8_e4m3), "fp8_e4m3");
  try {
    precision_from_name("fp64");
    FAIL() << "fp64 is not a modelled precision";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'fp64'"), std::string::npos) << e.what();
  }
}

TEST(Gamma, MatchesTheFormulaAndSaysNothingPastOne) {
  EXPECT_EQ(gamma(0, 0.5), 0.0);
  EXPECT_DOUBLE_EQ(gamma(4, 0.125), 0.5 / 0.5);  // 4u = 0.5 -> 1
  EXPECT_DOUBLE_EQ(gamma(1024, 0x1p-24), 0x1p-14 / (1 - 0x1p-14));
  EXPECT_EQ(gamma(8, 0.125), kInf);
}

TEST(ElementBound, AllowedErrorByHand) {
  const ElementBound b{1e-3, 1e-2, 0.5};
  EXPECT_DOUBLE_EQ(allowed_error(b, -2.0, 4.0), 1e-3 + 2e-2 + 2.0);
  EXPECT_DOUBLE_EQ(allowed_error(b, 0.0, 0.0), 1e-3);
}

TEST(ElementBound, JudgesEdgeValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(judge_element(1.0, 1.0005, 1e-3), ElementOutcome::pass);
  EXPECT_EQ(judge_element(1.0, 1.002, 1e-3), ElementOutcome::off);
  EXPECT_EQ(judge_element(nan, 1.0, 1e9), ElementOutcome::non_finite);
  EXPECT_EQ(judge_element(kInf, 1.0, 1e9), ElementOutcome::non_finite);
  // The max of a row of -inf is -inf, exactly.
  EXPECT_EQ(judge_element(-kInf, -kInf, 0), ElementOutcome::pass);
  EXPECT_EQ(judge_element(-3.4e38, -kInf, 1e9), ElementOutcome::off);
  EXPECT_EQ(judge_element(nan, -kInf, 1e9), ElementOutcome::off);
  // Softmax of a row of -inf is 0/0: nothing to hold the kernel to.
  EXPECT_EQ(judge_element(0.0, nan, 0), ElementOutcome::undefined);
}

TEST(FamilyBounds, GemmBf16AtK4096ByHand) {
  const ElementBound b = gemm_bound(Precision::bf16, Precision::bf16, 4096);
  const double g = 4100.0 * 0x1p-23 / (1 - 4100.0 * 0x1p-23);
  EXPECT_DOUBLE_EQ(b.mag_scale, (1 + 0x1p-8) * 2 * g);
  EXPECT_DOUBLE_EQ(b.rtol, 0x1p-8 + 0x1p-24);
  EXPECT_DOUBLE_EQ(b.atol, 0x1p-126);
  // tf32 adds the truncation of both factors (wgmma reads the top 19 bits): 2 * 2^-10 + 2^-20.
  const ElementBound t = gemm_bound(Precision::tf32, Precision::fp32, 4096);
  EXPECT_DOUBLE_EQ(t.mag_scale, 2 * g + 2 * 0x1p-10 + 0x1p-20);
  EXPECT_DOUBLE_EQ(t.rtol, 0x1p-24);
  // Scales with K: twice the K, about twice the bound.
  EXPECT_NEAR(gemm_bound(Precision::fp16, Precision::fp16, 8192).mag_scale /
                  gemm_bound(Precision::fp16, Precision::fp16, 4096).mag_scale,
              2.0, 1e-3);
}

TEST(FamilyBounds, GemmFp8AtK4096ByHand) {
  // fp8 inputs are exact in the reference; the accumulator truncates at 2^-13
  // once per 32-term instruction: gamma_{4096/32 + 1}(2^-13) on top of the fp32 terms.
  const ElementBound b = gemm_bound(Precision::fp8_e4m3, Precision::bf16, 4096);
  const double g = 4100.0 * 0x1p-23 / (1 - 4100.0 * 0x1p-23);
  const double acc = 129.0 * 0x1p-13 / (1 - 129.0 * 0x1p-13);
  EXPECT_DOUBLE_EQ(b.mag_scale, (1 + 0x1p-8) * (2 * g + acc));
  EXPECT_DOUBLE_EQ(b.rtol, 0x1p-8 + 0x1p-24);
  // e5m2 accumulates alike; K rounds up to whole instructions.
  const double acc33 = 3.0 * 0x1p-13 / (1 - 3.0 * 0x1p-13);
  const double g33 = 37.0 * 0x1p-23 / (1 - 37.0 * 0x1p-23);
  EXPECT_DOUBLE_EQ(gemm_bound(Precision::fp8_e5m2, Precision::fp16, 33).mag_scale,
                   (1 + 0x1p-11) * (2 * g33 + acc33));
  // 16-bit inputs carry no fp8 term.
  EXPECT_LT(gemm_bound(Precision::bf16, Precision::bf16, 4096).mag_scale, b.mag_scale / 2);
}

TEST(FamilyBounds, GemmRelL2ByDtypeAndK) {
  // The 16-bit and tf32 values as before; fp8 adds half a 2^-13 unit per 32-term instruction.
  EXPECT_DOUBLE_EQ(gemm_rel_l2(Precision::bf16, Precision::bf16, 4096), 1e-2);
  EXPECT_DOUBLE_EQ(gemm_rel_l2(Precision::fp16, Precision::fp16, 4096), 5e-3);
  EXPECT_DOUBLE_EQ(gemm_rel_l2(Precision::tf32, Precision::fp32, 65536), 2e-3);
  EXPECT_DOUBLE_EQ(gemm_rel_l2(Precision::fp32, Precision::fp32, 16384), 2e-5);
  EXPECT_DOUBLE_EQ(gemm_rel_l2(Precision::fp8_e4m3, Precision::bf16, 4096), 1e-2 + 128 * 0x1p-14);
  EXPECT_DOUBLE_EQ(gemm_rel_l2(Precision::fp8_e4m3, Precision::fp16, 33), 5e-3 + 2 * 0x1p-14);
  EXPECT_GT(gemm_rel_l2(Precision::fp8_e5m2, Precision::bf16, 8192),
            gemm_rel_l2(Precision::fp8_e5m2, Precision::bf16, 4096));
}

TEST(FamilyBounds, RowwiseByHand) {
  EXPECT_DOUBLE_EQ(sum_bound(Precision::bf16, 1000).mag_scale, (1 + 0x1p-8) * gamma(1000, 0x1p-24));
  EXPECT_DOUBLE_EQ(sum_bound(Precision::bf16, 1000).rtol, 0x1p-8);
  EXPECT_EQ(max_bound(Precision::fp32).rtol, 0.0);
  EXPECT_DOUBLE_EQ(family_bound("softmax", Precision::fp16, 1000).rtol,
                   0x1p-11 + (1 + 0x1p-11) * gamma(5200, 0x1p-24));
  EXPECT_DOUBLE_EQ(family_bound("softmax", Precision::fp16, 1000).atol, 0x1p-25);
  EXPECT_DOUBLE_EQ(family_bound("rmsnorm", Precision::fp32, 4080).rtol,
                   0x1p-24 + (1 + 0x1p-24) * gamma(4096, 0x1p-24));
}

TEST(GemmCheck, CorrectBf16GemmAtK4096Passes) {
  const HostGemm g(7);
  const CheckStats s = g.check(g.kernel());
  EXPECT_EQ(failure_reason(s, gemm_tolerances(g.k)), "");
  EXPECT_EQ(s.checked, 192 * 192);
  EXPECT_GT(s.max_abs, 0.0);      // bf16 output rounding is there ...
  EXPECT_LT(s.worst_ratio, 1.0);  // ... and inside the bound
}

TEST(GemmCheck, ADroppedKTileInOneOutputTileFails) {
  const HostGemm g(7);
  const CheckStats s = g.check(g.kernel(/*drop=*/true));
  // The whole-output L2 error barely moves: the old check passed this kernel.
  EXPECT_LT(s.rel_l2(), kOldGlobalTolerance);
  EXPECT_GT(s.off, 0);
  const std::string why = failure_reason(s, gemm_tolerances(g.k));
  EXPECT_NE(why.find("elements outside"), std::string::npos) << why;
  // The failures all lie in the tile whose k-tile was dropped.
  const long long row = s.first_bad / g.n, col = s.first_bad % g.n;
  EXPECT_TRUE(row >= 16 && row < 32 && col >= 32 && col < 48) << s.first_bad;
}

TEST(GemmCheck, ANanFails) {
  const HostGemm g(7);
  std::vector<float> c = g.kernel();
  c[1234] = std::numeric_limits<float>::quiet_NaN();
  const CheckStats s = g.check(c);
  EXPECT_EQ(s.non_finite, 1);
  EXPECT_EQ(s.first_bad, 1234);
  EXPECT_NE(failure_reason(s, gemm_tolerances(g.k)).find("NaN"), std::string::npos);
}

TEST(RowwiseCheck, OneWrongRowOfA32768RowBf16ReductionFails) {
  const long long rows = 32768, cols = 64;
  const std::vector<float> x = bf16_uniform(static_cast<std::size_t>(rows * cols), 11);
  std::vector<double> ref(rows), mag(rows);
  std::vector<float> out(rows);
  for (long long r = 0; r < rows; ++r) {
    float acc[4] = {0, 0, 0, 0};  // four strided fp32 partial sums, as a warp-split kernel adds
    for (long long c = 0; c < cols; ++c) {
      ref[r] += x[r * cols + c];
      mag[r] += std::fabs(x[r * cols + c]);
      acc[c % 4] += x[r * cols + c];
    }
    out[r] = to_bf16((acc[0] + acc[1]) + (acc[2] + acc[3]));
  }
  auto check = [&](const std::vector<float>& o) {
    Checker checker(sum_bound(Precision::bf16, cols));
    for (long long r = 0; r < rows; ++r) checker.add(r, o[r], ref[r], mag[r]);
    return checker.finish();
  };
  const Tolerances t{sum_bound(Precision::bf16, cols), 1e-2, 0};
  EXPECT_EQ(failure_reason(check(out), t), "");
  std::vector<float> wrong = out;
  wrong[20000] = out[20001];  // one row's result from its neighbour's data
  const CheckStats s = check(wrong);
  EXPECT_LT(s.rel_l2(), kOldGlobalTolerance);  // about 1 / sqrt(32768) of the norm: passed before
  EXPECT_EQ(s.off, 1);
  EXPECT_EQ(s.first_bad, 20000);
  EXPECT_FALSE(passes(s, t));
}

TEST(RowwiseCheck, Bf16SoftmaxRowsPassAndARowCheckCatchesOneRow) {
  const long long rows = 256, cols = 1000;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<float> u(-8.f, 8.f);
  std::vector<float> x(static_cast<std::size_t>(rows * cols));
  for (float& v : x) v = to_bf16(u(rng));
  std::vector<double> ref(x.size());
  std::vector<float> out(x.size());
  for (long long r = 0; r < rows; ++r) {
    const float* row = &x[r * cols];
    double m = -kInf, s = 0;
    float mf = -INFINITY, sf = 0;
    for (long long c = 0; c < cols; ++c) m = std::max(m, double(row[c])), mf = std::max(mf, row[c]);
    for (long long c = 0; c < cols; ++c) s += std::exp(row[c] - m), sf += std::exp(row[c] - mf);
    for (long long c = 0; c < cols; ++c) {
      ref[r * cols + c] = std::exp(row[c] - m) / s;
      out[r * cols + c] = to_bf16(std::exp(row[c] - mf) / sf);
    }
  }
  const Tolerances t{family_bound("softmax", Precision::bf16, cols), 1e-2, 4e-2};
  auto check = [&](const std::vector<float>& o, const ElementBound& bound) {
    Checker checker(bound, cols);
    for (std::size_t i = 0; i < o.size(); ++i) checker.add(static_cast<long long>(i), o[i], ref[i]);
    return checker.finish();
  };
  const CheckStats good = check(out, t.element);
  EXPECT_EQ(failure_reason(good, t), "");
  EXPECT_GE(good.worst_row, 0);
  // Row 100 scaled by 1.1: every element off by 10%, the whole output by less than 1%.
  std::vector<float> scaled = out;
  for (long long c = 0; c < cols; ++c) scaled[100 * cols + c] = to_bf16(1.1f * out[100 * cols + c]);
  const CheckStats bad = check(scaled, t.element);
  EXPECT_EQ(bad.worst_row, 100);
  EXPECT_NEAR(bad.worst_row_rel_l2, 0.1, 0.01);
  EXPECT_LT(bad.rel_l2(), kOldGlobalTolerance);
  EXPECT_EQ(bad.off, cols);
  // With the element bound relaxed, the row check alone still catches it.
  const Tolerances rows_only{{0, 1, 0}, 1e-2, 4e-2};
  const CheckStats relaxed = check(scaled, rows_only.element);
  EXPECT_EQ(relaxed.off, 0);
  const std::string why = failure_reason(relaxed, rows_only);
  EXPECT_NE(why.find("row 100"), std::string::npos) << why;
}

TEST(RowwiseCheck, RowsOfMinusInfinity) {
  // reduce max: -inf must come back as -inf; softmax: a NaN reference is not judged.
  Checker max_check(max_bound(Precision::fp32));
  max_check.add(0, -kInf, -kInf);
  max_check.add(1, 0.5, 0.5);
  EXPECT_EQ(failure_reason(max_check.finish(), {max_bound(Precision::fp32), 1e-5, 0}), "");
  Checker wrong(max_bound(Precision::fp32));
  wrong.add(0, -3.4028234663852886e38, -kInf);
  const CheckStats s = wrong.finish();
  EXPECT_EQ(s.off, 1);
  EXPECT_EQ(s.worst_ratio, kInf);
  Checker softmax(family_bound("softmax", Precision::fp32, 4), 4);
  for (int i = 0; i < 4; ++i) softmax.add(i, std::nan(""), std::nan(""));
  for (int i = 4; i < 8; ++i) softmax.add(i, 0.25, 0.25);
  const CheckStats sm = softmax.finish();
  EXPECT_EQ(sm.undefined, 4);
  EXPECT_EQ(failure_reason(sm, {family_bound("softmax", Precision::fp32, 4), 1e-5, 1e-4}), "");
}

TEST(RowwiseCheck, UnwrittenOutputsFailFirst) {
  Checker c(ElementBound{1, 1, 0});
  c.add(0, 1, 1);
  c.add_unwritten(1);
  const CheckStats s = c.finish();
  EXPECT_EQ(s.unwritten, 1);
  EXPECT_EQ(s.first_bad, 1);
  EXPECT_NE(failure_reason(s, {{1, 1, 0}, 1, 0}).find("never written"), std::string::npos);
}

TEST(Report, JsonKeysTheLookupReads) {
  Report r;
  r.set_stage("compile", true);
  r.set_stage("numerical", true);
  r.set_stage("numerical", false);  // set again: replaced, not duplicated
  r.tolerances = gemm_tolerances(4096);
  r.seeds = {42};
  r.deterministic = false;
  r.nondeterminism_expected = true;
  const nlohmann::json j = to_json(r);
  ASSERT_TRUE(j["deterministic"].is_boolean());
  EXPECT_FALSE(j["deterministic"].get<bool>());
  EXPECT_EQ(j["stages"].size(), 2u);
  EXPECT_FALSE(j["stages"]["numerical"].get<bool>());
  EXPECT_EQ(j["seeds"], nlohmann::json::array({42}));
  EXPECT_DOUBLE_EQ(j["tolerance"]["rtol"].get<double>(), 0x1p-8 + 0x1p-24);
  EXPECT_TRUE(j["numerical"].contains("max_rel_error"));
  EXPECT_FALSE(j.contains("edge"));
  Report unchecked;
  EXPECT_FALSE(to_json(unchecked).contains("deterministic"));  // absent, never a guess
}

// test_faulty's injected faults (kernels_templated/faulty/faulty.cuh) on host
// data, under the bounds its harness applies: y = a x + b with a sum's bound
// over nine terms, rows of 1024 outputs. The correct computation passes; the
// dropped k-tile, the wrong row and the NaN fail.
TEST(FaultyPatterns, TheChecksCatchEachInjectedFault) {
  const long long n = 1 << 16, row = 1024;
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  const float a = 0.5f + 0.5f * (u(rng) + 1.f), b = u(rng);
  std::vector<float> x(n);
  for (float& v : x) v = u(rng);
  const Tolerances t{sum_bound(Precision::fp32, 9), 1e-5, 1e-4};
  auto check = [&](const std::string& mode) {
    Checker checker(t.element, row);
    for (long long i = 0; i < n; ++i) {
      float y = std::fma(a, x[i], b);
      if (mode ==
          "drop_ktile") {  // eight k-tiles of a/8; output tile (block) 1 of 1024 skips k-tile 3
        y = b;
        for (int k = 0; k < 8; ++k)
          if (!(i / 1024 == 1 && k == 3)) y = std::fma(0.125f * a, x[i], y);
      }
      if (mode == "wrong_row" && i / row == 5) y = std::fma(a, x[i + row], b);
      if (mode == "nan_one" && i == n / 2) y = std::numeric_limits<float>::quiet_NaN();
      const double ref = double(a) * x[i] + b;
      checker.add(i, y, ref, std::fabs(double(a) * x[i]) + std::fabs(double(b)));
    }
    return checker.finish();
  };
  EXPECT_EQ(failure_reason(check("normal"), t), "");
  const CheckStats dropped = check("drop_ktile");
  EXPECT_GT(dropped.off, 0);
  EXPECT_EQ(dropped.worst_index / 1024, 1);
  const CheckStats wrong_row = check("wrong_row");
  EXPECT_EQ(wrong_row.worst_row, 5);
  EXPECT_NE(failure_reason(wrong_row, t).find("elements outside"), std::string::npos);
  const CheckStats nan = check("nan_one");
  EXPECT_EQ(nan.non_finite, 1);
  EXPECT_EQ(nan.first_bad, n / 2);
}
