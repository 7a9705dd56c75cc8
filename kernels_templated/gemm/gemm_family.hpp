// GemmFamily: the descriptor of the `gemm` kernel family (fp32 SIMT, the
// Ampere-style mma.sync tensor-core path and the Hopper wgmma + TMA path):
// problem keys, space, work, source.
#pragma once

#include <string>
#include <vector>

#include "kernels_templated/family.hpp"
#include "kernels_templated/gemm/gemm_wgmma_types.hpp"

namespace ktune {

/// An operand as it is stored: `rows` rows of `cols` elements, `ld` apart.
struct GemmOperand {
  long long rows = 0, cols = 0, ld = 0;
};

/// A normalized gemm problem in typed form. Layout letters say how A and B are
/// stored (row-major always): A 'n' is M x K (ld >= K), A 't' is K x M (ld >= M);
/// B 'n' is K x N (ld >= N), B 't' is N x K (ld >= K). C is M x N row-major.
struct GemmProblem {
  long long m = 0, n = 0, k = 0;
  long long lda = 0, ldb = 0, ldc = 0;
  std::string dtype;     ///< fp32 | tf32 | bf16 | fp16 | e4m3 | e5m2 (A and B)
  std::string layout;    ///< nn | nt | tn | tt
  std::string out;       ///< same | fp32 (C's type); fp8 inputs: bf16 | fp16
  std::string epilogue;  ///< none | bias | bias_relu | bias_gelu
  double alpha = 1, beta = 0;
  std::string path = "auto";  ///< auto | mma | wgmma: which tensor-core path the space offers
  /// fp8 only: per-tensor scales as cuBLASLt's A/B/D scale pointers take them,
  /// C = scale_d (alpha scale_a scale_b A B + beta C) (scale_d = 1 with a bias epilogue).
  double scale_a = 1, scale_b = 1, scale_d = 1;

  bool a_t() const { return layout[0] == 't'; }
  bool b_t() const { return layout[1] == 't'; }
  bool simt() const { return dtype == "fp32"; }
  bool fp8() const { return dtype == "e4m3" || dtype == "e5m2"; }
  int in_bytes() const { return fp8() ? 1 : dtype == "bf16" || dtype == "fp16" ? 2 : 4; }
  bool out_fp32() const { return out == "fp32" || in_bytes() == 4; }
  int out_bytes() const { return out_fp32() ? 4 : 2; }
  /// C's element type by name: fp32, or the 16-bit input type, or fp8's bf16/fp16 output.
  std::string out_dtype() const { return out_fp32() ? "fp32" : fp8() ? out : dtype; }
  /// The alpha and beta the kernels apply: the fp8 scales folded in (1 for other dtypes).
  double kernel_alpha() const { return alpha * scale_a * scale_b * scale_d; }
  double kernel_beta() const { return beta * scale_d; }
  GemmOperand a_stored() const { return a_t() ? GemmOperand{k, m, lda} : GemmOperand{m, k, lda}; }
  GemmOperand b_stored() const { return b_t() ? GemmOperand{n, k, ldb} : GemmOperand{k, n, ldb}; }
  /// True when rows `ld` elements apart are not all 16-byte aligned (no 16-byte loads, no TMA).
  bool misaligned(long long ld) const { return (ld * in_bytes()) % 16 != 0; }
  bool operands_misaligned() const { return misaligned(lda) || misaligned(ldb); }
  /// Reads a normalized Problem (throws ProblemError on a missing key).
  static GemmProblem from(const Problem& p);
};

/// A configuration's knobs in typed form (SIMT configurations have no STAGES
/// knob: their pipeline is the fixed register double buffer, stages = 2).
/// Configurations without a PATH knob are mma.sync/SIMT ones. A wgmma
/// configuration names only its own knobs; the others take the values its
/// kernel implies (BLOCK_K 64, WARP_N = BLOCK_N, 16-byte TMA copies, swizzle,
/// bounds handled by TMA), so the shared code (estimate, geometry) reads one struct.
struct GemmKnobs {
  bool wgmma = false;             ///< PATH=wgmma (Hopper path)
  bool persistent = false;        ///< wgmma: grid of at most one block per SM, looping over tiles
  bool pingpong = false;          ///< wgmma: two consumers on alternate whole tiles (WARP_M = BLOCK_M)
  int cluster_m = 1;              ///< wgmma: blocks per cluster along M, sharing (multicasting) B tiles
  int cluster_n = 1;              ///< wgmma: blocks per cluster along N, sharing (multicasting) A tiles
  bool stage_c = false;           ///< wgmma, mma.sync: C leaves through shared memory as 16-byte row segments
  int block_m = 0, block_n = 0, block_k = 0;
  int warp_m = 0, warp_n = 0;
  int stages = 2;
  int vec = 1;                    ///< elements per global load
  std::string smem;               ///< tc: pad | xor; simt: none | pad
  int group_m = 1;
  int split_k = 1;
  std::string reduce;             ///< workspace | atomic
  bool predicated = true;
  bool repack = false;            ///< REPACK: misaligned operands copied to an aligned workspace first
  int min_blocks = 1;             ///< mma/SIMT: blocks per SM ptxas must leave registers for (launch bounds)

  /// wgmma: blocks per thread-block cluster (1 for the other paths).
  int cluster() const { return wgmma ? cluster_m * cluster_n : 1; }
  /// wgmma consumer warpgroups: two in pingpong, else one per WARP_M rows of the tile.
  int consumers() const { return pingpong ? 2 : block_m / warp_m; }
  /// mma/SIMT: 32 per warp tile; wgmma: 128 per consumer warpgroup plus the producer's 128.
  int threads() const {
    return wgmma ? 128 * (consumers() + 1) : (block_m / warp_m) * (block_n / warp_n) * 32;
  }
  static GemmKnobs from(const Config& c);
};

/// Launch geometry of one configuration (the harness launches with it; the
/// estimate counts with it: one formula for both).
struct GemmGeometry {
  long long tiles_m = 0, tiles_n = 0;
  long long grid_x = 0;     ///< blocks along x: tiles, or fewer for a persistent wgmma grid
  int split_k = 1;
  int k_per_split = 0;      ///< multiple of BLOCK_K
  int threads = 0;
  int smem_bytes = 0;       ///< dynamic shared memory of the main kernel
  bool has_reduce = false;  ///< workspace split-K: a reduction kernel follows
  bool has_prescale = false;  ///< atomic split-K: a prescale kernel precedes
  long long aux_blocks = 0;   ///< blocks of the reduce/prescale kernel (256 threads)
  long long workspace_floats = 0;
  // REPACK: a misaligned operand is first copied (gemm_repack.cuh) into the
  // pack workspace with the leading dimension below, which the main kernel reads.
  bool repack_a = false, repack_b = false;
  // wgmma with tf32 reads both operands K-major only: an M-major A (layout t.)
  // or N-major B (layout .n) is first transposed (repack_transpose in
  // gemm_repack.cuh) into the pack workspace, K-major with rows of kernel_ld
  // elements; the main kernel then reads it as in layout nt.
  bool transpose_a = false, transpose_b = false;
  long long kernel_lda = 0, kernel_ldb = 0;          ///< leading dimensions the main kernel reads
  long long packed_a_elems = 0, packed_b_elems = 0;  ///< pack workspace per repacked operand
  long long repack_bytes = 0;                        ///< bytes the repack kernel reads and writes
};

class GemmFamily final : public KernelFamily {
 public:
  std::string_view name() const override { return "gemm"; }
  std::string_view description() const override;
  std::vector<std::string> template_files() const override;
  /// The chosen path's files: wgmma (uses_wgmma), SIMT (fp32) or mma.sync,
  /// each with gemm_common, gemm_splitk and gemm_repack.
  std::vector<std::string> template_files_for(const Problem& normalized, const DeviceSpec& d) const override;
  Problem normalize(const Problem& p) const override;
  std::string_view problem_help() const override;
  std::vector<std::string> shape_keys() const override { return {"m", "n", "k"}; }
  std::string shape_class(const Problem& p) const override;
  /// The shape class and the floor(log2) bucket of M, N and K.
  std::string shape_group(const Problem& p) const override;
  Space space(const Problem& p, const DeviceSpec& d) const override;
  Config default_config(const Problem& p, const DeviceSpec& d) const override;
  /// Below 16-byte alignment the class mixes problems whose A, B or C alone is
  /// misaligned, and the wgmma default repacks only misaligned operands: one
  /// probe per combination of misaligned leading dimensions.
  std::vector<Problem> class_probes(const Problem& p) const override;
  /// Divisibility of M, N and K by the tiles for the unpredicated path, every
  /// K split with a tile; "false" in a class below 16-byte alignment, where
  /// validity hangs on leading dimensions the shape keys do not carry.
  std::string dispatch_condition(const Problem& measured, const Config& c) const override;
  double flops(const Problem& p) const override;
  double min_bytes(const Problem& p) const override;
  WorkEstimate estimate(const Problem& p, const Config& c, const DeviceSpec& d) const override;
  KernelSource source(const Problem& p, const Config& c) const override;

  /// sm_count caps a persistent grid (0: not known, one block per tile); for
  /// clusters, pass the blocks that can be resident at once (clusters x size).
  static GemmGeometry geometry(const GemmProblem& p, const GemmKnobs& k, int sm_count = 0);
  /// Shared memory of the main kernel in bytes (stages x padded/swizzled tiles).
  static int smem_bytes(const GemmProblem& p, const GemmKnobs& k);
  /// The register estimate the space's constraint uses (per thread).
  static int register_estimate(const GemmProblem& p, const GemmKnobs& k);
  /// The register budget ptxas has per thread for this block size (launch bounds).
  static int register_cap(int threads, const DeviceSpec& d);
  /// False for atomic split-K: the summation order, hence the rounding, varies
  /// from run to run. Results of such configs are marked non-deterministic.
  static bool deterministic(const Config& c);
  /// True when the descriptor predicts no local-memory spill (the estimate
  /// leaves a margin under the cap); CI checks this against ptxas.
  static bool predicted_spill_free(const Problem& p, const Config& c, const DeviceSpec& d);
  /// Largest vector width (elements, <= 16 bytes) that the leading dimensions allow.
  static int max_vector(const GemmProblem& p);
  /// The leading dimension the main kernel reads for a stored operand: its own,
  /// or with REPACK and a misaligned one, the row length rounded up to 16 bytes.
  static long long kernel_ld(const GemmProblem& p, const GemmOperand& o, bool repack);
  /// Why the wgmma path cannot serve this problem on this device ("" when it can):
  /// it needs sm_90 and tensor-core inputs: 16-bit ones in any layout (an
  /// operand stored K-major or MN-major is read as it is), fp8 ones in layout
  /// nt (A and B K-major), tf32 in any layout (an M- or N-major operand is
  /// first transposed to K-major, GemmGeometry::transpose_a/b). Leading
  /// dimensions TMA cannot address (rows not multiples of 16 bytes) are served
  /// with REPACK=true (the space then holds only that value).
  static std::string wgmma_unavailable_reason(const GemmProblem& p, const DeviceSpec& d);
  /// True when the space of (p, d) is the wgmma path's: available and not
  /// declined with path=mma.
  static bool uses_wgmma(const GemmProblem& p, const DeviceSpec& d);

 private:
  /// Split-K rules shared by every path (each split gets a K tile; atomics only for fp32 C).
  static void add_split_constraints(Space& s, const GemmProblem& p);
  /// The main-loop fields of the estimate (iterations, stages, copies,
  /// shared-memory traffic) that the cost model's term model prices; the
  /// mma.sync and SIMT paths only (the wgmma loop is not described yet).
  static void describe_main_loop(WorkEstimate& w, const GemmProblem& p, const GemmKnobs& k, const GemmGeometry& g);
  static Space wgmma_space(const GemmProblem& p, const DeviceSpec& d);
  static Config wgmma_default_config(const GemmProblem& p);
};

const GemmFamily& gemm_family();
/// The same, as families.def registers it.
const KernelFamily& gemm_descriptor();

/// The wgmma traits row (gemm_wgmma_types.hpp) of a tensor-core dtype: bf16,
/// fp16, tf32, e4m3 or e5m2 (fp32 has none: it runs on CUDA cores).
ktune_gemm::WgmmaTypeTraits wgmma_operand_traits(const std::string& dtype);

}  // namespace ktune
