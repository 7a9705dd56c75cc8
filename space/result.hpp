// Result: the outcome of evaluating one configuration: status, times, errors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "space/value_map.hpp"

namespace ktune {

/// Every candidate ends in exactly one of these, stored as text. Only `ok`
/// carries a time that may be served or compared.
enum class Status {
  ok,              ///< verified against the reference and timed
  wrong_result,    ///< ran, but the output did not match the reference
  compile_error,   ///< NVRTC rejected the instantiation
  launch_error,    ///< the launch failed or the kernel faulted (worker crash included)
  timeout,         ///< ran past the watchdog's limit
  invalid_config,  ///< ruled out by the space or the device before compiling
};

std::string_view to_string(Status s);
/// Throws std::invalid_argument listing the accepted names.
Status status_from_string(std::string_view text);
/// Failed outcomes are knowledge too: searchers never propose them again.
inline bool is_failure(Status s) { return s != Status::ok; }

/// Timing statistics of the repetitions of one configuration, in seconds.
struct TimeStats {
  double median_s = 0;
  double min_s = 0;
  double max_s = 0;
  double spread = 0;  ///< (p90 - p10) / median of the repetitions
  int repetitions = 0;
};

/// What the engine learned about one configuration of one problem.
struct Result {
  Config config;
  Status status = Status::invalid_config;
  TimeStats time;           ///< meaningful only when status == ok
  double tflops = 0;        ///< achieved, from the family's FLOP count
  double gbps = 0;          ///< achieved, from the family's minimum bytes
  double error = 0;         ///< verification: relative L2 error (ok or wrong_result)
  double max_abs_error = 0; ///< verification: max absolute error
  std::optional<bool> deterministic;  ///< bitwise equal over two runs, when checked
  std::string message;      ///< compiler log, launch error, mismatch description
  nlohmann::json metrics = nlohmann::json::object();  ///< compile facts, clocks, profiler counters

  bool ok() const { return status == Status::ok; }
};

nlohmann::json result_to_json(const Result& r);
/// Throws std::invalid_argument naming the bad field.
Result result_from_json(const nlohmann::json& j);

}  // namespace ktune
