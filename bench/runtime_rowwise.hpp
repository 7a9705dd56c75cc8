// runtime_rowwise.hpp: the row-wise half of bench_runtime_bench: the runtime's
// (or an emitted library's) softmax, rmsnorm and reduce calls on the 13 shapes
// of bench_rowwise_bench, each checked against an fp64 host reference and
// timed against the device-to-device copy of the same run (GB/s of the bytes
// a call must move: its input read once and its output written once).
// Every input is 256 MB or more, four times the H200's L2, so no flush is needed.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/ktune_runtime.hpp"

namespace ktune::bench {

/// One row-wise call: family, shape, dtype and (reduce) operation and axis.
struct RowwiseCase {
  std::string family;
  long long rows, cols;
  DType dtype;
  ReduceOp op = ReduceOp::sum;
  ReduceAxis axis = ReduceAxis::last;
};

/// The shapes of bench/rowwise_bench.cpp.
inline std::vector<RowwiseCase> rowwise_cases() {
  using D = DType;
  return {{"softmax", 32768, 4096, D::bf16},
          {"softmax", 16384, 4096, D::fp32},
          {"softmax", 4096, 32768, D::fp16},
          {"softmax", 256, 524288, D::bf16},
          {"rmsnorm", 32768, 4096, D::bf16},
          {"rmsnorm", 16384, 4096, D::fp32},
          {"rmsnorm", 16384, 8192, D::fp16},
          {"rmsnorm", 1024, 131072, D::bf16},
          {"reduce", 32768, 4096, D::bf16, ReduceOp::sum, ReduceAxis::last},
          {"reduce", 65536, 1024, D::fp32, ReduceOp::sum, ReduceAxis::last},
          {"reduce", 4096, 32768, D::fp16, ReduceOp::max, ReduceAxis::last},
          {"reduce", 32768, 4096, D::bf16, ReduceOp::sum, ReduceAxis::rows},
          {"reduce", 16384, 4096, D::fp32, ReduceOp::max, ReduceAxis::rows}};
}

inline int element_bytes(DType d) { return d == DType::fp32 ? 4 : 2; }

inline const char* dtype_name(DType d) {
  return d == DType::fp32 ? "fp32" : d == DType::fp16 ? "fp16" : "bf16";
}

/// Values stored as `d` (bytes in memory order) and read back as doubles.
class TypedHost {
 public:
  TypedHost(DType d, std::size_t n) : dtype_(d), bytes_(n * element_bytes(d)) {}
  void set(std::size_t i, double v) {
    if (dtype_ == DType::fp32) {
      reinterpret_cast<float*>(bytes_.data())[i] = static_cast<float>(v);
    } else if (dtype_ == DType::fp16) {
      reinterpret_cast<__half*>(bytes_.data())[i] = __float2half_rn(static_cast<float>(v));
    } else {
      reinterpret_cast<__nv_bfloat16*>(bytes_.data())[i] =
          __float2bfloat16_rn(static_cast<float>(v));
    }
  }
  double get(std::size_t i) const {
    if (dtype_ == DType::fp32) return reinterpret_cast<const float*>(bytes_.data())[i];
    if (dtype_ == DType::fp16)
      return __half2float(reinterpret_cast<const __half*>(bytes_.data())[i]);
    return __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(bytes_.data())[i]);
  }
  std::vector<std::uint8_t>& bytes() { return bytes_; }
  std::size_t size() const { return bytes_.size() / element_bytes(dtype_); }

 private:
  DType dtype_;
  std::vector<std::uint8_t> bytes_;
};

/// The fp64 reference of a case on `x` (and `w` for rmsnorm).
inline std::vector<double> rowwise_reference(const RowwiseCase& c, const TypedHost& x,
                                             const TypedHost& w) {
  const std::size_t rows = c.rows, cols = c.cols;
  std::vector<double> out;
  if (c.family == "reduce" && c.axis == ReduceAxis::rows) {
    out.assign(cols, c.op == ReduceOp::sum ? 0.0 : -INFINITY);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t j = 0; j < cols; ++j)
        out[j] = c.op == ReduceOp::sum ? out[j] + x.get(r * cols + j)
                                       : std::max(out[j], x.get(r * cols + j));
    return out;
  }
  out.resize(c.family == "reduce" ? rows : rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t base = r * cols;
    if (c.family == "reduce") {
      double acc = c.op == ReduceOp::sum ? 0.0 : -INFINITY;
      for (std::size_t j = 0; j < cols; ++j)
        acc = c.op == ReduceOp::sum ? acc + x.get(base + j) : std::max(acc, x.get(base + j));
      out[r] = acc;
    } else if (c.family == "softmax") {
      double mx = -INFINITY, sum = 0;
      for (std::size_t j = 0; j < cols; ++j) mx = std::max(mx, x.get(base + j));
      for (std::size_t j = 0; j < cols; ++j) sum += std::exp(x.get(base + j) - mx);
      for (std::size_t j = 0; j < cols; ++j) out[base + j] = std::exp(x.get(base + j) - mx) / sum;
    } else {
      double sq = 0;
      for (std::size_t j = 0; j < cols; ++j) sq += x.get(base + j) * x.get(base + j);
      const double inv = 1 / std::sqrt(sq / cols + 1e-6);
      for (std::size_t j = 0; j < cols; ++j) out[base + j] = x.get(base + j) * inv * w.get(j);
    }
  }
  return out;
}

/// Relative L2 error of `got` against `want`; infinite on a non-finite output.
inline double relative_l2(const TypedHost& got, const std::vector<double>& want) {
  double diff = 0, ref = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double g = got.get(i);
    if (!std::isfinite(g)) return INFINITY;
    diff += (g - want[i]) * (g - want[i]), ref += want[i] * want[i];
  }
  return std::sqrt(diff / std::max(ref, 1e-300));
}

/// The largest relative L2 error a correct call may show: the output format's rounding.
inline double rowwise_bound(DType d) {
  return d == DType::fp32 ? 1e-5 : d == DType::fp16 ? 2e-3 : 1e-2;
}

/// Seconds per call of `launch` (false: the call failed), as the caller times GPU work.
using GpuTimer = std::function<double(const std::function<bool()>& launch, int reps)>;

/// Times every case through `backend` (ktune::Runtime or ktune::Library) and
/// the D2D copy of 1 GiB, both with `timer`; rows of JSON plus the geomean of
/// the fraction of the copy's bandwidth.
template <class Backend>
nlohmann::json time_rowwise(Backend& backend, const GpuTimer& timer, int reps) {
  nlohmann::json report;
  {
    const std::size_t bytes = std::size_t{1} << 30;
    void *a = nullptr, *b = nullptr;
    cudaMalloc(&a, bytes), cudaMalloc(&b, bytes);
    cudaMemset(a, 1, bytes), cudaMemset(b, 0, bytes);
    const double s =
        timer([&] { return cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice) == cudaSuccess; },
              reps);
    cudaFree(a), cudaFree(b);
    report["copy_gbps"] = s > 0 ? 2.0 * bytes / s / 1e9 : 0;
  }
  const double copy_gbps = report["copy_gbps"].get<double>();
  nlohmann::json rows = nlohmann::json::array();
  double log_sum = 0;
  int measured = 0;
  for (const RowwiseCase& c : rowwise_cases()) {
    const std::size_t n = c.rows * c.cols;
    const std::size_t out_n = c.family != "reduce"         ? n
                              : c.axis == ReduceAxis::last ? c.rows
                                                           : c.cols;
    TypedHost x(c.dtype, n), w(c.dtype, c.cols), y(c.dtype, out_n);
    std::mt19937_64 g(7);
    std::uniform_real_distribution<double> u(-1, 1);
    for (std::size_t i = 0; i < n; ++i) x.set(i, u(g));
    for (std::size_t j = 0; j < static_cast<std::size_t>(c.cols); ++j) w.set(j, 1 + 0.5 * u(g));
    void *dx = nullptr, *dw = nullptr, *dy = nullptr;
    cudaMalloc(&dx, x.bytes().size()), cudaMalloc(&dw, w.bytes().size()),
        cudaMalloc(&dy, y.bytes().size());
    cudaMemcpy(dx, x.bytes().data(), x.bytes().size(), cudaMemcpyHostToDevice);
    cudaMemcpy(dw, w.bytes().data(), w.bytes().size(), cudaMemcpyHostToDevice);
    Explanation e;
    std::function<CallStatus()> call;
    if (c.family == "softmax") {
      const SoftmaxDesc d{c.rows, c.cols, c.dtype};
      call = [&, d] { return backend.softmax(d, dx, dy, nullptr); };
      backend.explain(d, &e);
    } else if (c.family == "rmsnorm") {
      const RmsnormDesc d{c.rows, c.cols, c.dtype, 1e-6};
      call = [&, d] { return backend.rmsnorm(d, dx, dw, dy, nullptr); };
      backend.explain(d, &e);
    } else {
      const ReduceDesc d{c.rows, c.cols, c.dtype, c.op, c.axis};
      call = [&, d] { return backend.reduce(d, dx, dy, nullptr); };
      backend.explain(d, &e);
    }
    nlohmann::json r = {{"family", c.family},           {"rows", c.rows},     {"cols", c.cols},
                        {"dtype", dtype_name(c.dtype)}, {"config", e.config}, {"how", e.how}};
    if (c.family == "reduce") {
      r["op"] = c.op == ReduceOp::sum ? "sum" : "max";
      r["axis"] = c.axis == ReduceAxis::last ? "last" : "rows";
    }
    cudaMemset(dy, 0xFF, y.bytes().size());  // NaN in every format: an unwritten output fails
    const CallStatus s = call();
    cudaDeviceSynchronize();
    if (!s.ok()) {
      r["error"] = s.message();
    } else {
      cudaMemcpy(y.bytes().data(), dy, y.bytes().size(), cudaMemcpyDeviceToHost);
      const double err = relative_l2(y, rowwise_reference(c, x, w));
      const bool verified = err <= rowwise_bound(c.dtype);
      const double t = timer([&] { return call().ok(); }, reps);
      const double bytes = static_cast<double>(n + out_n) * element_bytes(c.dtype);
      r["rel_l2_vs_fp64"] = err;
      r["verified"] = verified;
      r["ktune_s"] = t;
      if (t > 0 && verified && copy_gbps > 0) {
        r["gbps"] = bytes / t / 1e9;
        r["of_copy"] = bytes / t / 1e9 / copy_gbps;
        log_sum += std::log(r["of_copy"].get<double>()), ++measured;
      }
      std::printf(
          "  %-8s %6lld x %-6lld %s  %-8s %8.1f us  %6.0f GB/s  %5.1f%% of copy  err %.1e%s\n",
          c.family.c_str(), c.rows, c.cols, dtype_name(c.dtype), e.how.c_str(), t * 1e6,
          bytes / t / 1e9, 100 * bytes / t / 1e9 / copy_gbps, err,
          verified ? "" : "  NOT VERIFIED");
      std::fflush(stdout);  // a run cut by a time limit keeps every row it printed
    }
    rows.push_back(r);
    cudaFree(dx), cudaFree(dw), cudaFree(dy);
  }
  report["shapes"] = rows;
  report["measured"] = measured;
  report["geomean_of_copy"] = measured ? std::exp(log_sum / measured) : 0;
  return report;
}

}  // namespace ktune::bench
