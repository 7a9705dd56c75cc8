// RooflineModel: occupancy, wave quantization, roofline time, the cost
// terms of a described main loop, and the least-squares calibration of the
// roofline's efficiency factors or of the term weights.
#include "search/cost_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <Eigen/Dense>

#include "search/nnls.hpp"

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

constexpr double kMicrosecond = 1e-6;
/// Shared-memory bandwidth of one SM: 32 banks x 4 bytes per clock (every
/// NVIDIA architecture since Volta).
constexpr double kSharedBytesPerClock = 128;
/// Resident warps per SM below which the math units starve (two per scheduler).
constexpr double kWarpsToFeedMath = 8;

std::size_t index_of(CostTerm t) { return static_cast<std::size_t>(t); }

bool is_compute_term(CostTerm t) {
  return t == CostTerm::compute || t == CostTerm::shared_traffic || t == CostTerm::tensor_underfill;
}
bool is_memory_term(CostTerm t) { return t == CostTerm::dram || t == CostTerm::split_reduce; }

}  // namespace

std::string_view to_string(CostTerm t) {
  switch (t) {
    case CostTerm::compute: return "compute";
    case CostTerm::dram: return "dram";
    case CostTerm::launch: return "launch";
    case CostTerm::shared_traffic: return "shared_traffic";
    case CostTerm::split_reduce: return "split_reduce";
    case CostTerm::pipeline_latency: return "pipeline_latency";
    case CostTerm::iteration_latency: return "iteration_latency";
    case CostTerm::block_iterations: return "block_iterations";
    case CostTerm::block_load_issue: return "block_load_issue";
    case CostTerm::predicated_load_issue: return "predicated_load_issue";
    case CostTerm::thread_load_issue_predicated: return "thread_load_issue_predicated";
    case CostTerm::tensor_underfill: return "tensor_underfill";
    case CostTerm::prologue: return "prologue";
  }
  return "unknown";
}

const std::array<CostTerm, kCostTerms>& all_cost_terms() {
  static const std::array<CostTerm, kCostTerms> all = {
      CostTerm::compute,           CostTerm::dram,
      CostTerm::launch,            CostTerm::shared_traffic,
      CostTerm::split_reduce,      CostTerm::pipeline_latency,
      CostTerm::iteration_latency, CostTerm::block_iterations,
      CostTerm::block_load_issue,  CostTerm::predicated_load_issue,
      CostTerm::thread_load_issue_predicated, CostTerm::tensor_underfill,
      CostTerm::prologue};
  return all;
}

const std::vector<CostTerm>& default_loop_terms() {
  // compute and dram are left out: on the H200 GEMM recordings they lowered
  // the held-out rank correlation (the shared-traffic term already grows with
  // the FLOPs, scaled by how well the warp tile reuses its fragments; DRAM is
  // nearly constant across the configurations of one shape).
  static const std::vector<CostTerm> terms = {
      CostTerm::shared_traffic,    CostTerm::split_reduce,      CostTerm::launch,
      CostTerm::pipeline_latency,  CostTerm::block_load_issue,  CostTerm::thread_load_issue_predicated,
      CostTerm::block_iterations,  CostTerm::tensor_underfill,  CostTerm::predicated_load_issue,
      CostTerm::prologue,          CostTerm::iteration_latency};
  return terms;
}

CostTerms cost_terms(const WorkEstimate& w, const DeviceSpec& d) {
  CostTerms t;
  t.has_loop = w.loop_iterations > 0;
  t.resident_blocks_per_sm = resident_blocks(w, d);
  if (t.resident_blocks_per_sm == 0) {
    t.fits = false;
    t.seconds.fill(std::numeric_limits<double>::infinity());
    return t;
  }
  const double sms = static_cast<double>(std::max(1, d.sm_count));
  const double resident = t.resident_blocks_per_sm;
  const long long loop_blocks = w.loop_blocks > 0 ? w.loop_blocks : w.blocks;
  t.waves = static_cast<double>(std::max<long long>(1, loop_blocks)) / (sms * resident);
  const double full_waves = std::ceil(t.waves);
  const double quantization = full_waves / t.waves;
  const double clock = d.sm_clock_mhz > 0 ? d.sm_clock_mhz * 1e6 : 1.5e9;
  const double peak = d.peak_tflops(w.unit) * 1e12;
  const double bw = d.dram_gbps * 1e9;
  auto& s = t.seconds;
  const double flops = std::max(w.executed_flops, w.flops);
  s[index_of(CostTerm::compute)] = peak > 0 ? flops / peak * quantization : 0;
  s[index_of(CostTerm::dram)] = bw > 0 ? (w.dram_bytes + w.extra_bytes) / bw : 0;
  s[index_of(CostTerm::launch)] = std::max(1, w.kernels) * kMicrosecond;
  s[index_of(CostTerm::split_reduce)] = bw > 0 ? w.extra_bytes / bw : 0;
  if (!t.has_loop) return t;

  const double iterations = w.loop_iterations;
  const double stages = w.pipeline_stages > 0 ? w.pipeline_stages : 2;
  const double warps = std::ceil(std::max(1, w.threads_per_block) / 32.0);
  const double copies_per_thread = w.loads_per_iteration * 32.0 / std::max(1, w.threads_per_block);
  const double wave_iterations = full_waves * iterations;  // one block's loop, once per wave
  s[index_of(CostTerm::shared_traffic)] = w.shared_bytes / (sms * kSharedBytesPerClock * clock) * quantization;
  // With s stages, s - 1 tiles are in flight while one is consumed; one
  // stage overlaps nothing (counted as half a stage of overlap).
  s[index_of(CostTerm::pipeline_latency)] = wave_iterations / std::max(stages - 1, 0.5) * kMicrosecond;
  s[index_of(CostTerm::iteration_latency)] = wave_iterations * kMicrosecond;
  s[index_of(CostTerm::block_iterations)] = wave_iterations * resident * kMicrosecond;
  s[index_of(CostTerm::block_load_issue)] = wave_iterations * w.loads_per_iteration / clock;
  if (w.predicated_loads) {
    s[index_of(CostTerm::predicated_load_issue)] = wave_iterations * resident * w.loads_per_iteration / clock;
    s[index_of(CostTerm::thread_load_issue_predicated)] = wave_iterations * copies_per_thread * 10 / clock;
  }
  s[index_of(CostTerm::tensor_underfill)] =
      s[index_of(CostTerm::compute)] * std::max(0.0, kWarpsToFeedMath / (resident * warps) - 1);
  s[index_of(CostTerm::prologue)] = full_waves * std::max(stages - 1, 1.0) * kMicrosecond;
  return t;
}

RooflineModel::RooflineModel(DeviceSpec device, Calibration calibration)
    : device_(std::move(device)), calibration_(std::move(calibration)) {}

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
  if (calibration_.term_weights.size() == kCostTerms && work.loop_iterations > 0) {
    const CostTerms ct = cost_terms(work, device_);
    p.term_model = true;
    p.waves = ct.waves;
    for (CostTerm term : all_cost_terms()) {
      const double v = calibration_.term_weights[index_of(term)] * ct.seconds[index_of(term)];
      if (is_compute_term(term))
        p.compute_s += v;
      else if (is_memory_term(term))
        p.memory_s += v;
      else
        p.latency_s += v;
    }
    p.time_s = p.compute_s + p.memory_s + p.latency_s;
    if (p.latency_s >= std::max(p.compute_s, p.memory_s))
      p.bound = Bound::latency;
    else
      p.bound = p.compute_s >= p.memory_s ? Bound::compute : Bound::memory;
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

void RooflineModel::calibrate(const std::vector<WorkEstimate>& work, const std::vector<double>& measured_s,
                              const CalibrationOptions& options) {
  calibrate_roofline(work, measured_s);
  const std::vector<CostTerm>& terms = options.terms.empty() ? default_loop_terms() : options.terms;
  const std::size_t n = std::min(work.size(), measured_s.size());
  std::vector<CostTerms> rows;
  std::vector<double> times;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(measured_s[i] > 0) || !std::isfinite(measured_s[i]) || work[i].loop_iterations <= 0) continue;
    CostTerms ct = cost_terms(work[i], device_);
    if (!ct.fits) continue;
    rows.push_back(ct);
    times.push_back(measured_s[i]);
  }
  const bool has_prior = calibration_.term_weights.size() == kCostTerms;
  if (rows.size() < 3 || (!has_prior && rows.size() < options.min_term_samples)) return;
  // time_i ~ sum_j weight_j term_ij, rows divided by time_i (relative error:
  // times span decades) -- linear in the weights, which must be >= 0.
  const auto m = static_cast<Eigen::Index>(rows.size());
  const auto k = static_cast<Eigen::Index>(terms.size());
  Eigen::MatrixXd a(m, k);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(m);
  Eigen::VectorXd prior = Eigen::VectorXd::Zero(k);
  for (Eigen::Index j = 0; j < k; ++j) {
    const std::size_t term = index_of(terms[static_cast<std::size_t>(j)]);
    for (Eigen::Index i = 0; i < m; ++i) a(i, j) = rows[static_cast<std::size_t>(i)].seconds[term] / times[static_cast<std::size_t>(i)];
    if (has_prior) prior(j) = calibration_.term_weights[term];
  }
  const Eigen::VectorXd x = nonnegative_least_squares(a, b, options.ridge, prior);
  std::vector<double> weights(kCostTerms, 0.0);
  for (Eigen::Index j = 0; j < k; ++j) weights[index_of(terms[static_cast<std::size_t>(j)])] = x(j);
  // A fit that explains nothing (every weight zero) would predict zero for
  // everything: keep what was there.
  if (x.maxCoeff() <= 0) return;
  calibration_.term_weights = std::move(weights);
  calibration_.samples = static_cast<int>(rows.size());
}

void RooflineModel::calibrate_roofline(const std::vector<WorkEstimate>& work,
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
