// The test_center family (a test family, KTUNE_TEST_FAMILIES=1): y = x -
// mean(x) over each row. What a new whole-row family defines: its name,
// kernel file, kernel names, work and error bound; the rest is shared.
#include <string>

#include "kernels_templated/rowwise/rowwise_spec.hpp"

namespace ktune {
namespace {

using namespace rowwise;

class TestCenterSpec final : public RowwiseSpec {
 public:
  std::string_view name() const override { return "test_center"; }
  std::string_view description() const override {
    return "test family: y = x - mean(x) over the last axis of a rows x cols matrix; fp32 math";
  }
  std::string kernel_file() const override { return "test_center/test_center.cuh"; }
  RowOutput output() const override { return RowOutput::whole_rows; }
  double flops_per_element() const override { return 2; }  // add, subtract

  std::string row_kernel(const RowKernel& k) const override {
    return "ktune_rw::test_center_kernel<" + k.cfg + ", " + std::to_string(k.phase) + ">";
  }

  verify::ElementBound element_bound(verify::Precision output, long long n,
                                     const Problem&) const override {
    // The fp32 sum errs by gamma_n times sum |x|, the division by u: the
    // mean errs by gamma_{n+1} times mean |x| (the magnitude the reference
    // writes per element); the subtraction by u of its result (and of the
    // mean's error: gamma_{n+2}), the output rounding by u_out.
    const double u_out =
        output == verify::Precision::fp32 ? verify::kFp32U : verify::unit_roundoff(output);
    return {verify::underflow_floor(output), u_out + (1 + u_out) * verify::kFp32U,
            (1 + u_out) * verify::gamma(n + 2, verify::kFp32U)};
  }
  InputValues input_values(const Problem&) const override {
    InputValues v;
    v.lo = -2, v.hi = 2;
    v.magnitude = true;
    return v;
  }
};

}  // namespace

const rowwise::RowwiseSpec& test_center_rowwise_spec() {
  static const TestCenterSpec spec;
  return spec;
}

}  // namespace ktune
