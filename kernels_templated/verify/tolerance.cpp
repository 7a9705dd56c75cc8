// Tolerance maths of verification: unit roundoffs, family bounds, the host
// checker and the decision over its statistics.
#include "kernels_templated/verify/tolerance.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace ktune::verify {
namespace {

struct Format {
  Precision p;
  std::string_view name;
  int significand_bits;  ///< the implicit one included
  double floor;
};

constexpr Format kFormats[] = {
    {Precision::fp32, "fp32", 24, 0x1p-126},       {Precision::tf32, "tf32", 11, 0x1p-126},
    {Precision::bf16, "bf16", 8, 0x1p-126},        {Precision::fp16, "fp16", 11, 0x1p-25},
    {Precision::fp8_e4m3, "fp8_e4m3", 4, 0x1p-10}, {Precision::fp8_e5m2, "fp8_e5m2", 3, 0x1p-17},
};

const Format& format(Precision p) {
  for (const Format& f : kFormats)
    if (f.p == p) return f;
  throw std::invalid_argument("unknown precision");
}

}  // namespace

Precision precision_from_name(std::string_view name) {
  for (const Format& f : kFormats)
    if (f.name == name) return f.p;
  throw std::invalid_argument("unknown precision '" + std::string(name) +
                              "' (known: fp32, tf32, bf16, fp16, fp8_e4m3, fp8_e5m2)");
}

std::string_view to_string(Precision p) { return format(p).name; }

double unit_roundoff(Precision p) { return std::ldexp(1.0, -format(p).significand_bits); }

double underflow_floor(Precision p) { return format(p).floor; }

double gamma(long long n, double u) {
  const double nu = static_cast<double>(n) * u;
  if (nu >= 1) return std::numeric_limits<double>::infinity();
  return nu / (1 - nu);
}

double CheckStats::rel_l2() const { return ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2); }

void CheckStats::merge(const CheckStats& o) {
  checked += o.checked;
  off += o.off;
  non_finite += o.non_finite;
  unwritten += o.unwritten;
  undefined += o.undefined;
  err2 += o.err2;
  ref2 += o.ref2;
  max_abs = std::max(max_abs, o.max_abs);
  max_rel = std::max(max_rel, o.max_rel);
  // As Checker::note_ratio: the first part with a worst element names it, a
  // later part only with a larger ratio.
  if (o.worst_ratio > worst_ratio || (worst_index < 0 && o.worst_index >= 0)) {
    worst_ratio = o.worst_ratio;
    worst_index = o.worst_index;
  }
  if (o.first_bad >= 0 && (first_bad < 0 || o.first_bad < first_bad)) first_bad = o.first_bad;
  if (o.worst_row_rel_l2 > worst_row_rel_l2) {
    worst_row_rel_l2 = o.worst_row_rel_l2;
    worst_row = o.worst_row;
  }
}

Checker::Checker(ElementBound bound, long long row_length)
    : bound_(bound), row_length_(row_length) {}

void Checker::note_bad(long long index) {
  if (s_.first_bad < 0 || index < s_.first_bad) s_.first_bad = index;
}

void Checker::note_ratio(long long index, double ratio) {
  if (s_.worst_index < 0 || ratio > s_.worst_ratio) {
    s_.worst_ratio = ratio;
    s_.worst_index = index;
  }
}

void Checker::close_row() {
  if (row_ < 0) return;
  const double rel = row_ref2_ > 0 ? std::sqrt(row_err2_ / row_ref2_) : std::sqrt(row_err2_);
  if (s_.worst_row < 0 || rel > s_.worst_row_rel_l2) {
    s_.worst_row_rel_l2 = rel;
    s_.worst_row = row_;
  }
  row_err2_ = row_ref2_ = 0;
}

void Checker::add(long long index, double out, double ref, double mag) {
  if (row_length_ > 0 && index / row_length_ != row_) {
    close_row();
    row_ = index / row_length_;
  }
  ++s_.checked;
  const double allowed = allowed_error(bound_, ref, mag);
  const ElementOutcome o = judge_element(out, ref, allowed);
  if (o == ElementOutcome::undefined) {
    ++s_.undefined;
    return;
  }
  if (o == ElementOutcome::non_finite) {
    ++s_.non_finite;
    note_bad(index);
    return;
  }
  if (o == ElementOutcome::off) {
    ++s_.off;
    note_bad(index);
  }
  if (!is_finite_value(ref)) {
    // An infinite reference met exactly adds no error; missed, it is off
    // already and has no finite difference to add.
    if (o == ElementOutcome::off) note_ratio(index, std::numeric_limits<double>::infinity());
    return;
  }
  const double d = std::fabs(out - ref);
  s_.err2 += d * d;
  s_.ref2 += ref * ref;
  row_err2_ += d * d;
  row_ref2_ += ref * ref;
  s_.max_abs = std::max(s_.max_abs, d);
  if (std::fabs(ref) > bound_.atol && std::fabs(ref) > 0)
    s_.max_rel = std::max(s_.max_rel, d / std::fabs(ref));
  note_ratio(index,
             allowed > 0 ? d / allowed : (d > 0 ? std::numeric_limits<double>::infinity() : 0.0));
}

void Checker::add_unwritten(long long index) {
  ++s_.unwritten;
  note_bad(index);
}

CheckStats Checker::finish() {
  close_row();
  row_ = -1;
  return s_;
}

std::string failure_reason(const CheckStats& s, const Tolerances& t) {
  std::ostringstream why;
  if (s.unwritten > 0) {
    why << s.unwritten << " outputs never written";
  } else if (s.non_finite > 0) {
    why << s.non_finite << " NaN/Inf outputs where the reference is finite";
  } else if (s.off > 0) {
    why << s.off << " elements outside |out - ref| <= atol + rtol |ref| + mag_scale mag (worst "
        << s.worst_ratio << "x the bound)";
  } else if (s.rel_l2() > t.rel_l2) {
    why << "relative L2 error " << s.rel_l2() << " above " << t.rel_l2;
  } else if (t.row_rel_l2 > 0 && s.worst_row_rel_l2 > t.row_rel_l2) {
    why << "row " << s.worst_row << ": relative L2 error " << s.worst_row_rel_l2 << " above "
        << t.row_rel_l2;
  }
  return why.str();
}

// ---- family bounds ----

ElementBound gemm_bound(Precision input, Precision output, long long k, double lipschitz) {
  const double u_out = output == Precision::fp32 ? 0.0 : unit_roundoff(output);
  // The kernel's and the fp32 reference's accumulations each err by at most
  // gamma_{k+4} |A||B| (the +4: alpha, beta C0, bias, rounding to fp32);
  // tf32 inputs add the loss of both factors of every product: up to one tf32
  // ulp each (2^-10 relative), since wgmma truncates the fp32 words it reads
  // (the mma.sync path rounds with cvt.rna, half that: one bound for both).
  double in_round = 0;
  if (input == Precision::tf32) {
    const double u = kTf32TruncationU;
    in_round = 2 * u + u * u;
  }
  // fp8 inputs are exact in the reference; the tensor core's fp8 accumulator
  // keeps about 14 bits, modeled as one truncation per 32-term instruction.
  double fp8_accumulation = 0;
  if (input == Precision::fp8_e4m3 || input == Precision::fp8_e5m2)
    fp8_accumulation = gamma((k + 31) / 32 + 1, kFp8AccumulationU);
  ElementBound b;
  b.atol = underflow_floor(output);
  // Output rounding of the kernel, plus the reference's own rounding to fp32.
  b.rtol = u_out + unit_roundoff(Precision::fp32);
  b.mag_scale = lipschitz * (1 + u_out) *
                (2 * gamma(k + 4, kTensorCoreAccumulationU) + in_round + fp8_accumulation);
  return b;
}

double gemm_rel_l2(Precision input, Precision output, long long k) {
  // Rounding of the output type dominates when it is 16-bit; otherwise the
  // inputs' precision (tf32: 10-bit mantissa) or fp32 summation-order
  // differences, which grow like sqrt(K).
  const double k_growth = std::max(1.0, std::sqrt(static_cast<double>(k)) / 64.0);
  if (input == Precision::fp32) return 1e-5 * k_growth;
  if (input == Precision::tf32) return 2e-3;
  double t = output == Precision::fp32 ? 1e-4 * k_growth : output == Precision::bf16 ? 1e-2 : 5e-3;
  // The fp8 accumulator truncates, so its error has a sign: it adds up.
  if (input == Precision::fp8_e4m3 || input == Precision::fp8_e5m2)
    t += static_cast<double>((k + 31) / 32) * kFp8AccumulationU / 2;
  return t;
}

ElementBound sum_bound(Precision output, long long n) {
  const double u_out = output == Precision::fp32 ? kFp32U : unit_roundoff(output);
  return ElementBound{underflow_floor(output), u_out, (1 + u_out) * gamma(n, kFp32U)};
}

ElementBound max_bound(Precision output) {
  // The max is one of the inputs, which the output format holds exactly.
  return ElementBound{underflow_floor(output), 0, 0};
}

}  // namespace ktune::verify
