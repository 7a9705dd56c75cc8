// What the exchange formats' files share (exchange.cpp, exchange_json.cpp,
// exchange_csv.cpp, exchange_checks.cpp). Internal to db/.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/exchange.hpp"

namespace ktune::exchange_detail {

using nlohmann::json;

// ---- Strict JSON (exchange_json.cpp) ------------------------------------------------

/// Nesting deeper than this is refused. No record ktune writes comes near it
/// (its deepest, a T4 result's metrics, is about 8 levels); deeper input
/// overflowed the stack of the recursive JSON writer (70,000 levels), and a
/// stored row past SQLite's JSON depth limit breaks every query that reads it.
constexpr int kMaxJsonDepth = 64;
/// A JSON Lines record or a CSV record larger than this is refused before it is parsed.
constexpr std::size_t kMaxRecordBytes = std::size_t{16} << 20;

/// What the strict parser refuses beyond JSON syntax: a key given twice in one
/// object (nlohmann keeps the last one silently), nesting past kMaxJsonDepth,
/// a number past the range of a double. `element`: how many objects had been
/// opened at depth 2 (a T4 result) when it was found, so the caller can name
/// that result's line.
struct StrictJsonError : std::invalid_argument {
  StrictJsonError(const std::string& what, int e) : std::invalid_argument(what), element(e) {}
  int element;
};

/// Parses `text`, refusing what StrictJsonError names.
json parse_strict(const std::string& text);
/// The offset of the first byte of `text` that is not well-formed UTF-8, or npos.
std::size_t invalid_utf8_at(std::string_view text);
/// Integers in a problem or configuration: JSON's unsigned values past 2^63-1
/// would wrap to negative numbers (2^64-1 to -1).
void check_integers(const json& j, const std::string& field);
/// A JSON integer in 0..INT_MAX, or absent.
void check_count(const json& parent, const char* key, const std::string& field);
/// A device as DeviceSpec reads it, refusing a field it would not write back as given.
DeviceSpec device_from_json(const json& j);
/// An ImportError at `line` for a record of more than kMaxRecordBytes.
void check_record_size(int line, std::size_t bytes);

// ---- CSV (exchange_csv.cpp) ---------------------------------------------------------

/// The shortest text of `d` that reads back as the same double.
std::string number_text(double d);
/// The header row, then one row per measurement.
void write_csv_header(std::ostream& out);
void write_csv_row(std::ostream& out, const Measurement& m);
/// Every record of a CSV file, passed to `add`; an ImportError naming the line
/// of the first malformed one.
void parse_csv_measurements(const std::string& text, const std::function<void(Measurement)>& add);

}  // namespace ktune::exchange_detail
