// Value: one typed parameter or problem value (integer, real, boolean, text).
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include <nlohmann/json_fwd.hpp>

namespace ktune {

/// A single value of a parameter or a problem key. Integers and reals are kept
/// apart so that canonical keys never depend on floating-point formatting of
/// integral knobs.
using Value = std::variant<std::int64_t, double, bool, std::string>;

/// Canonical text of a value: integers in decimal, reals in shortest
/// round-trip form, booleans as `true`/`false`, strings as they are.
std::string to_text(const Value& v);

/// Parses canonical text back: an integer if it parses as one, else a real,
/// else `true`/`false`, else a string.
Value value_from_text(std::string_view text);

/// Numeric view of a value (booleans are 0/1). Throws std::invalid_argument
/// for strings.
double as_number(const Value& v);

nlohmann::json value_to_json(const Value& v);
/// Throws std::invalid_argument for arrays, objects and null.
Value value_from_json(const nlohmann::json& j);

}  // namespace ktune
