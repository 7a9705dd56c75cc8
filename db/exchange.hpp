// Exchange formats of the tuning database: JSON Lines, CSV and Kernel Tuner's
// T4 results JSON. Export writes every measurement; import is all-or-nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "db/store.hpp"

namespace ktune {

enum class ExchangeFormat {
  jsonl,  ///< one self-describing JSON object per line
  csv,    ///< RFC 4180, one header row, JSON in the problem/config/device/metrics cells
  t4,     ///< the autotuning community's T4 results schema, ktune's keys under "ktune"
};
std::string_view to_string(ExchangeFormat f);
/// "jsonl", "csv" or "t4"; throws std::invalid_argument listing them.
ExchangeFormat exchange_format_from_string(std::string_view text);
/// From a file name: .jsonl/.ndjson, .csv, .json (T4). Throws std::invalid_argument.
ExchangeFormat exchange_format_for_path(const std::string& path);

/// A malformed record: `line` is the 1-based line where it starts (T4: the
/// line of the offending result); the message names the line and the field.
struct ImportError : std::invalid_argument {
  ImportError(int line, const std::string& what);
  int line;
};

/// The JSON Lines object of one measurement, and back (throws std::invalid_argument).
nlohmann::json measurement_to_json(const Measurement& m);
Measurement measurement_from_json(const nlohmann::json& j);

/// Checks of one parsed measurement that db/ cannot make itself: that its
/// family is known and its problem and configuration fit the family's space
/// (the CLI passes one over the registered kernel families). Throws
/// std::invalid_argument naming the field; the import adds the line.
using MeasurementValidator = std::function<void(const Measurement&)>;

struct ImportOptions {
  MeasurementValidator validate;  ///< optional; run after the built-in checks
};

/// A UTC time as results store it (measured_at, "2026-12-06T17:58:00.000000Z"),
/// from "2026-12-06", "2026-12-06T17:58", "2026-12-06 17:58:00" or with
/// seconds' fractions and a final Z: stored times then compare as text.
/// Throws std::invalid_argument on anything else (the calendar as imports check it).
std::string canonical_measurement_time(const std::string& text);

/// Writes every measurement of `store` measured at or after `measured_since`
/// (a canonical_measurement_time; empty: all); returns how many.
std::int64_t export_measurements(const Store& store, std::ostream& out, ExchangeFormat format,
                                 const std::string& measured_since = {});
/// Parses a whole stream; throws ImportError at the first malformed record.
/// Every record is checked (check_measurement, then `options.validate`), and
/// duplicate JSON keys, non-finite numbers and integers out of range are
/// refused; so is a file without a byte.
std::vector<Measurement> parse_measurements(std::istream& in, ExchangeFormat format,
                                            const ImportOptions& options = {});

/// The content checks every imported record passes: a family and a
/// configuration that are not empty; shape keys that are keys of the problem
/// and positive; times that
/// are finite, non-negative and ordered min <= median <= max; finite,
/// non-negative rates and errors; non-negative repetitions; an ISO-8601
/// measurement time. Throws std::invalid_argument naming the field.
void check_measurement(const Measurement& m);

struct ImportSummary {
  std::int64_t read = 0;   ///< measurements in the input
  std::int64_t added = 0;  ///< new to the database (the rest were already there)
};
/// Parses everything first, then stores it in one transaction: a malformed
/// record (ImportError) or a database error leaves the database unchanged.
ImportSummary import_measurements(Store& store, std::istream& in, ExchangeFormat format,
                                  const ImportOptions& options = {});

}  // namespace ktune
