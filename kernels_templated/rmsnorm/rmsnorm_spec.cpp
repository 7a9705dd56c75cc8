// The rmsnorm family: y = x / sqrt(mean(x^2) + eps) * w over the last axis
// (rmsnorm_kernel), with a weight vector w and its own knob `weights`.
#include <string>

#include "kernels_templated/rowwise/rowwise_spec.hpp"

namespace ktune {
namespace {

using namespace rowwise;

class RmsnormSpec final : public RowwiseSpec {
 public:
  std::string_view name() const override { return "rmsnorm"; }
  std::string_view description() const override {
    return "RMSNorm with weight over the last axis: y = x / sqrt(mean(x^2) + eps) * w; fp32 math";
  }
  std::string kernel_file() const override { return "rmsnorm/rmsnorm.cuh"; }
  const std::vector<ProblemParam>& params() const override { return params_; }
  RowOutput output() const override { return RowOutput::whole_rows; }
  std::string_view column_vector() const override { return "weight"; }
  double flops_per_element() const override { return 4; }  // square-add, scale, weight

  void add_knobs(Space& s) const override {
    // A block of one shared-memory segment walks rows of the same columns
    // (its cluster rank, or the whole row), so its weight segment is the
    // same every row: held in shared memory, the write pass reads it there
    // instead of from L2 (whose latency ncu showed as the refill walk's
    // long-scoreboard stalls). A block of one row copies it with the row.
    s.add(Parameter::categorical(
        "weights", {"global", "smem"}, "global",
        "weight vector read from global memory (L2) in the write pass, or the block's "
        "segment copied into shared memory with its first row (shared-memory rows)"));
    s.require(
        "weights in shared memory: one shared-memory segment per block, no split unless combined "
        "in the "
        "kernel",
        {"weights", "row_cache", "rows_per_block", "split", "split_combine"},
        [](const Assignment& a) {
          return a.s("weights") == "global" ||
                 (a.s("row_cache") == "smem" && a.i("rows_per_block") == 1 &&
                  (a.i("split") == 1 || a.s("split_combine") == "in_kernel"));
        });
  }
  std::vector<std::string> smem_segment_knobs() const override { return {"weights"}; }
  int extra_smem_segments(const Assignment& a) const override {
    return a.s("weights") == "smem" ? 1 : 0;
  }
  std::vector<Config> on_chip_variants(const Config& c) const override {
    Config held = c;
    held.set("weights", std::string("smem"));
    return {c, held};
  }

  std::string row_kernel(const RowKernel& k) const override {
    const std::string weights = k.config.text_or("weights", "global");
    if (weights != "global" && weights != "smem")
      throw std::invalid_argument("knob weights: unknown value '" + weights + "' (global|smem)");
    const bool hold_weights = weights == "smem";
    // A block of one segment walks rows of the same columns (or owns one row):
    // split 1, or a linked row (its persistent grid is a whole number of rows'
    // segments).
    if (hold_weights && (!k.row_in_smem || k.rows_per_block != 1 || (k.split != 1 && !k.linked)))
      throw std::invalid_argument(
          "weights=smem needs row_cache=smem, rows_per_block=1, and split=1 or "
          "split_combine=in_kernel");
    return "ktune_rw::rmsnorm_kernel<" + k.cfg + ", " + std::to_string(k.phase) +
           (hold_weights ? ", 1" : "") + ">";
  }

  verify::ElementBound element_bound(verify::Precision output, long long n,
                                     const Problem&) const override {
    // The sum of squares errs by gamma_{n+1}, the mean, eps and the approximate
    // rsqrt add a few u (halved by the square root), two multiplies 2 u.
    const double u_out =
        output == verify::Precision::fp32 ? verify::kFp32U : verify::unit_roundoff(output);
    return {verify::underflow_floor(output),
            u_out + (1 + u_out) * verify::gamma(n + 16, verify::kFp32U), 0};
  }
  InputValues input_values(const Problem&) const override {
    InputValues v;
    v.lo = -3, v.hi = 3;
    v.w_lo = 0.5, v.w_hi = 1.5;  // weights stay away from zero
    return v;
  }

 private:
  const std::vector<ProblemParam> params_ = {{"eps", {}, 1e-6, "1e-6"}};
};

}  // namespace

const rowwise::RowwiseSpec& rmsnorm_rowwise_spec() {
  static const RmsnormSpec spec;
  return spec;
}

}  // namespace ktune
