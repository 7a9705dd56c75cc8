// Value: canonical text and JSON forms of one typed value.
#include "space/value.hpp"

#include <charconv>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace ktune {

std::string to_text(const Value& v) {
  struct Visitor {
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      char buf[64];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
      std::string s(buf, end);
      // Keep reals recognisable as reals so that text round-trips to a double.
      if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
      return s;
    }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(const std::string& s) const { return s; }
  };
  return std::visit(Visitor{}, v);
}

Value value_from_text(std::string_view text) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  std::int64_t i = 0;
  if (auto [p, ec] = std::from_chars(first, last, i); ec == std::errc() && p == last) return i;
  double d = 0;
  if (auto [p, ec] = std::from_chars(first, last, d); ec == std::errc() && p == last) return d;
  if (text == "true") return true;
  if (text == "false") return false;
  return std::string(text);
}

double as_number(const Value& v) {
  if (auto i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (auto d = std::get_if<double>(&v)) return *d;
  if (auto b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
  throw std::invalid_argument("value '" + std::get<std::string>(v) + "' is not a number");
}

nlohmann::json value_to_json(const Value& v) {
  return std::visit([](const auto& x) { return nlohmann::json(x); }, v);
}

Value value_from_json(const nlohmann::json& j) {
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_number_float()) return j.get<double>();
  if (j.is_string()) return j.get<std::string>();
  throw std::invalid_argument("expected a scalar (number, boolean or string), got " + j.dump());
}

}  // namespace ktune
