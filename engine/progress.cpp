// Progress lines and the final results table of a tuning run.
#include "engine/progress.hpp"

#include "space/objective.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace ktune {
namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string throughput_of(const Result& r) {
  if (r.tflops > 0) return fixed(r.tflops, 1) + " TFLOP/s";
  if (r.gbps > 0) return fixed(r.gbps, 1) + " GB/s";
  return {};
}

double wall_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "-";
  if (seconds >= 1.0) return fixed(seconds, 3) + " s";
  if (seconds >= 1e-3) return fixed(seconds * 1e3, 3) + " ms";
  return fixed(seconds * 1e6, 1) + " us";
}

std::string format_clock(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "-";
  auto total = static_cast<long long>(std::llround(seconds));
  long long h = total / 3600, m = (total / 60) % 60, s = total % 60;
  char buf[64];
  if (h > 0)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", h, m, s);
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", m, s);
  return buf;
}

std::optional<double> estimate_eta(const ProgressState& s) {
  std::optional<double> eta;
  if (s.budget > 0 && s.evaluated > 0 && s.elapsed_s > 0) {
    std::size_t left = s.budget > s.evaluated ? s.budget - s.evaluated : 0;
    eta = s.elapsed_s / static_cast<double>(s.evaluated) * static_cast<double>(left);
  }
  if (s.time_limit_s > 0) {
    double left = std::max(0.0, s.time_limit_s - s.elapsed_s);
    eta = eta ? std::min(*eta, left) : left;
  }
  return eta;
}

std::string format_progress_line(const ProgressState& s) {
  std::ostringstream line;
  if (!s.label.empty()) line << s.label << ": ";
  line << s.evaluated;
  if (s.budget > 0) line << "/" << s.budget;
  line << " evaluated";
  if (s.reused > 0) line << " (+" << s.reused << " reused)";
  line << ", " << s.failures << " failed";
  if (s.best) {
    line << ", best " << format_duration(s.best->time.median_s);
    std::string tp = throughput_of(*s.best);
    if (!tp.empty()) line << " " << tp;
  } else {
    line << ", no verified result yet";
  }
  line << ", elapsed " << format_clock(s.elapsed_s);
  if (auto eta = estimate_eta(s)) line << ", ETA " << format_clock(*eta);
  return line.str();
}

StreamProgress::StreamProgress(std::FILE* out, std::optional<bool> terminal, double interval_s)
    : out_(out),
      terminal_(terminal ? *terminal : (isatty(fileno(out)) != 0)),
      interval_s_(interval_s) {}

void StreamProgress::started(const ProgressState& s) {
  std::string line = format_progress_line(s);
  if (terminal_) {
    std::fprintf(out_, "\r\033[K%s", line.c_str());
  } else {
    std::fprintf(out_, "%s\n", line.c_str());
  }
  std::fflush(out_);
  last_print_s_ = wall_seconds();
}

void StreamProgress::batch_done(const ProgressState& s) {
  if (terminal_) {
    std::fprintf(out_, "\r\033[K%s", format_progress_line(s).c_str());
    std::fflush(out_);
    return;
  }
  // A log file gets one line per interval, not one per batch.
  double now = wall_seconds();
  if (last_print_s_ >= 0 && now - last_print_s_ < interval_s_) return;
  std::fprintf(out_, "%s\n", format_progress_line(s).c_str());
  std::fflush(out_);
  last_print_s_ = now;
}

void StreamProgress::finished(const ProgressState& s) {
  if (terminal_)
    std::fprintf(out_, "\r\033[K%s\n", format_progress_line(s).c_str());
  else
    std::fprintf(out_, "%s\n", format_progress_line(s).c_str());
  std::fflush(out_);
}

void print_results_table(std::ostream& out, const std::vector<ResultRow>& rows, Throughput metric) {
  if (rows.empty()) {
    out << "(no results)\n";
    return;
  }
  const char* metric_head = metric == Throughput::tflops ? "TFLOP/s" : metric == Throughput::gbps ? "GB/s" : "";
  // The profiler's bottleneck class, shown only when some row was profiled.
  auto bound_of = [](const Result& r) -> std::string {
    if (!r.metrics.is_object()) return "";
    auto it = r.metrics.find("bottleneck");
    if (it == r.metrics.end() || !it->is_object() || !it->contains("class") || !(*it)["class"].is_string()) return "";
    return (*it)["class"].get<std::string>();
  };
  bool profiled = false, with_energy = false;
  for (const ResultRow& row : rows) {
    profiled = profiled || !bound_of(row.result).empty();
    with_energy = with_energy || energy_per_launch(row.result).has_value();
  }
  out << std::left << std::setw(5) << "#" << std::setw(15) << "status" << std::right << std::setw(12)
      << "time";
  if (with_energy) out << std::setw(12) << "J/call" << std::setw(8) << "W";
  if (metric != Throughput::none) out << std::setw(10) << metric_head;
  out << std::setw(10) << "roofline";
  if (profiled) out << std::setw(10) << "bound";
  out << "  " << std::left << "configuration" << "\n";
  int rank = 1;
  for (const ResultRow& row : rows) {
    const Result& r = row.result;
    out << std::left << std::setw(5) << rank++ << std::setw(15) << std::string(to_string(r.status))
        << std::right << std::setw(12) << (r.ok() ? format_duration(r.time.median_s) : "-");
    if (with_energy) {
      const std::optional<double> joules = r.ok() ? energy_per_launch(r) : std::nullopt;
      const auto watts = r.metrics.is_object() ? r.metrics.find("power_w") : r.metrics.end();
      std::ostringstream j;
      if (joules) j << std::setprecision(4) << *joules;
      out << std::setw(12) << (joules ? j.str() : "-") << std::setw(8)
          << (joules && watts != r.metrics.end() && watts->is_number()
                  ? fixed(watts->get<double>(), 0)
                  : "-");
    }
    if (metric != Throughput::none) {
      double v = metric == Throughput::tflops ? r.tflops : r.gbps;
      out << std::setw(10) << (r.ok() && v > 0 ? fixed(v, 1) : "-");
    }
    std::string frac = r.ok() && row.roofline_fraction ? fixed(*row.roofline_fraction * 100, 1) + "%" : "-";
    out << std::setw(10) << frac;
    if (profiled) {
      const std::string bound = bound_of(r);
      out << std::setw(10) << (bound.empty() ? "-" : bound);
    }
    out << "  " << std::left << r.config.key() << "\n";
  }
}

}  // namespace ktune
