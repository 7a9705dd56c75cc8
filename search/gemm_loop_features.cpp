// Main-loop description of a built-in gemm configuration from its knobs.
#include "search/gemm_loop_features.hpp"

#include <algorithm>

namespace ktune {
namespace {

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

}  // namespace

bool add_gemm_loop_features(WorkEstimate& w, const Problem& problem, const Config& c) {
  if (w.loop_iterations > 0) return false;
  // The Hopper path (PATH=wgmma: TMA copies, warpgroup tiles, persistent
  // grids) has a different main loop; it is not described here.
  if (c.contains("PATH") && c.text_or("PATH", "") != "mma") return false;
  for (const char* knob : {"BLOCK_M", "BLOCK_N", "BLOCK_K", "WARP_M", "WARP_N", "VEC", "SPLIT_K"})
    if (!c.contains(knob)) return false;
  for (const char* key : {"m", "n", "k"})
    if (!problem.contains(key)) return false;
  try {
    const long long m = problem.integer("m"), n = problem.integer("n"), k = problem.integer("k");
    const std::string dtype = problem.text_or("dtype", "bf16");
    const bool simt = dtype == "fp32";
    const double elem = dtype == "bf16" || dtype == "fp16" ? 2 : 4;
    const long long bm = c.integer("BLOCK_M"), bn = c.integer("BLOCK_N"), bk = c.integer("BLOCK_K");
    const long long wm = c.integer("WARP_M"), wn = c.integer("WARP_N");
    const long long vec = std::max<long long>(1, c.integer("VEC"));
    const long long split = std::max<long long>(1, c.integer("SPLIT_K"));
    if (bm <= 0 || bn <= 0 || bk <= 0 || wm <= 0 || wn <= 0 || m <= 0 || n <= 0 || k <= 0) return false;
    const long long warps = std::max<long long>(1, (bm / wm) * (bn / wn));
    const long long threads = 32 * warps;
    const long long tiles = ceil_div(m, bm) * ceil_div(n, bn);
    const long long k_tiles = ceil_div(k, bk);
    const long long iterations = ceil_div(k_tiles, split);

    w.loop_blocks = tiles * split;
    w.loop_iterations = static_cast<int>(iterations);
    // The tensor-core path keeps STAGES tiles in flight (cp.async); the SIMT
    // path double-buffers.
    w.pipeline_stages = simt ? 2 : static_cast<int>(c.integer_or("STAGES", 2));
    // Each thread copies ceil(tile elements / VEC / threads) vectors per
    // stage; a warp-level copy instruction serves 32 of them.
    w.loads_per_iteration = static_cast<double>(ceil_div((bm + bn) * bk / vec, threads) * warps);
    w.predicated_loads = c.contains("PREDICATED") ? c.boolean("PREDICATED") : true;
    // Shared-memory traffic per executed FLOP: the block's A and B tiles are
    // stored once per K element ((BM + BN) elements for 2 BM BN FLOPs), and
    // each warp reads its operands once per K element: (WM + WN) elements
    // for 2 WM WN FLOPs with ldmatrix fragments; on the SIMT path each lane
    // reads its own tm + tn values for 2 tm tn FLOPs.
    const double executed =
        2.0 * static_cast<double>(ceil_div(m, bm) * bm) * static_cast<double>(ceil_div(n, bn) * bn) *
        static_cast<double>(iterations * bk * split);
    double read_per_flop;
    if (simt) {
      const double tm = static_cast<double>(wm) / (wm > wn ? 8 : 4);
      const double tn = static_cast<double>(wn) / (wm > wn ? 4 : 8);
      read_per_flop = elem * (tm + tn) / (2 * tm * tn);
    } else {
      read_per_flop = elem * static_cast<double>(wm + wn) / (2.0 * static_cast<double>(wm * wn));
    }
    const double store_per_flop = elem * static_cast<double>(bm + bn) / (2.0 * static_cast<double>(bm * bn));
    w.shared_bytes = executed * (read_per_flop + store_per_flop);
    return true;
  } catch (const std::exception&) {
    return false;  // a knob of another type: not a gemm configuration
  }
}

}  // namespace ktune
