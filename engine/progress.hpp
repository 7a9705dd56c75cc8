// Progress of a tuning run on stderr (a live line on a terminal, periodic
// plain lines otherwise) and the final table of the best configurations.
#pragma once

#include <cstddef>
#include <cstdio>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "space/result.hpp"

namespace ktune {

/// A snapshot of a run, handed to the progress sink after every batch.
struct ProgressState {
  std::string label;             ///< e.g. "gemm m=4096,n=4096,..." (may be empty)
  std::size_t evaluated = 0;     ///< measured in this run (failures included)
  std::size_t budget = 0;        ///< 0: no evaluation budget
  std::size_t failures = 0;      ///< measured in this run with a status other than ok
  std::size_t reused = 0;        ///< stored results fed to the searcher on resume
  std::optional<Result> best;    ///< best ok result so far (stored or measured)
  double elapsed_s = 0;
  double time_limit_s = 0;       ///< 0: no time limit
};

/// Seconds left, from the evaluation rate and the limits; nullopt when unknown.
std::optional<double> estimate_eta(const ProgressState& s);
/// "37/40 evaluated, 2 failed, best 1.234 ms 311.2 TFLOP/s, ETA 0:12".
std::string format_progress_line(const ProgressState& s);
/// "1.234 ms" / "56.7 us" / "2.100 s".
std::string format_duration(double seconds);
/// "1:05:09" / "3:07".
std::string format_clock(double seconds);

/// Receives the run's snapshots. The loop calls started, then batch_done after
/// every stored batch, then finished.
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void started(const ProgressState& s) = 0;
  virtual void batch_done(const ProgressState& s) = 0;
  virtual void finished(const ProgressState& s) = 0;
};

/// Writes progress to a stream: on a terminal one line rewritten in place
/// after every batch; otherwise a plain line at most every `interval_s`
/// seconds (and at the start and the end), so logs stay short.
class StreamProgress final : public ProgressSink {
 public:
  /// `terminal`: nullopt asks isatty() of the stream's descriptor.
  explicit StreamProgress(std::FILE* out = stderr, std::optional<bool> terminal = std::nullopt,
                          double interval_s = 10.0);
  void started(const ProgressState& s) override;
  void batch_done(const ProgressState& s) override;
  void finished(const ProgressState& s) override;
  bool terminal() const { return terminal_; }

 private:
  std::FILE* out_;
  bool terminal_;
  double interval_s_;
  double last_print_s_ = -1;
};

/// A sink that prints nothing (tests, quiet runs).
class NullProgress final : public ProgressSink {
 public:
  void started(const ProgressState&) override {}
  void batch_done(const ProgressState&) override {}
  void finished(const ProgressState&) override {}
};

/// One row of the final table.
struct ResultRow {
  Result result;
  /// Ideal roofline time / measured time (1.0 = at the ceiling); nullopt when
  /// the family (hence the work estimate) is unknown, as for a foreign replay.
  std::optional<double> roofline_fraction;
};

/// Which throughput the table shows.
enum class Throughput { tflops, gbps, none };

/// Prints rows (already sorted) as an aligned table: rank, status, median
/// time, TFLOP/s or GB/s, roofline fraction, the profiler's bottleneck class
/// (a "bound" column, only when some row carries metrics.bottleneck),
/// configuration key.
void print_results_table(std::ostream& out, const std::vector<ResultRow>& rows, Throughput metric);

}  // namespace ktune
