// The reduce family: sum or max over the last axis (reduce_rows_kernel, one
// value per row) or over the rows (reduce_cols_kernel, one value per column).
#include <string>

#include "kernels_templated/rowwise/rowwise_spec.hpp"

namespace ktune {
namespace {

using namespace rowwise;

// The op's number in the kernels' template arguments (elements.cuh ReduceOp).
int op_code(const Problem& p) {
  const std::string op = p.text_or("op", "sum");
  if (op == "sum") return 0;
  if (op == "max") return 1;
  throw std::invalid_argument("problem key op: unknown value '" + op + "' (sum|max)");
}

class ReduceSpec final : public RowwiseSpec {
 public:
  std::string_view name() const override { return "reduce"; }
  std::string_view description() const override {
    return "sum or max of a rows x cols matrix over its last axis (one value per row) or over its "
           "rows "
           "(one value per column); fp32 accumulation";
  }
  std::string kernel_file() const override { return "reduce/reduce.cuh"; }
  // Shape classes read "<dtype>.a<align>.<axis>.<op>": axis first.
  const std::vector<ProblemParam>& params() const override { return params_; }
  RowOutput output() const override { return RowOutput::row_values; }
  double flops_per_element() const override { return 1; }

  std::string row_kernel(const RowKernel& k) const override {
    return "ktune_rw::reduce_rows_kernel<" + k.cfg + ", " + std::to_string(op_code(k.problem)) +
           ", " + std::to_string(k.phase) + ">";
  }
  std::string finish_kernel(const std::string& type, const Problem& p) const override {
    return "ktune_rw::reduce_rows_finish<" + type + ", " + std::to_string(op_code(p)) + ">";
  }
  bool reduces_columns(const Problem& p) const override {
    return p.text_or("axis", "last") == "rows";
  }
  std::string column_kernel(const ColumnKernel& k) const override {
    std::string args;
    for (long long v : {static_cast<long long>(op_code(k.problem)), k.block_cols, k.rows_per_block,
                        k.vec, k.cache, k.unroll})
      args += ", " + std::to_string(v);
    return "ktune_rw::reduce_cols_kernel<" + k.type + args + ">";
  }

  verify::ElementBound element_bound(verify::Precision output, long long n,
                                     const Problem& p) const override {
    return is_max(p) ? verify::max_bound(output) : verify::sum_bound(output, n);
  }
  double fp32_rel_l2(const Problem& p) const override { return is_max(p) ? 1e-5 : 1e-4; }
  bool accumulates(const Problem& p) const override { return !is_max(p); }
  InputValues input_values(const Problem& p) const override {
    InputValues v;  // [-1, 1): sums mix signs (cancellation is part of the test)
    v.minus_inf = is_max(p);
    v.sums_inputs = v.magnitude = !is_max(p);
    return v;
  }
  int reference_variant(const Problem& p) const override { return is_max(p) ? 1 : 0; }

 private:
  const std::vector<ProblemParam> params_ = {{"axis", {"last", "rows"}, 0, ""},
                                             {"op", {"sum", "max"}, 0, ""}};
  static bool is_max(const Problem& p) { return p.text("op") == "max"; }
};

}  // namespace

const rowwise::RowwiseSpec& reduce_rowwise_spec() {
  static const ReduceSpec spec;
  return spec;
}

}  // namespace ktune
