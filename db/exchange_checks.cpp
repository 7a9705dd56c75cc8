// check_measurement: the content checks every imported record passes.
#include <cmath>
#include <regex>
#include <stdexcept>
#include <string>

#include "db/exchange_detail.hpp"

namespace ktune {
namespace {

using exchange_detail::number_text;

int days_in_month(int year, int month) {
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : days[month - 1];
}

// "2026-11-29T14:35:00.123456Z" or with an offset ("+01:00"); fractions optional.
bool is_iso8601(const std::string& text) {
  static const std::regex form(
      R"(^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$)");
  std::smatch m;
  if (!std::regex_match(text, m, form)) return false;
  auto n = [&](int i) { return std::stoi(m[i].str()); };
  const int month = n(2);
  if (month < 1 || month > 12 || n(3) < 1 || n(3) > days_in_month(n(1), month)) return false;
  if (n(4) > 23 || n(5) > 59 || n(6) > 60) return false;  // 60: a leap second
  return !m[9].matched || (n(9) <= 23 && n(10) <= 59);
}

}  // namespace

std::string canonical_measurement_time(const std::string& text) {
  static const std::regex form(
      R"((\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?Z?)");
  std::smatch m;
  std::string canonical;
  if (std::regex_match(text, m, form)) {
    std::string fraction = m[5].str();
    fraction.resize(6, '0');
    canonical = m[1].str() + "T" + (m[2].matched ? m[2].str() : "00") + ":" +
                (m[3].matched ? m[3].str() : "00") + ":" + (m[4].matched ? m[4].str() : "00") +
                "." + fraction + "Z";
  }
  if (canonical.empty() || !is_iso8601(canonical))
    throw std::invalid_argument("'" + text +
                                "' is not a UTC time such as 2026-12-06 or 2026-12-06T17:58:00Z");
  return canonical;
}

namespace {

void check_non_negative(double v, const char* field) {
  if (!std::isfinite(v) || v < 0)
    throw std::invalid_argument(std::string("'") + field + "': " + number_text(v) +
                                " is not a finite, non-negative number");
}

void check_non_negative_count(long long v, const char* field) {
  if (v < 0)
    throw std::invalid_argument(std::string("'") + field + "': " + std::to_string(v) +
                                " is negative");
}

// Counts and rates of a GPU cannot be negative, and a GPU of known compute
// capability has SMs; 0 stands for "unknown" elsewhere (a recording that named
// no GPU keeps only its name, compute capability 0.0).
void check_device(const DeviceSpec& d) {
  check_non_negative_count(d.cc_major, "device.cc");
  check_non_negative_count(d.cc_minor, "device.cc");
  check_non_negative_count(d.sm_count, "device.sm_count");
  if (d.sm_count == 0 && d.cc_major > 0)
    throw std::invalid_argument(
        "'device.sm_count': 0 is not a count of SMs of a GPU of compute "
        "capability " +
        std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor));
  check_non_negative_count(d.max_threads_per_block, "device.max_threads_per_block");
  check_non_negative_count(d.max_threads_per_sm, "device.max_threads_per_sm");
  check_non_negative_count(d.max_blocks_per_sm, "device.max_blocks_per_sm");
  check_non_negative_count(d.smem_per_sm, "device.smem_per_sm");
  check_non_negative_count(d.smem_per_block_optin, "device.smem_per_block_optin");
  check_non_negative_count(d.regs_per_sm, "device.regs_per_sm");
  check_non_negative_count(d.max_regs_per_thread, "device.max_regs_per_thread");
  check_non_negative_count(d.l2_bytes, "device.l2_bytes");
  check_non_negative_count(d.global_memory_bytes, "device.global_memory_bytes");
  check_non_negative(d.sm_clock_mhz, "device.sm_clock_mhz");
  check_non_negative(d.dram_gbps, "device.dram_gbps");
  check_non_negative(d.peak_tflops_simt_fp32, "device.peak_tflops_simt_fp32");
  check_non_negative(d.peak_tflops_tf32, "device.peak_tflops_tf32");
  check_non_negative(d.peak_tflops_bf16, "device.peak_tflops_bf16");
  check_non_negative(d.peak_tflops_fp16, "device.peak_tflops_fp16");
}

}  // namespace

void check_measurement(const Measurement& m) {
  if (m.key.family.empty()) throw std::invalid_argument("'family' is empty");
  // Families this build does not register import with a note that names them
  // (replayed Kernel Tuner caches, user kernels): a name is a name, not a payload.
  constexpr std::size_t kMaxFamilyBytes = 256;
  if (m.key.family.size() > kMaxFamilyBytes)
    throw std::invalid_argument("'family' is " + std::to_string(m.key.family.size()) +
                                " bytes long (at most " + std::to_string(kMaxFamilyBytes) + ")");
  if (m.key.device.name.empty()) throw std::invalid_argument("'device.name' is empty");
  check_device(m.key.device);
  // An empty problem is a record ktune writes: a Kernel Tuner cache without a
  // problem_size, replayed. A family with shape keys still needs them below,
  // and the CLI's family check needs a problem the family accepts.
  for (const std::string& key : m.key.shape_keys) {
    if (!m.key.problem.contains(key))
      throw std::invalid_argument("'shape_keys': '" + key + "' is not a key of the problem");
    const Value& v = m.key.problem.at(key);
    const auto* i = std::get_if<std::int64_t>(&v);
    const auto* d = std::get_if<double>(&v);
    if (!(i && *i > 0) && !(d && std::isfinite(*d) && *d > 0))
      throw std::invalid_argument("'problem." + key + "': " + to_text(v) +
                                  " is not a positive size (a shape key)");
  }
  const Result& r = m.result;
  if (r.config.empty()) throw std::invalid_argument("'result.config' is empty");
  check_non_negative(r.time.median_s, "result.time.median_s");
  check_non_negative(r.time.min_s, "result.time.min_s");
  check_non_negative(r.time.max_s, "result.time.max_s");
  check_non_negative(r.time.spread, "result.time.spread");
  if (r.time.min_s > r.time.median_s || r.time.median_s > r.time.max_s)
    throw std::invalid_argument("'result.time': min_s " + number_text(r.time.min_s) +
                                ", median_s " + number_text(r.time.median_s) + ", max_s " +
                                number_text(r.time.max_s) +
                                " are not ordered min_s <= median_s <= max_s");
  if (r.time.repetitions < 0)
    throw std::invalid_argument("'result.time.repetitions': " + std::to_string(r.time.repetitions) +
                                " is negative");
  check_non_negative(r.tflops, "result.tflops");
  check_non_negative(r.gbps, "result.gbps");
  check_non_negative(r.error, "result.error");
  check_non_negative(r.max_abs_error, "result.max_abs_error");
  if (!is_iso8601(m.provenance.measured_at))
    throw std::invalid_argument("'provenance.measured_at': '" + m.provenance.measured_at +
                                "' is not an ISO-8601 time such as 2026-11-29T14:35:00.123456Z");
}

}  // namespace ktune
