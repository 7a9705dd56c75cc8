// RowwiseSpec: what one row-wise family knows about itself and nothing else
// does (its name, kernel template, problem parameters, kernel names, extra
// inputs, work, error bound, input values). The shared row-wise code (space,
// launch plan, harness, runtime) asks the spec; each family folder defines
// one, registered by one line of kernels_templated/families.def.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kernels_templated/verify/tolerance.hpp"
#include "space/space.hpp"
#include "space/value_map.hpp"

namespace ktune::rowwise {

/// A problem key a family adds to rows, cols and dtype.
struct ProblemParam {
  std::string key;
  /// A choice among these texts (the first is the default); empty: a real number > 0.
  std::vector<std::string> choices;
  double default_real = 0;   ///< real parameters: the default value ...
  std::string default_text;  ///< ... as the problem help shows it ("1e-6")
};

/// What a row-wise kernel writes.
enum class RowOutput {
  /// rows x cols, each row normalized by statistics of the whole row: rows may
  /// be held on chip (row_cache, cluster, split_combine knobs); a split row's
  /// second kernel is the same kernel in phase kApply.
  whole_rows,
  /// One value per row (a reduction); a split row's partials are combined by
  /// the family's finish kernel.
  row_values,
};

/// What a row kernel's name expression is built from (launch_plan.cpp).
struct RowKernel {
  std::string cfg;  ///< "ktune_rw::RowCfg<...>" (rows.cuh)
  int phase = 0;    ///< elements.cuh Phase: fused 0, stats 1, apply 2, cluster 3, linked 4
  const Problem& problem;
  const Config& config;
  bool row_in_smem = false;  ///< row_cache=smem
  long long rows_per_block = 1;
  long long split = 1;  ///< the configuration's split (a cluster not counted)
  bool linked = false;  ///< split_combine=in_kernel
};

/// A column reduction's kernel (RowwiseSpec::reduces_columns).
struct ColumnKernel {
  std::string type;  ///< the CUDA element type
  const Problem& problem;
  long long block_cols = 1, rows_per_block = 1, vec = 1, cache = 0, unroll = 1;
};

/// The harness's seeded inputs (rowwise/README.md, "Verification").
struct InputValues {
  double lo = -1, hi = 1;         ///< x uniform in [lo, hi)
  double w_lo = 0.5, w_hi = 1.5;  ///< the column vector's values (column_vector)
  bool minus_inf = false;         ///< edge rows of -inf have a defined answer
  /// Outputs are sums of inputs: an fp16 edge row of equal values is halved
  /// until its sum fits fp16.
  bool sums_inputs = false;
  /// The element bound has a magnitude term: the reference writes one
  /// magnitude per output (verify::ElementBound::mag_scale).
  bool magnitude = false;
};

class RowwiseSpec {
 public:
  virtual ~RowwiseSpec() = default;

  // ---- identity
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  /// The family's kernel template, relative to kernels_templated/
  /// ("softmax/softmax.cuh"); it includes rowwise/common.cuh.
  virtual std::string kernel_file() const = 0;
  /// Problem keys beyond rows, cols and dtype. Choice parameters are part of
  /// the shape class, in this order; the runtime's generic row-wise call
  /// passes every parameter by position (a choice by its index). At most one
  /// real parameter: the kernel reads it as RowwiseArgs::eps.
  virtual const std::vector<ProblemParam>& params() const;

  // ---- what the kernel does
  virtual RowOutput output() const = 0;
  /// The name of a vector of cols elements of the input dtype the kernel
  /// reads (RowwiseArgs::w; rmsnorm's "weight"): a call must pass it. Empty:
  /// the kernel reads none.
  virtual std::string_view column_vector() const { return {}; }
  /// Arithmetic per input element (the roofline's flops).
  virtual double flops_per_element() const = 0;
  /// fp32 partials a row segment leaves in the workspace (softmax: max and sum).
  virtual int partials_per_segment() const { return 1; }
  /// Bytes of one reduction slot in static shared memory (softmax: a float
  /// and a (max, sum) pair, 12).
  virtual int reduction_slot_bytes() const { return 4; }
  /// Passes over a row that is not held on chip (softmax stats=two_pass: 2).
  virtual int row_passes(const Config& c) const {
    (void)c;
    return 1;
  }

  // ---- knobs of this family only
  /// Adds the family's knobs and their constraints after the shared ones.
  virtual void add_knobs(Space& s) const { (void)s; }
  /// Knobs that add dynamic shared-memory segments to a block (whole_rows),
  /// read by the shared-memory budget constraint ...
  virtual std::vector<std::string> smem_segment_knobs() const { return {}; }
  /// ... and how many segments they add beyond the block's rows (rmsnorm
  /// weights=smem: 1).
  virtual int extra_smem_segments(const Assignment& a) const {
    (void)a;
    return 0;
  }
  /// Variants of an on-chip row configuration worth seeding (rmsnorm: the
  /// same with its weights in shared memory too). Default: c alone.
  virtual std::vector<Config> on_chip_variants(const Config& c) const { return {c}; }

  // ---- kernel names (rowwise/launch_plan.cpp)
  /// The row kernel's name expression. Throws std::invalid_argument for a
  /// configuration the kernel refuses (a family knob out of its conditions).
  virtual std::string row_kernel(const RowKernel& k) const = 0;
  /// row_values: the kernel that combines a split row's partials
  /// (RowwiseArgs::ws, `split` per row) into y; launched on 256-thread blocks.
  virtual std::string finish_kernel(const std::string& type, const Problem& p) const;
  /// A problem reduced over the rows instead (reduce axis=rows): one value per
  /// column, the column reduction's space and plan, column_kernel's name.
  virtual bool reduces_columns(const Problem& p) const {
    (void)p;
    return false;
  }
  virtual std::string column_kernel(const ColumnKernel& k) const;

  // ---- verification (the GPU harness)
  /// The error allowed of one output element against the fp64 reference;
  /// n is the reduction length (cols, or rows for a column reduction).
  virtual verify::ElementBound element_bound(verify::Precision output, long long n,
                                             const Problem& p) const = 0;
  /// The fp32 rel-L2 bound before widening for long accumulation chains.
  virtual double fp32_rel_l2(const Problem& p) const {
    (void)p;
    return 1e-5;
  }
  /// Whether a thread accumulates a chain of terms (its rounding grows with
  /// the chain; a max does not).
  virtual bool accumulates(const Problem& p) const {
    (void)p;
    return true;
  }
  virtual InputValues input_values(const Problem& p) const {
    (void)p;
    return {};
  }
  /// A small code the family's fp64 reference reads for its choice
  /// parameters (reduce: 1 for max).
  virtual int reference_variant(const Problem& p) const {
    (void)p;
    return 0;
  }
};

}  // namespace ktune::rowwise
