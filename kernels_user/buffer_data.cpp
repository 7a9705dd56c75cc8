// Filling and comparing typed buffers of user kernels.
#include "kernels_user/buffer_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

namespace ktune::user {
namespace {

template <class T>
void fill_typed(const Argument& a, std::int64_t count, unsigned char* bytes) {
  std::mt19937_64 rng(a.seed);
  std::uniform_real_distribution<double> uniform(a.lo, a.hi);
  for (std::int64_t i = 0; i < count; ++i) {
    double v = a.fill == Fill::index      ? static_cast<double>(i)
               : a.fill == Fill::constant ? a.value
                                          : uniform(rng);
    // Integer buffers take the floor, so a range [0, 10) gives 0..9.
    const T t = static_cast<T>(std::is_integral_v<T> ? std::floor(v) : v);
    std::memcpy(bytes + i * sizeof(T), &t, sizeof(T));
  }
}

template <class T>
double element(const std::vector<unsigned char>& bytes, std::int64_t i) {
  T t;
  std::memcpy(&t, bytes.data() + i * sizeof(T), sizeof(T));
  return static_cast<double>(t);
}

double element_of(const std::string& dtype, const std::vector<unsigned char>& bytes,
                  std::int64_t i) {
  if (dtype == "float32") return element<float>(bytes, i);
  if (dtype == "float64") return element<double>(bytes, i);
  if (dtype == "int32") return element<std::int32_t>(bytes, i);
  if (dtype == "int64") return static_cast<double>(element<std::int64_t>(bytes, i));
  return element<std::uint32_t>(bytes, i);
}

}  // namespace

std::size_t dtype_bytes(const std::string& dtype) {
  if (dtype == "float64" || dtype == "int64") return 8;
  if (dtype == "float32" || dtype == "int32" || dtype == "uint32") return 4;
  throw std::invalid_argument("unknown dtype '" + dtype + "'");
}

std::vector<unsigned char> fill_buffer(const Argument& a, std::int64_t count) {
  std::vector<unsigned char> bytes(static_cast<std::size_t>(count) * dtype_bytes(a.dtype));
  if (a.dtype == "float32")
    fill_typed<float>(a, count, bytes.data());
  else if (a.dtype == "float64")
    fill_typed<double>(a, count, bytes.data());
  else if (a.dtype == "int32")
    fill_typed<std::int32_t>(a, count, bytes.data());
  else if (a.dtype == "int64")
    fill_typed<std::int64_t>(a, count, bytes.data());
  else
    fill_typed<std::uint32_t>(a, count, bytes.data());
  return bytes;
}

std::int64_t count_unwritten(const Argument& a, const std::vector<unsigned char>& bytes) {
  const std::size_t width = dtype_bytes(a.dtype);
  std::int64_t n = 0;
  for (std::size_t i = 0; i + width <= bytes.size(); i += width)
    n += std::all_of(bytes.begin() + i, bytes.begin() + i + width,
                     [](unsigned char b) { return b == 0xFF; });
  return n;
}

Comparison compare_buffer(const Argument& a, const std::vector<unsigned char>& out,
                          const std::vector<unsigned char>& ref) {
  Comparison c;
  if (out.size() != ref.size()) {
    c.passed = false;
    c.detail = a.name + ": " + std::to_string(out.size()) + " bytes, reference " +
               std::to_string(ref.size());
    return c;
  }
  const std::size_t width = dtype_bytes(a.dtype);
  const auto count = static_cast<std::int64_t>(out.size() / width);
  double diff2 = 0, ref2 = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    const double o = element_of(a.dtype, out, i), r = element_of(a.dtype, ref, i);
    bool poisoned = true;
    for (std::size_t b = 0; b < width && poisoned; ++b) poisoned = out[i * width + b] == 0xFF;
    const bool reference_poisoned =
        poisoned && std::memcmp(&out[i * width], &ref[i * width], width) == 0;
    const double err = std::fabs(o - r);
    bool bad;
    if (poisoned && !reference_poisoned) {
      ++c.unwritten;
      bad = true;
    } else if (!std::isfinite(o) && std::isfinite(r)) {
      ++c.non_finite;
      bad = true;
    } else {
      bad = std::isfinite(r) && !(err <= a.atol + a.rtol * std::fabs(r));
      if (std::isfinite(err)) {
        c.max_abs_error = std::max(c.max_abs_error, err);
        diff2 += err * err;
        ref2 += r * r;
      }
    }
    if (bad && c.mismatches++ == 0)
      c.detail = a.name + "[" + std::to_string(i) + "] = " + std::to_string(o) + ", reference " +
                 std::to_string(r) + (poisoned ? " (never written)" : "");
  }
  c.rel_l2_error = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  c.passed = c.mismatches == 0;
  if (!c.passed)
    c.detail = std::to_string(c.mismatches) + " of " + std::to_string(count) +
               " elements outside atol " + std::to_string(a.atol) + " + rtol " +
               std::to_string(a.rtol) + " (first: " + c.detail + ")";
  return c;
}

}  // namespace ktune::user
