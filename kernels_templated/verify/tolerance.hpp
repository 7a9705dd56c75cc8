// Tolerance maths of verification: per-element error bounds derived from unit
// roundoff and reduction length, the per-element test, and the statistics a
// check gathers. Pure C++ (no CUDA header); the inline element test also
// compiles for the device, so host and device checks share one formula.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#if defined(__CUDACC__)
#define KTUNE_HOST_DEVICE __host__ __device__
#else
#define KTUNE_HOST_DEVICE
#endif

namespace ktune::verify {

/// Number formats whose rounding the bounds model.
enum class Precision { fp32, tf32, bf16, fp16, fp8_e4m3, fp8_e5m2 };

/// "fp32", "tf32", "bf16", "fp16", "fp8_e4m3", "fp8_e5m2"; throws
/// std::invalid_argument naming the unknown text.
Precision precision_from_name(std::string_view name);
std::string_view to_string(Precision p);

/// Unit roundoff u = 2^-p (p: significand bits, the implicit one included):
/// fp32 2^-24, tf32 and fp16 2^-11, bf16 2^-8, fp8_e4m3 2^-4, fp8_e5m2 2^-3.
double unit_roundoff(Precision p);

/// Largest absolute error a correct result may show near zero in format `p`:
/// half the subnormal spacing of fp16 (2^-25), fp8 likewise, and for the
/// formats with fp32's exponent range the smallest normal (2^-126), since GPU
/// code may flush fp32 subnormals to zero.
double underflow_floor(Precision p);

/// gamma_n = n u / (1 - n u): the classic bound on the relative error of a sum
/// or dot product of n terms in any order. +infinity once n u >= 1 (no bound).
double gamma(long long n, double u);

/// The bound of one element: |out - ref| <= atol + rtol |ref| + mag_scale mag,
/// where mag is the element's magnitude (sum |a||b| of a GEMM element,
/// sum |x| of a reduction), 0 for families that do not need one.
struct ElementBound {
  double atol = 0;
  double rtol = 0;
  double mag_scale = 0;
};

/// What a check applies: the element bound, then the relative L2 error over
/// the whole output, then (row-wise families) each row's relative L2 error.
struct Tolerances {
  ElementBound element;
  double rel_l2 = 0;      ///< ||out - ref|| / ||ref|| over everything
  double row_rel_l2 = 0;  ///< per row, against that row's norm; 0: no row check
};

/// How one element compares with its reference.
enum class ElementOutcome : int {
  pass = 0,
  off = 1,         ///< finite, but outside the bound (or an infinite reference not met)
  non_finite = 2,  ///< NaN or Inf where the reference is finite
  undefined = 3,   ///< the reference itself is NaN (e.g. softmax of a row of -inf): not judged
};

KTUNE_HOST_DEVICE inline bool is_finite_value(double x) {
  return x <= 1.7976931348623157e308 && x >= -1.7976931348623157e308;
}

KTUNE_HOST_DEVICE inline double allowed_error(const ElementBound& b, double ref, double mag) {
  return b.atol + b.rtol * (ref < 0 ? -ref : ref) + b.mag_scale * mag;
}

/// The per-element test. An infinite reference (the max of a row of -inf)
/// must be met exactly; a finite one within `allowed`.
KTUNE_HOST_DEVICE inline ElementOutcome judge_element(double out, double ref, double allowed) {
  if (ref != ref) return ElementOutcome::undefined;
  if (!is_finite_value(ref)) return out == ref ? ElementOutcome::pass : ElementOutcome::off;
  if (!is_finite_value(out)) return ElementOutcome::non_finite;
  const double d = out > ref ? out - ref : ref - out;
  return d <= allowed ? ElementOutcome::pass : ElementOutcome::off;
}

/// What a check over one output gathered (host or device).
struct CheckStats {
  long long checked = 0;        ///< elements compared (unwritten ones excluded)
  long long off = 0;            ///< outside their bound
  long long non_finite = 0;     ///< NaN / Inf where the reference is finite
  long long unwritten = 0;      ///< still holding the poison pattern
  long long undefined = 0;      ///< NaN references, not judged
  double err2 = 0;              ///< sum of (out - ref)^2 over finite pairs
  double ref2 = 0;              ///< sum of ref^2 over finite references
  double max_abs = 0;           ///< largest |out - ref| over finite pairs
  double max_rel = 0;           ///< largest |out - ref| / |ref| over references with |ref| > atol
  double worst_ratio = 0;       ///< largest |out - ref| / allowed (> 1 fails)
  long long worst_index = -1;   ///< the element of worst_ratio (first bad element once one fails)
  long long first_bad = -1;     ///< first element that is off, non-finite or unwritten
  double worst_row_rel_l2 = 0;  ///< largest per-row relative L2 error (row checks only)
  long long worst_row = -1;

  double rel_l2() const;
  /// Folds `other` (another part of the same output) into this one.
  void merge(const CheckStats& other);
};

/// Gathers CheckStats element by element on the host. Elements of a row must
/// arrive together (in any order within the row) when row_length > 0.
class Checker {
 public:
  /// `row_length` > 0 also tracks each row's relative L2 error (row =
  /// index / row_length).
  explicit Checker(ElementBound bound, long long row_length = 0);
  /// One element; `mag` as in ElementBound.
  void add(long long index, double out, double ref, double mag = 0);
  /// An element that still holds the poison pattern.
  void add_unwritten(long long index);
  /// The statistics so far (the current row closed).
  CheckStats finish();

 private:
  void close_row();
  void note_bad(long long index);
  void note_ratio(long long index, double ratio);
  ElementBound bound_;
  long long row_length_;
  long long row_ = -1;
  double row_err2_ = 0, row_ref2_ = 0;
  CheckStats s_;
};

/// Which check decided: empty when the stats pass `t`, else a sentence
/// naming the first failed check (unwritten, non-finite, element, rel_l2, row).
std::string failure_reason(const CheckStats& s, const Tolerances& t);
inline bool passes(const CheckStats& s, const Tolerances& t) {
  return failure_reason(s, t).empty();
}

// ---- Family bounds (the derivations are in kernels_templated/gemm/README.md
// and kernels_templated/rowwise/README.md, section "Verification") ----

/// Rounding unit of the fp32 accumulation of GEMM kernels: 2^-23, twice
/// fp32's u, because tensor-core adders truncate instead of rounding.
inline constexpr double kTensorCoreAccumulationU = 1.0 / 8388608.0;
/// Relative loss of a tf32 operand: 2^-10, one ulp of tf32's 10-bit fraction,
/// because wgmma truncates the fp32 words it reads to tf32.
inline constexpr double kTf32TruncationU = 1.0 / 1024.0;
/// Rounding unit of the fp8 wgmma accumulator: 2^-13 (it keeps about 14 bits;
/// DeepSeek-V3's report measured this on H800), applied once per 32-term
/// instruction: a model for the GPU tests to confirm, not a vendor figure.
inline constexpr double kFp8AccumulationU = 1.0 / 8192.0;
/// Rounding unit of row-wise fp32 arithmetic (round to nearest): 2^-24.
inline constexpr double kFp32U = 1.0 / 16777216.0;

/// GEMM: op(A) op(B) with K terms per element, inputs in `input` (tf32: fp32
/// data the kernel truncates or rounds to tf32; fp8: exact in the reference,
/// accumulated in the tensor core's reduced precision), output in `output`; mag = |alpha| (|A||B|)
/// + |beta| |C0| + |bias|, computed beside an fp32 reference that carries the
/// same accumulation error; `lipschitz` bounds the epilogue's activation slope
/// (1 for none / relu, 1.13 for GELU).
ElementBound gemm_bound(Precision input, Precision output, long long k, double lipschitz = 1.0);

/// GEMM's bound on the whole output's relative L2 error: fp32 1e-5 and
/// 16-bit inputs with fp32 output 1e-4 (both times max(1, sqrt(K)/64));
/// tf32 2e-3; 16-bit outputs 1e-2 (bf16) or 5e-3 (fp16); fp8 inputs add the
/// accumulator's expected truncation, half its unit per 32-term instruction.
double gemm_rel_l2(Precision input, Precision output, long long k);

/// A sum or a max of n values against an fp64 reference (the reduce family,
/// the test families): sum: mag = sum |x| of the n values; max: exact. Other
/// row-wise families' bounds are their own (RowwiseSpec::element_bound).
ElementBound sum_bound(Precision output, long long n);
ElementBound max_bound(Precision output);

}  // namespace ktune::verify
