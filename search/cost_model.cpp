// RooflineModel: occupancy, wave quantization, roofline time and the
// least-squares calibration of its efficiency factors.
#include "search/cost_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <Eigen/Dense>

namespace ktune {
namespace {

/// Blocks of this shape that fit on one SM at once: the tightest of the
/// thread, block-slot, shared-memory and register limits. 0 = does not fit.
int resident_blocks(const WorkEstimate& w, const DeviceSpec& d) {
  if (w.threads_per_block <= 0) return 0;
  if (w.threads_per_block > d.max_threads_per_block) return 0;
  int by_threads = d.max_threads_per_sm / w.threads_per_block;
  int resident = std::min(d.max_blocks_per_sm, by_threads);
  if (w.smem_per_block > 0) {
    if (d.smem_per_block_optin > 0 && w.smem_per_block > d.smem_per_block_optin) return 0;
    if (d.smem_per_sm > 0) resident = std::min(resident, d.smem_per_sm / w.smem_per_block);
  }
  if (w.regs_per_thread > 0) {
    if (w.regs_per_thread > d.max_regs_per_thread) return 0;
    // Registers are allocated per warp in units of 256; round up like the hardware does.
    const int warps = (w.threads_per_block + 31) / 32;
    const int regs_per_warp = ((w.regs_per_thread * 32 + 255) / 256) * 256;
    const int per_block = warps * regs_per_warp;
    if (per_block > 0) resident = std::min(resident, d.regs_per_sm / per_block);
  }
  return std::max(resident, 0);
}

/// The three terms at efficiency 1 and zero overhead, i.e. the columns of the
/// calibration's linear model: time = compute/eff_c or memory/eff_m, plus
/// overhead x kernels.
struct RawTerms {
  double compute_s = 0;  ///< at the unit's peak, after wave quantization
  double memory_s = 0;   ///< at the DRAM ceiling
  double kernels = 1;
  double waves = 0;
  int resident = 0;
  bool fits = true;
};

RawTerms raw_terms(const WorkEstimate& w, const DeviceSpec& d) {
  RawTerms t;
  t.kernels = std::max(1, w.kernels);
  t.resident = resident_blocks(w, d);
  if (t.resident == 0) {
    t.fits = false;
    return t;
  }
  const double slots = static_cast<double>(std::max(1, d.sm_count)) * t.resident;
  const double blocks = static_cast<double>(std::max<long long>(1, w.blocks));
  t.waves = blocks / slots;
  // The last, partial wave takes as long as a full one: the compute term is
  // scaled by ceil(waves)/waves (a grid smaller than one wave leaves slots idle).
  const double quantization = std::ceil(t.waves) / t.waves;
  const double peak = d.peak_tflops(w.unit) * 1e12;
  const double flops = std::max(w.executed_flops, w.flops);
  t.compute_s = peak > 0 ? flops / peak * quantization : 0;
  const double bw = d.dram_gbps * 1e9;
  t.memory_s = bw > 0 ? (w.dram_bytes + w.extra_bytes) / bw : 0;
  return t;
}

}  // namespace

RooflineModel::RooflineModel(DeviceSpec device, Calibration calibration)
    : device_(std::move(device)), calibration_(calibration) {}

Prediction RooflineModel::predict(const WorkEstimate& work) const {
  const RawTerms t = raw_terms(work, device_);
  Prediction p;
  p.resident_blocks_per_sm = t.resident;
  p.waves = t.waves;
  if (!t.fits) {
    // A block that cannot be resident never runs: infinitely slow, never preferred.
    p.time_s = std::numeric_limits<double>::infinity();
    p.bound = Bound::latency;
    return p;
  }
  p.compute_s = t.compute_s / calibration_.compute_efficiency;
  p.memory_s = t.memory_s / calibration_.memory_efficiency;
  p.latency_s = calibration_.launch_overhead_s * t.kernels;
  const double roof = std::max(p.compute_s, p.memory_s);
  p.time_s = roof + p.latency_s;
  if (p.latency_s >= roof)
    p.bound = Bound::latency;
  else
    p.bound = p.compute_s >= p.memory_s ? Bound::compute : Bound::memory;
  return p;
}

void RooflineModel::calibrate(const std::vector<WorkEstimate>& work,
                              const std::vector<double>& measured_s) {
  const std::size_t n = std::min(work.size(), measured_s.size());
  std::vector<RawTerms> terms;
  std::vector<double> times;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(measured_s[i] > 0) || !std::isfinite(measured_s[i])) continue;
    RawTerms t = raw_terms(work[i], device_);
    if (!t.fits) continue;
    terms.push_back(t);
    times.push_back(measured_s[i]);
  }
  if (terms.size() < 3) return;  // too few points: keep the defaults

  // Unknowns x = (1/eff_compute, 1/eff_memory, overhead). Each point is
  // explained by its dominant term under the current factors, so the model is
  // linear in x; rows are weighted by 1/time (relative error, since times span
  // decades). Dominance can flip as the factors move, hence a few rounds.
  Calibration cal = calibration_;
  for (int round = 0; round < 6; ++round) {
    const std::size_t m = terms.size();
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(m), 3);
    Eigen::VectorXd b(static_cast<Eigen::Index>(m));
    std::array<bool, 3> used{false, false, true};
    for (std::size_t i = 0; i < m; ++i) {
      const auto r = static_cast<Eigen::Index>(i);
      const double w = 1.0 / times[i];
      const bool compute_dominant =
          terms[i].compute_s / cal.compute_efficiency >= terms[i].memory_s / cal.memory_efficiency;
      if (compute_dominant && terms[i].compute_s > 0) {
        A(r, 0) = terms[i].compute_s * w;
        used[0] = true;
      } else if (terms[i].memory_s > 0) {
        A(r, 1) = terms[i].memory_s * w;
        used[1] = true;
      }
      A(r, 2) = terms[i].kernels * w;
      b(r) = 1.0;  // times[i] * w
    }
    // Non-negative least squares over 3 unknowns: try every support set and
    // keep the best feasible solution (exact, and cheap at this size).
    Eigen::Vector3d current(1.0 / cal.compute_efficiency, 1.0 / cal.memory_efficiency,
                            cal.launch_overhead_s);
    double best_residual = std::numeric_limits<double>::infinity();
    Eigen::Vector3d best = current;
    for (int mask = 1; mask < 8; ++mask) {
      std::vector<int> cols;
      for (int c = 0; c < 3; ++c)
        if ((mask >> c) & 1 && used[static_cast<std::size_t>(c)]) cols.push_back(c);
      if (cols.empty() || static_cast<int>(cols.size()) != __builtin_popcount(mask)) continue;
      Eigen::MatrixXd As(A.rows(), static_cast<Eigen::Index>(cols.size()));
      for (std::size_t k = 0; k < cols.size(); ++k) As.col(static_cast<Eigen::Index>(k)) = A.col(cols[k]);
      Eigen::VectorXd xs = As.colPivHouseholderQr().solve(b);
      if ((xs.array() < 0).any()) continue;
      Eigen::Vector3d x = Eigen::Vector3d::Zero();
      for (std::size_t k = 0; k < cols.size(); ++k) x(cols[k]) = xs(static_cast<Eigen::Index>(k));
      // A term whose factor is zero would mean an infinitely efficient unit:
      // keep the current factor for a column the subset dropped but the data uses.
      for (int c = 0; c < 2; ++c)
        if (x(c) == 0) x(c) = current(c);
      const double residual = (A * x - b).squaredNorm();
      if (residual < best_residual) {
        best_residual = residual;
        best = x;
      }
    }
    Calibration next = cal;
    next.compute_efficiency = std::clamp(1.0 / std::max(best(0), 1e-12), 0.01, 2.0);
    next.memory_efficiency = std::clamp(1.0 / std::max(best(1), 1e-12), 0.01, 2.0);
    next.launch_overhead_s = std::clamp(best(2), 0.0, 1e-3);
    const bool settled = std::abs(next.compute_efficiency - cal.compute_efficiency) < 1e-9 &&
                         std::abs(next.memory_efficiency - cal.memory_efficiency) < 1e-9 &&
                         std::abs(next.launch_overhead_s - cal.launch_overhead_s) < 1e-15;
    cal = next;
    if (settled) break;
  }
  cal.samples = static_cast<int>(terms.size());
  calibration_ = cal;
}

}  // namespace ktune
