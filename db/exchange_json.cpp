// Strict JSON reading for import: what the exchange formats refuse beyond
// JSON syntax (duplicate keys, deep nesting, numbers out of range, bytes that
// are not UTF-8, devices that would not read back as given).
#include <climits>
#include <cstdint>
#include <set>

#include "db/exchange_detail.hpp"

namespace ktune::exchange_detail {

json parse_strict(const std::string& text) {
  std::vector<std::set<std::string>> open_objects;
  int depth2_objects = 0;
  try {
    return json::parse(text, [&](int depth, json::parse_event_t event, json& parsed) {
      switch (event) {
        case json::parse_event_t::object_start:
        case json::parse_event_t::array_start:
          if (depth >= kMaxJsonDepth)
            throw StrictJsonError("nested deeper than " + std::to_string(kMaxJsonDepth) + " levels",
                                  depth2_objects - 1);
          if (event == json::parse_event_t::array_start) break;
          open_objects.emplace_back();
          if (depth == 2) ++depth2_objects;
          break;
        case json::parse_event_t::object_end:
          open_objects.pop_back();
          break;
        case json::parse_event_t::key:
          if (!open_objects.back().insert(parsed.get<std::string>()).second)
            throw StrictJsonError("duplicate key \"" + parsed.get<std::string>() +
                                      "\" (which one counts is not defined)",
                                  depth2_objects - 1);
          break;
        default:
          break;
      }
      return true;
    });
  } catch (const json::out_of_range& e) {
    // A number such as 1e400: the parser names it, but not where it is.
    throw StrictJsonError(e.what(), depth2_objects - 1);
  }
}

std::size_t invalid_utf8_at(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    int follow = 0;
    std::uint32_t min = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if ((c & 0xe0) == 0xc0) {
      follow = 1;
      min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      follow = 2;
      min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      follow = 3;
      min = 0x10000;
    } else {
      return i;
    }
    if (text.size() - i <= static_cast<std::size_t>(follow)) return i;  // cut short
    std::uint32_t code = c & (0x3f >> follow);
    for (int k = 1; k <= follow; ++k) {
      const auto f = static_cast<unsigned char>(text[i + k]);
      if ((f & 0xc0) != 0x80) return i;
      code = (code << 6) | (f & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
    if (code < min || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return i;
    i += follow + 1;
  }
  return std::string_view::npos;
}

void check_integers(const json& j, const std::string& field) {
  if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    throw std::invalid_argument("'" + field + "': " + j.dump() +
                                " is out of range (at most 2^63-1)");
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it)
      check_integers(it.value(), field + "." + it.key());
}

void check_count(const json& parent, const char* key, const std::string& field) {
  if (!parent.is_object() || !parent.contains(key)) return;
  const json& v = parent.at(key);
  const bool integer =
      v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= INT_MAX;
  if (!integer)
    throw std::invalid_argument("'" + field + "': " + v.dump() + " is not an integer in 0.." +
                                std::to_string(INT_MAX));
}

// A device as DeviceSpec reads it, refusing a field it would not write back
// as given: an integer past its field's range (2^63-1 in an int reads back
// as -1), a fraction where the field holds an integer, a compute capability such as "9.0x"
// ("arch" is not read: it is derived from "cc").
DeviceSpec device_from_json(const json& j) {
  check_integers(j, "device");  // nlohmann compares 2^64-1 equal to -1
  DeviceSpec d = DeviceSpec::from_json(j);
  const json written = d.to_json();
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "arch" && written.contains(it.key()) && written.at(it.key()) != *it)
      throw std::invalid_argument("'device." + it.key() + "': " + it->dump() +
                                  " cannot be stored as given (it reads back as " +
                                  written.at(it.key()).dump() + ")");
  return d;
}

void check_record_size(int line, std::size_t bytes) {
  if (bytes > kMaxRecordBytes)
    throw ImportError(line, "the record has " + std::to_string(bytes) + " bytes, more than the " +
                                std::to_string(kMaxRecordBytes >> 20) + " MiB a record may have");
}

}  // namespace ktune::exchange_detail
