// RowwiseHarness: inputs, references, launches and verification of the
// row-wise families on the GPU.
#include "kernels_templated/rowwise/gpu/rowwise_harness.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "kernels_templated/rowwise/rowwise_family.hpp"

namespace ktune::rowwise {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

DType dtype_of(const std::string& s) {
  if (s == "fp32") return DType::fp32;
  if (s == "bf16") return DType::bf16;
  return DType::fp16;
}

// Widest split any configuration of the space may use (rowwise_family.cpp's
// constraints): bounds the workspace allocated once per problem.
long long max_workspace_floats(const RowwiseSpec& spec, const Problem& p) {
  const long long rows = p.integer("rows"), cols = p.integer("cols");
  if (spec.reduces_columns(p)) return std::min<long long>(256, rows) * cols;
  const long long max_split = std::clamp<long long>(cols / 1024, 1, 64);
  return spec.partials_per_segment() * rows * max_split;
}

}  // namespace

RowwiseHarness::RowwiseHarness(const RowwiseSpec& spec, ReferenceFn reference)
    : spec_(spec), reference_(reference) {}

RowwiseHarness::~RowwiseHarness() { release(); }

void RowwiseHarness::release() {
  for (void* p : {x_, x_edge_, w_, y_, static_cast<void*>(ws_), static_cast<void*>(counters_),
                  static_cast<void*>(ref_), static_cast<void*>(ref_edge_), static_cast<void*>(mag_),
                  static_cast<void*>(mag_edge_), static_cast<void*>(scratch_)})
    if (p) cudaFree(p);
  x_ = x_edge_ = w_ = y_ = nullptr;
  ref_edge_ = mag_ = mag_edge_ = nullptr;
  active_ = 0;
  ws_ = nullptr;
  counters_ = nullptr;
  ref_ = nullptr;
  scratch_ = nullptr;
}

long long RowwiseHarness::output_elements() const {
  return rowwise::output_elements(spec_, problem_);
}

long long RowwiseHarness::accumulation_chain(const Config& config) const {
  try {
    const LaunchPlan plan = plan_launch(spec_, problem_, config, device_);
    if (spec_.reduces_columns(problem_)) {
      const long long down = config.integer("rows_per_block") * config.integer("split");
      return (problem_.integer("rows") + down - 1) / down;
    }
    const long long tpr = config.integer("threads_per_row");
    return (plan.seg_len + tpr - 1) / tpr;
  } catch (const std::exception&) {
    return problem_.integer("cols");  // a malformed configuration: assume the longest chain
  }
}

double RowwiseHarness::tolerance(const Config& config) const {
  switch (dtype_) {
    case DType::bf16:
      return 1e-2;  // output rounding alone is ~2e-3 (8 bits of mantissa)
    case DType::fp16:
      return 2e-3;  // output rounding alone is ~3e-4
    case DType::fp32: {
      // fp32 output rounding is negligible; what remains is the order in
      // which a thread accumulates its chain of n terms (the softmax
      // denominator, the rmsnorm sum of squares, a sum), ~u * sqrt(n) with
      // u = 6e-8. Measured on the H200: 5.7e-5 for a softmax
      // denominator accumulated by one thread over 65537 terms, 1.4e-5 over 16385.
      const double base = spec_.fp32_rel_l2(problem_);
      const bool accumulates = spec_.accumulates(problem_);
      const double chain = static_cast<double>(accumulation_chain(config));
      return accumulates ? std::max(base, 4e-7 * std::sqrt(chain)) : base;
    }
  }
  return 1e-5;
}

long long RowwiseHarness::reduction_length() const {
  return spec_.reduces_columns(problem_) ? problem_.integer("rows") : problem_.integer("cols");
}

verify::Tolerances RowwiseHarness::tolerances(const Config& config) const {
  using verify::Precision;
  const Precision out = dtype_ == DType::fp32   ? Precision::fp32
                        : dtype_ == DType::bf16 ? Precision::bf16
                                                : Precision::fp16;
  const long long n = reduction_length();
  verify::Tolerances t;
  t.rel_l2 = tolerance(config);
  t.element = spec_.element_bound(out, n, problem_);
  if (spec_.output() == RowOutput::whole_rows) t.row_rel_l2 = 4 * t.rel_l2;
  return t;
}

void RowwiseHarness::select_inputs(int set) {
  if (set < 0 || set >= input_sets())
    throw std::invalid_argument("rowwise harness: no input set " + std::to_string(set));
  active_ = set;
}

void RowwiseHarness::prepare(const Problem& raw, std::uint64_t seed) {
  release();
  const RowwiseFamily family(spec_);
  problem_ = family.normalize(raw);
  dtype_ = dtype_of(problem_.text("dtype"));
  elem_bytes_ = dtype_bytes(problem_.text("dtype"));
  const long long rows = problem_.integer("rows"), cols = problem_.integer("cols");
  const long long n = rows * cols;

  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  device_ = query_plan_device(dev);
  launcher_.set_device(device_, dev);

  check(cudaMalloc(&x_, n * elem_bytes_), "allocate input");
  check(cudaMalloc(&y_, output_elements() * elem_bytes_), "allocate output");
  ws_floats_ = max_workspace_floats(spec_, problem_);
  check(cudaMalloc(reinterpret_cast<void**>(&ws_), ws_floats_ * sizeof(float)),
        "allocate workspace");
  // Column groups of a column reduction: at most one per column; a whole row
  // combined in the kernel (split_combine=in_kernel): one per row.
  counter_count_ =
      spec_.reduces_columns(problem_) ? cols : (spec_.output() == RowOutput::whole_rows ? rows : 1);
  check(cudaMalloc(reinterpret_cast<void**>(&counters_), counter_count_ * sizeof(unsigned)),
        "allocate counters");
  check(cudaMemset(counters_, 0, counter_count_ * sizeof(unsigned)), "zero counters");
  check(cudaMalloc(reinterpret_cast<void**>(&ref_), output_elements() * sizeof(double)),
        "allocate reference");
  check(cudaMalloc(&x_edge_, n * elem_bytes_), "allocate edge input");
  check(cudaMalloc(reinterpret_cast<void**>(&ref_edge_), output_elements() * sizeof(double)),
        "allocate edge reference");
  check(cudaMalloc(reinterpret_cast<void**>(&scratch_), sizeof(CompareStats)),
        "allocate comparison scratch");

  // The family's value ranges (softmax spans many e-folds, rmsnorm weights
  // stay away from zero, sums mix signs: cancellation is part of the test).
  const InputValues values = spec_.input_values(problem_);
  check(fill_uniform(x_, dtype_, n, values.lo, values.hi, seed, nullptr), "fill input");
  if (!spec_.column_vector().empty()) {
    check(cudaMalloc(&w_, cols * elem_bytes_), "allocate column vector");
    check(fill_uniform(w_, dtype_, cols, values.w_lo, values.w_hi, seed ^ 0x5eedULL, nullptr),
          "fill column vector");
  }
  const bool columns = spec_.reduces_columns(problem_);
  // Edge inputs: -inf rows only where the answer is defined by them (softmax,
  // max); the all-equal value keeps an fp16 sum inside fp16's range.
  float equal_value = 0.75f;
  if (values.sums_inputs && dtype_ == DType::fp16)
    while (equal_value * static_cast<float>(reduction_length()) > 32768.f) equal_value *= 0.5f;
  check(fill_edge(x_edge_, dtype_, rows, cols, columns, values.minus_inf, equal_value, values.lo,
                  values.hi, seed ^ 0xed9eULL, nullptr),
        "fill edge input");
  if (values.magnitude) {
    check(cudaMalloc(reinterpret_cast<void**>(&mag_), output_elements() * sizeof(double)),
          "allocate magnitudes");
    check(cudaMalloc(reinterpret_cast<void**>(&mag_edge_), output_elements() * sizeof(double)),
          "allocate magnitudes");
  }
  for (auto [x, ref, mag] :
       {std::tuple{x_, ref_, mag_}, std::tuple{x_edge_, ref_edge_, mag_edge_}}) {
    ReferenceCall call;
    call.x = x;
    call.w = w_;
    call.dtype = dtype_;
    call.rows = rows;
    call.cols = cols;
    call.columns = columns;
    call.scalar = kernel_scalar(spec_, problem_);
    call.variant = spec_.reference_variant(problem_);
    call.ref = ref;
    call.mag = mag;
    check(reference_(call), "fp64 reference");
  }
  check(cudaDeviceSynchronize(), "prepare");
}

cudaError_t RowwiseHarness::launch(const Config& config, std::span<const cudaKernel_t> kernels,
                                   cudaStream_t stream) {
  LaunchPlan plan;
  try {
    plan = plan_launch(spec_, problem_, config, device_);
  } catch (const std::exception&) {
    return cudaErrorInvalidValue;
  }
  const RowwiseCall call{
      active_ == 0 ? x_ : x_edge_,   w_, y_, problem_.integer("rows"), problem_.integer("cols"),
      kernel_scalar(spec_, problem_)};
  return launcher_.launch(plan, call, {ws_, ws_floats_, counters_, counter_count_}, kernels, stream);
}

void RowwiseHarness::poison_outputs(cudaStream_t stream) {
  // 0xFF.. is a NaN in fp32, bf16 and fp16 alike; the workspace gets it too,
  // so a partial that no kernel wrote shows up as a NaN output.
  check(cudaMemsetAsync(y_, 0xff, output_elements() * elem_bytes_, stream), "poison output");
  check(cudaMemsetAsync(ws_, 0xff, ws_floats_ * sizeof(float), stream), "poison workspace");
  // Kernels leave their counters at zero; zeroing here keeps a configuration
  // that failed mid-way from spoiling the next one.
  check(cudaMemsetAsync(counters_, 0, counter_count_ * sizeof(unsigned), stream), "zero counters");
}

long long RowwiseHarness::nonzero_counters(cudaStream_t stream) const {
  std::vector<unsigned> host(static_cast<std::size_t>(counter_count_));
  check(cudaMemcpyAsync(host.data(), counters_, host.size() * sizeof(unsigned),
                        cudaMemcpyDeviceToHost, stream),
        "read counters");
  check(cudaStreamSynchronize(stream), "read counters");
  return std::count_if(host.begin(), host.end(), [](unsigned c) { return c != 0; });
}

Verification RowwiseHarness::verify(const Config& config, cudaStream_t stream) {
  Verification v;
  v.tolerances = tolerances(config);
  v.tolerance = v.tolerances.rel_l2;
  const double* ref = active_ == 0 ? ref_ : ref_edge_;
  const double* mag = active_ == 0 ? mag_ : mag_edge_;
  // Whole-row families: a line is a row; a reduction's outputs are checked
  // in lines of 4096 without row statistics (each output is a row already).
  const bool rows = spec_.output() == RowOutput::whole_rows;
  const long long line = rows ? problem_.integer("cols") : 4096;
  cudaError_t e = check_outputs(y_, dtype_, ref, mag, output_elements(), line, rows,
                                v.tolerances.element, scratch_, v.stats, stream);
  if (e != cudaSuccess) {
    v.detail = std::string("comparison failed: ") + cudaGetErrorString(e);
    return v;
  }
  std::ostringstream d;
  d << conclude(v);
  if (!v.passed && v.stats.first_bad >= 0) {
    double out = 0, want = 0, m = 0;
    const long long i = v.stats.first_bad;
    if (read_element(y_, dtype_, i, out) == cudaSuccess &&
        cudaMemcpy(&want, ref + i, sizeof want, cudaMemcpyDeviceToHost) == cudaSuccess &&
        (!mag || cudaMemcpy(&m, mag + i, sizeof m, cudaMemcpyDeviceToHost) == cudaSuccess))
      d << "; first bad element " << i << ": out=" << out << " ref=" << want << " (bound "
        << verify::allowed_error(v.tolerances.element, want, m) << ")";
  }
  v.detail = d.str();
  return v;
}

}  // namespace ktune::rowwise
