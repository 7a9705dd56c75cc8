// RowwiseFamily: the KernelFamily descriptor of every row-wise family
// (problem keys, space, work, source), built on the family's RowwiseSpec; the
// registry makes one per KTUNE_ROWWISE_FAMILY line of families.def.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kernels_templated/family.hpp"
#include "kernels_templated/rowwise/launch_plan.hpp"
#include "kernels_templated/rowwise/rowwise_spec.hpp"
#include "kernels_templated/rowwise/shape_group.hpp"

namespace ktune::rowwise {

/// Problem keys: rows, cols >= 1; dtype = fp32 | bf16 | fp16; and the
/// family's own (RowwiseSpec::params: reduce's op and axis, rmsnorm's eps).
///
/// Knobs of the row-wise kernels (axis=last, softmax, rmsnorm):
///   rows_per_block, threads_per_row (powers of two; a block is 32..1024 threads),
///   vec (elements per access, <= 16 bytes, divides cols), reduction
///   (shuffle | smem), cache (default | nc | nc_noalloc | evict_first),
///   grid (rows: one pass | stride: persistent grid-stride), unroll (accesses
///   in flight), split (segments per row, combined by a second kernel);
///   whole-row families add row_cache, cluster and split_combine; a family
///   adds its own knobs (RowwiseSpec::add_knobs).
/// Knobs of the column reduction (reduce, axis=rows): block_cols,
///   rows_per_block, vec, cache, unroll (rows in flight), split (row slices).
class RowwiseFamily final : public KernelFamily {
 public:
  /// `spec` outlives the family (the specs are static objects).
  explicit RowwiseFamily(const RowwiseSpec& spec);

  std::string_view name() const override;
  std::string_view description() const override;
  std::vector<std::string> template_files() const override;
  Problem normalize(const Problem& p) const override;
  std::string_view problem_help() const override;
  std::vector<std::string> shape_keys() const override;
  std::string shape_class(const Problem& p) const override;
  /// rowwise::group_key: dtype, reduce axis, row alignment, length class.
  std::string shape_group(const Problem& p) const override;
  Space space(const Problem& p, const DeviceSpec& d) const override;
  Config default_config(const Problem& p, const DeviceSpec& d) const override;
  double flops(const Problem& p) const override;
  double min_bytes(const Problem& p) const override;
  WorkEstimate estimate(const Problem& p, const Config& c, const DeviceSpec& d) const override;
  KernelSource source(const Problem& p, const Config& c) const override;

  const RowwiseSpec& spec() const { return spec_; }

  /// softmax / rmsnorm: configurations that keep a whole row on chip across
  /// blocks (one segment per block in shared memory, read once and written
  /// once), for rows too long for one block's shared memory: a thread-block
  /// cluster (every valid size, 256..1024 threads per row, grid rows |
  /// persistent) or a split row combined in the kernel (split 2..32,
  /// 128..1024 threads, a persistent cooperative grid); one widest access,
  /// cache default | evict_first. A sampled search rarely lands on them
  /// (they are a sliver of the space), so tuners seed them. Empty for
  /// row_values families and for rows that fit a block.
  std::vector<Config> on_chip_row_configs(const Problem& p, const DeviceSpec& d) const;

 private:
  const RowwiseSpec& spec_;
  std::string help_;  ///< problem_help, written from the spec's parameters
};

/// The row-wise family named `name`; throws std::invalid_argument when no
/// such family is registered or it is not row-wise.
const RowwiseFamily& find_rowwise_family(std::string_view name);

/// Device facts of a DeviceSpec as the launch plans need them.
PlanDevice plan_device(const DeviceSpec& d);

}  // namespace ktune::rowwise
