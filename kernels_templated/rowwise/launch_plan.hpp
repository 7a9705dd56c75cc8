// Launch plan of a row-wise family's configuration: kernel name
// expressions, grids, blocks and workspace. Pure C++; the descriptors
// (source, estimate) and the GPU harnesses (launch) both read it, so the
// geometry is computed in exactly one place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels_templated/rowwise/rowwise_spec.hpp"
#include "space/value_map.hpp"

namespace ktune::rowwise {

/// One kernel launch of a configuration, in launch order.
struct KernelLaunch {
  std::string name_expression;  ///< e.g. "ktune_rw::softmax_kernel<ktune_rw::RowCfg<float, ...>, 1, 0>"
  long long grid_x = 1;
  long long grid_y = 1;
  int block = 32;
  int cluster = 1;       ///< blocks per thread-block cluster along x (1: no cluster; > 8 is non-portable)
  int dynamic_smem = 0;  ///< bytes of dynamic shared memory (segments held in shared memory)
  /// A persistent grid-stride kernel (grid=persistent): correct for any grid
  /// of whole clusters. grid_x is the estimate from threads and shared
  /// memory; the launcher shrinks it to what the device holds at once
  /// (registers, cluster placement). grid=stride launches grid_x as planned.
  bool persistent = false;
  /// Blocks that walk the same rows and must be resident together (a
  /// cluster, or the segments of a row that exchange partials in the kernel);
  /// a persistent grid is a whole number of groups.
  int group = 1;
  /// Launched cooperatively (split_combine=in_kernel): the driver refuses the
  /// launch unless every block is resident at once, since a block waits for
  /// its row's other segments.
  bool cooperative = false;
};

struct LaunchPlan {
  std::vector<KernelLaunch> kernels;
  int split = 1;                 ///< RowwiseArgs::split
  long long seg_len = 0;         ///< RowwiseArgs::seg_len (axis=last); 0 for axis=rows
  long long workspace_floats = 0;///< fp32 partials the kernels exchange (0 without split)
  long long counters = 0;        ///< zeroed unsigned counters the kernel needs (RowwiseArgs::counters; it leaves them zero):
                                 ///< one per column group (reduce axis=rows) or per row (split_combine=in_kernel)
  int chunks = 0;                ///< accesses per thread held in registers (0: streaming; -1: held in shared memory)
  int threads = 0;               ///< threads per block of the main kernel
  long long main_blocks = 0;     ///< blocks of the main kernel
  int smem_bytes = 0;            ///< static shared memory of the main kernel (estimate)
  int dynamic_smem = 0;          ///< dynamic shared memory of the main kernel (row segments held there)
  int cluster = 1;               ///< blocks per cluster of the main kernel
  long long resident_per_sm = 1; ///< blocks of the main kernel one SM holds at once (threads, blocks, shared memory;
                                 ///< rows in shared memory: registers at kSharedRowRegisterFloor too)
};

/// RowCfg's CHUNKS value for a segment held in shared memory (rowwise/common.cuh kSharedHeld).
constexpr int kSharedHeldChunks = -1;

/// Device facts the geometry depends on.
struct PlanDevice {
  int sm_count = 132;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int smem_per_sm = 233472;           ///< bytes (H100/H200: 228 KiB)
  int smem_per_block_optin = 232448;  ///< bytes (227 KiB)
};

/// Shared memory the driver reserves per block on sm_90 (counted against the SM's).
constexpr int kReservedSmemPerBlock = 1024;
/// 32-bit registers of one SM (sm_90).
constexpr int kRegistersPerSm = 65536;
/// Registers per thread counted for a shared-memory-row kernel: the plan
/// counts no more resident blocks than this allows and passes that count to
/// __launch_bounds__, so ptxas keeps to it. These kernels need 40 without
/// spilling (ptxas for sm_90a spilled 4..52 bytes when capped at 32), and
/// ptxas keeps some back: 25 blocks of 64 threads (40.96 per thread) got 32
/// and spilled, 24 blocks got 40. Counting 42 leaves >= 40.
constexpr int kSharedRowRegisterFloor = 42;

/// Static shared memory of a row-wise kernel (reduction slots; the cluster slot).
int rowwise_static_smem(const RowwiseSpec& spec, long long threads_per_row,
                        long long rows_per_block, const std::string& reduction);

/// The element types of the row-wise families: name, bytes, the CUDA type NVRTC sees.
struct Dtype {
  const char* name;
  int bytes;
  const char* cuda_type;
};
inline constexpr Dtype kDtypes[] = {
    {"fp32", 4, "float"}, {"bf16", 2, "__nv_bfloat16"}, {"fp16", 2, "__half"}};

/// Bytes of one element of `dtype` (fp32 | bf16 | fp16); throws std::invalid_argument otherwise.
int dtype_bytes(const std::string& dtype);
/// The CUDA type name NVRTC sees for `dtype`.
std::string dtype_cuda_type(const std::string& dtype);

/// Elements the family writes for a normalized problem: rows x cols, one per
/// row, or one per column (a column reduction).
long long output_elements(const RowwiseSpec& spec, const Problem& p);
/// The value the kernel reads as RowwiseArgs::eps: the family's real problem
/// parameter, else 0.
float kernel_scalar(const RowwiseSpec& spec, const Problem& p);

/// Accesses per thread for a register-held segment of seg_len elements.
long long register_chunks(long long seg_len, long long threads_per_row, long long vec);
/// Segment length for `split` segments per row: ceil(cols / split) rounded up to `vec`.
long long segment_length(long long cols, long long split, long long vec);

/// Most segments a row may have with split_combine=in_kernel: one warp's
/// lanes read the row's partials (linked_reduce in common.cuh).
constexpr int kMaxLinkedSplit = 32;

/// Whether a row may combine its partials in the kernel
/// (split_combine=in_kernel): 2..kMaxLinkedSplit segments, one per block, no
/// cluster, on a persistent grid (sized to what is resident at once). The
/// space's constraint and plan_launch both ask this.
bool in_kernel_split_allowed(long long split, long long rows_per_block, long long cluster, bool persistent);

/// The plan for a normalized problem and a valid configuration. Throws
/// std::invalid_argument naming a missing or malformed knob, a split x
/// cluster that is not a power of two (the kernels shift and mask by it), or
/// split_combine=in_kernel outside its conditions (split 2..32, one segment
/// per block, no cluster, grid=persistent).
LaunchPlan plan_launch(const RowwiseSpec& spec, const Problem& p, const Config& c,
                       const PlanDevice& d);

/// Knob values as the templates number them (rowwise/common.cuh).
int reduction_code(const std::string& reduction);  ///< shuffle 0, smem 1
int cache_code(const std::string& cache);          ///< default 0, nc 1, nc_noalloc 2, evict_first 3, nc_l2_256b 4

}  // namespace ktune::rowwise
