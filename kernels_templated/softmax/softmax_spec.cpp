// The softmax family: softmax over the last axis (softmax_kernel), with its
// own knob `stats` (online log-sum-exp, or max then sum).
#include <string>

#include "kernels_templated/rowwise/rowwise_spec.hpp"

namespace ktune {
namespace {

using namespace rowwise;

class SoftmaxSpec final : public RowwiseSpec {
 public:
  std::string_view name() const override { return "softmax"; }
  std::string_view description() const override {
    return "softmax over the last axis of a rows x cols matrix; fp32 math";
  }
  std::string kernel_file() const override { return "softmax/softmax.cuh"; }
  RowOutput output() const override { return RowOutput::whole_rows; }
  double flops_per_element() const override { return 5; }   // max, subtract, exp, sum, scale
  int partials_per_segment() const override { return 2; }   // max and sum
  int reduction_slot_bytes() const override { return 12; }  // a float and a (max, sum) pair
  int row_passes(const Config& c) const override { return c.text("stats") == "two_pass" ? 2 : 1; }

  void add_knobs(Space& s) const override {
    s.add(Parameter::categorical(
        "stats", {"online", "two_pass"}, "online",
        "one pass of running max and sum (online log-sum-exp) or max then sum"));
  }

  std::string row_kernel(const RowKernel& k) const override {
    return "ktune_rw::softmax_kernel<" + k.cfg + ", " +
           (k.config.text("stats") == "online" ? "1" : "0") + ", " + std::to_string(k.phase) + ">";
  }

  verify::ElementBound element_bound(verify::Precision output, long long n,
                                     const Problem&) const override {
    // Each term exp(x - m) errs by <= (|x - m| + 4) u relative where it is above
    // fp32's underflow (|x - m| < 88), an online rescale adds <= 4 u per term
    // (|d| e^-|d| <= 1/e, a multiply, an exp), the sum gamma_n, the division 2 u:
    // gamma_{5n + 200} holds all of it.
    const double u_out =
        output == verify::Precision::fp32 ? verify::kFp32U : verify::unit_roundoff(output);
    return {verify::underflow_floor(output),
            u_out + (1 + u_out) * verify::gamma(5 * n + 200, verify::kFp32U), 0};
  }
  InputValues input_values(const Problem&) const override {
    InputValues v;
    v.lo = -8, v.hi = 8;  // many e-folds
    v.minus_inf = true;   // a row of -inf has a defined softmax only where some entry is finite
    return v;
  }
};

}  // namespace

const rowwise::RowwiseSpec& softmax_rowwise_spec() {
  static const SoftmaxSpec spec;
  return spec;
}

}  // namespace ktune
