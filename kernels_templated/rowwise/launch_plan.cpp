// Launch plans of the row-wise families: the one place that turns a
// configuration into kernel names and grid geometry.
#include "kernels_templated/rowwise/launch_plan.hpp"

#include <algorithm>
#include <stdexcept>

namespace ktune::rowwise {

namespace {

const Dtype& find_dtype(const std::string& dtype) {
  for (const Dtype& t : kDtypes)
    if (dtype == t.name) return t;
  throw std::invalid_argument("unknown dtype '" + dtype + "' (expected fp32|bf16|fp16)");
}

}  // namespace

int dtype_bytes(const std::string& dtype) { return find_dtype(dtype).bytes; }

std::string dtype_cuda_type(const std::string& dtype) { return find_dtype(dtype).cuda_type; }

long long output_elements(const RowwiseSpec& spec, const Problem& p) {
  const long long rows = p.integer("rows"), cols = p.integer("cols");
  if (spec.output() == RowOutput::whole_rows) return rows * cols;
  return spec.reduces_columns(p) ? cols : rows;
}

float kernel_scalar(const RowwiseSpec& spec, const Problem& p) {
  for (const ProblemParam& param : spec.params())
    if (param.choices.empty()) return static_cast<float>(p.real(param.key));
  return 0.f;
}

const std::vector<ProblemParam>& RowwiseSpec::params() const {
  static const std::vector<ProblemParam> none;
  return none;
}

std::string RowwiseSpec::finish_kernel(const std::string&, const Problem&) const {
  throw std::logic_error(std::string(name()) + ": a row_values family must name its finish kernel");
}

std::string RowwiseSpec::column_kernel(const ColumnKernel&) const {
  throw std::logic_error(std::string(name()) + ": reduces_columns without a column kernel");
}

int reduction_code(const std::string& reduction) {
  if (reduction == "shuffle") return 0;
  if (reduction == "smem") return 1;
  throw std::invalid_argument("knob reduction: unknown value '" + reduction + "' (shuffle|smem)");
}

int cache_code(const std::string& cache) {
  if (cache == "default") return 0;
  if (cache == "nc") return 1;
  if (cache == "nc_noalloc") return 2;
  if (cache == "evict_first") return 3;
  if (cache == "nc_l2_256b") return 4;
  throw std::invalid_argument("knob cache: unknown value '" + cache +
                              "' (default|nc|nc_noalloc|evict_first|nc_l2_256b)");
}

bool in_kernel_split_allowed(long long split, long long rows_per_block, long long cluster, bool persistent) {
  return split >= 2 && split <= kMaxLinkedSplit && rows_per_block == 1 && cluster == 1 && persistent;
}

long long segment_length(long long cols, long long split, long long vec) {
  long long seg = (cols + split - 1) / split;
  return (seg + vec - 1) / vec * vec;
}

long long register_chunks(long long seg_len, long long threads_per_row, long long vec) {
  const long long span = threads_per_row * vec;
  return (seg_len + span - 1) / span;
}

namespace {

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

std::string joined(std::initializer_list<long long> values) {
  std::string s;
  for (long long v : values) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return s;
}

// A Config read through the Assignment interface the space's constraints use,
// so that a family answers both with one function.
class ConfigAssignment final : public Assignment {
 public:
  explicit ConfigAssignment(const Config& c) : c_(c) {}
  const Value& get(std::string_view name) const override { return c_.at(std::string(name)); }

 private:
  const Config& c_;
};

LaunchPlan column_plan(const RowwiseSpec& spec, const Problem& p, const Config& c,
                       const PlanDevice&) {
  const std::string type = dtype_cuda_type(p.text("dtype"));
  const long long rows = p.integer("rows"), cols = p.integer("cols");
  const long long tx = c.integer("block_cols"), ty = c.integer("rows_per_block");
  const long long vec = c.integer("vec"), unroll = c.integer("unroll"), split = c.integer("split");
  LaunchPlan plan;
  plan.split = static_cast<int>(split);
  plan.threads = static_cast<int>(tx * ty);
  plan.smem_bytes = ty > 1 ? static_cast<int>(ty * tx * vec * 4) : 0;
  KernelLaunch main;
  main.name_expression =
      spec.column_kernel({type, p, tx, ty, vec, cache_code(c.text("cache")), unroll});
  main.grid_x = ceil_div(cols, tx * vec);
  main.grid_y = split;
  main.block = plan.threads;
  plan.main_blocks = main.grid_x * main.grid_y;
  plan.kernels.push_back(main);
  if (split > 1) {
    // The last row slice of each column group combines the partials (no second kernel).
    plan.workspace_floats = split * cols;
    plan.counters = main.grid_x;
  }
  (void)rows;
  return plan;
}

// Blocks of `threads` threads and `smem` bytes of shared memory one SM holds
// at once; a shared-memory row also by registers at kSharedRowRegisterFloor
// (its kernel's __launch_bounds__ minimum, so ptxas keeps to that budget).
long long resident_blocks(const PlanDevice& d, long long threads, long long smem, bool shared_row) {
  const long long by_smem = d.smem_per_sm / (smem + kReservedSmemPerBlock);
  const long long by_threads = d.max_threads_per_sm / threads;
  const long long by_registers =
      shared_row ? kRegistersPerSm / (threads * kSharedRowRegisterFloor) : d.max_blocks_per_sm;
  return std::max<long long>(1, std::min<long long>({d.max_blocks_per_sm, by_threads, by_smem, by_registers}));
}

}  // namespace

int rowwise_static_smem(const RowwiseSpec& spec, long long threads_per_row,
                        long long rows_per_block, const std::string& reduction) {
  const long long slots = reduction == "smem" ? rows_per_block * threads_per_row
                                              : rows_per_block * std::max<long long>(1, threads_per_row / 32);
  // Whole-row kernels add the cluster slot.
  return static_cast<int>(slots * spec.reduction_slot_bytes()) +
         (spec.output() == RowOutput::whole_rows ? 16 : 0);
}

LaunchPlan plan_launch(const RowwiseSpec& spec, const Problem& p, const Config& c,
                       const PlanDevice& d) {
  if (spec.reduces_columns(p)) return column_plan(spec, p, c, d);
  // Rows held on chip (row_cache, cluster, split_combine) are knobs of whole-row families only.
  const bool whole_rows = spec.output() == RowOutput::whole_rows;
  const std::string type = dtype_cuda_type(p.text("dtype"));
  const long long rows = p.integer("rows"), cols = p.integer("cols");
  const long long rpb = c.integer("rows_per_block"), tpr = c.integer("threads_per_row");
  const long long vec = c.integer("vec"), unroll = c.integer("unroll");
  const long long cluster = whole_rows ? c.integer_or("cluster", 1) : 1;
  // A cluster's blocks are the segments of one row: the same geometry as split.
  const long long split = c.integer("split") * cluster;
  // The kernels find a segment's row and piece with a shift and a mask
  // (segment_of in rows.cuh); the space only offers powers of two.
  if (split < 1 || (split & (split - 1)) != 0)
    throw std::invalid_argument("split x cluster must be a power of two, got " + std::to_string(split));
  // grid=stride and grid=persistent both loop over rows; persistent grids
  // are sized by the launcher to what the device holds at once.
  const bool persistent = c.text("grid") == "persistent";
  const bool stride = persistent || c.text("grid") == "stride";
  const std::string hold = whole_rows ? c.text("row_cache") : "none";
  // split_combine=in_kernel: one cooperative kernel whose blocks exchange a
  // row's partials through global memory, in place of a stats kernel and an
  // apply kernel.
  const std::string combine =
      whole_rows ? c.text_or("split_combine", "second_kernel") : "second_kernel";
  if (combine != "second_kernel" && combine != "in_kernel")
    throw std::invalid_argument("knob split_combine: unknown value '" + combine + "' (second_kernel|in_kernel)");
  const bool linked = combine == "in_kernel";
  if (linked && !in_kernel_split_allowed(split, rpb, cluster, persistent))
    throw std::invalid_argument(
        "split_combine=in_kernel needs split 2..32, rows_per_block=1, cluster=1 and grid=persistent");

  LaunchPlan plan;
  plan.split = static_cast<int>(split);
  plan.seg_len = segment_length(cols, split, vec);
  plan.chunks = hold == "registers" ? static_cast<int>(register_chunks(plan.seg_len, tpr, vec))
                                    : (hold == "smem" ? kSharedHeldChunks : 0);
  plan.threads = static_cast<int>(rpb * tpr);
  plan.cluster = static_cast<int>(cluster);
  plan.smem_bytes = rowwise_static_smem(spec, tpr, rpb, c.text("reduction"));
  // Segments a family knob adds after the block's rows (rmsnorm weights=smem:
  // the block's weight segment); the family's row_kernel checks the knob.
  const int extra_segments = hold == "smem" ? spec.extra_smem_segments(ConfigAssignment(c)) : 0;
  plan.dynamic_smem =
      hold == "smem"
          ? static_cast<int>((rpb + extra_segments) * plan.seg_len * dtype_bytes(p.text("dtype")))
          : 0;
  const long long vrows = rows * split;
  const long long needed = ceil_div(vrows, rpb);
  plan.resident_per_sm = resident_blocks(d, plan.threads, plan.smem_bytes + plan.dynamic_smem, hold == "smem");
  long long blocks = needed;
  // Blocks that walk the same rows together: a cluster, or a linked row's segments.
  const long long group = linked ? split : cluster;
  if (stride) {
    // A persistent grid of whole groups.
    const long long resident = plan.resident_per_sm * d.sm_count / group * group;
    blocks = std::min(needed, std::max(group, resident));
  }
  plan.main_blocks = blocks;

  const std::string cfg = "ktune_rw::RowCfg<" + type + ", " +
                          joined({rpb, tpr, vec, reduction_code(c.text("reduction")),
                                  cache_code(c.text("cache")), persistent ? 2 : (stride ? 1 : 0),
                                  hold == "none" ? unroll : 1,
                                  plan.chunks}) +
                          // RowCfg's MINB (shared-memory rows): the blocks per SM of the reference
                          // device, so the source does not depend on the device's figures; the
                          // register floor keeps it spill-free on any device.
                          (hold == "smem"
                               ? ", " + std::to_string(resident_blocks(PlanDevice{}, plan.threads,
                                                                       plan.smem_bytes + plan.dynamic_smem, true))
                               : std::string()) +
                          ">";
  // Phases (elements.cuh): fused 0, stats 1, apply 2, cluster 3, linked 4.
  const int first_phase = cluster > 1 ? 3 : (linked ? 4 : (split > 1 ? 1 : 0));
  auto row_kernel = [&](int phase) {
    return spec.row_kernel({cfg, phase, p, c, hold == "smem", rpb, c.integer("split"), linked});
  };
  plan.kernels.push_back({row_kernel(first_phase), blocks, 1, plan.threads, static_cast<int>(cluster),
                          plan.dynamic_smem, persistent, static_cast<int>(group), linked});
  if (linked) {
    plan.workspace_floats = spec.partials_per_segment() * rows * split;
    plan.counters = rows;
  } else if (split > 1 && cluster == 1) {
    plan.workspace_floats = spec.partials_per_segment() * rows * split;
    if (whole_rows)
      plan.kernels.push_back({row_kernel(2), blocks, 1, plan.threads, 1, plan.dynamic_smem, persistent});
    else
      plan.kernels.push_back({spec.finish_kernel(type, p), ceil_div(rows, 256), 1, 256});
  }
  return plan;
}

}  // namespace ktune::rowwise
