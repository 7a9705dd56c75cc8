// Filling and comparing typed buffers of user kernels.
#include "kernels_user/buffer_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
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

verify::Tolerances tolerances_of(const Argument& a) {
  verify::Tolerances t;
  t.element = {a.atol, a.rtol, 0};
  t.rel_l2 = std::numeric_limits<double>::max();  // finite: the bound is stored with the result
  return t;
}

verify::CheckStats compare_buffer(const Argument& a, const std::vector<unsigned char>& out,
                                  const std::vector<unsigned char>& ref) {
  if (out.size() != ref.size())
    throw std::invalid_argument(a.name + ": " + std::to_string(out.size()) + " bytes, reference " +
                                std::to_string(ref.size()));
  const std::size_t width = dtype_bytes(a.dtype);
  verify::Checker checker(tolerances_of(a).element);
  for (std::size_t i = 0; i * width < out.size(); ++i) {
    const unsigned char* o = out.data() + i * width;
    const bool poisoned = std::all_of(o, o + width, [](unsigned char b) { return b == 0xFF; });
    const auto index = static_cast<long long>(i);
    if (poisoned && std::memcmp(o, ref.data() + i * width, width) != 0)
      checker.add_unwritten(index);
    else
      checker.add(index, element_of(a.dtype, out, index), element_of(a.dtype, ref, index));
  }
  return checker.finish();
}

}  // namespace ktune::user
