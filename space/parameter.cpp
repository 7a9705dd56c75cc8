// Parameter: the five kinds of knobs, their value lists and validation.
#include "space/parameter.hpp"

#include <cctype>
#include <cmath>
#include <set>

namespace ktune {
namespace {

// A value list this long is almost certainly a typo (1..1e9 instead of 1..1e3)
// and would make every enumeration hopeless; refuse it with a clear message.
constexpr std::size_t kMaxValues = std::size_t{1} << 22;

bool is_identifier(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return name != "true" && name != "false";
}

void check_name(const std::string& name) {
  if (!is_identifier(name))
    throw SpaceError("parameter name '" + name +
                     "' is not an identifier (letters, digits and '_', not starting with a digit, "
                     "not true/false)");
}

bool is_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::string list_text(const std::vector<Value>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size() && i < 12; ++i) {
    if (i) out += ", ";
    out += to_text(values[i]);
  }
  if (values.size() > 12) out += ", ... (" + std::to_string(values.size()) + " values)";
  return out;
}

}  // namespace

std::string_view to_string(ParamKind k) {
  switch (k) {
    case ParamKind::int_range: return "int_range";
    case ParamKind::pow2_range: return "pow2_range";
    case ParamKind::list: return "list";
    case ParamKind::categorical: return "categorical";
    case ParamKind::boolean: return "boolean";
  }
  return "unknown";
}

Parameter Parameter::int_range(std::string name, std::int64_t lo, std::int64_t hi,
                               std::int64_t step, std::int64_t default_value,
                               std::string description) {
  check_name(name);
  if (step < 1)
    throw SpaceError("parameter '" + name + "': step " + std::to_string(step) + " must be >= 1");
  if (lo > hi)
    throw SpaceError("parameter '" + name + "': empty range " + std::to_string(lo) + ".." +
                     std::to_string(hi));
  // Count in unsigned arithmetic: hi - lo may not fit in int64 for extreme bounds.
  const std::uint64_t count =
      (static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo)) / static_cast<std::uint64_t>(step) + 1;
  if (count > kMaxValues)
    throw SpaceError("parameter '" + name + "': range " + std::to_string(lo) + ".." +
                     std::to_string(hi) + " step " + std::to_string(step) + " has " +
                     std::to_string(count) + " values, more than the limit of " +
                     std::to_string(kMaxValues));
  Parameter p;
  p.name_ = std::move(name);
  p.description_ = std::move(description);
  p.kind_ = ParamKind::int_range;
  p.values_.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i)
    p.values_.emplace_back(static_cast<std::int64_t>(lo + static_cast<std::int64_t>(i) * step));
  auto d = p.index_of(default_value);
  if (!d)
    throw SpaceError("parameter '" + p.name_ + "': default " + std::to_string(default_value) +
                     " is not one of its values " + std::to_string(lo) + ".." + std::to_string(hi) +
                     " step " + std::to_string(step));
  p.default_index_ = *d;
  return p;
}

Parameter Parameter::pow2_range(std::string name, std::int64_t lo, std::int64_t hi,
                                std::int64_t default_value, std::string description) {
  check_name(name);
  if (!is_pow2(lo) || !is_pow2(hi))
    throw SpaceError("parameter '" + name + "': bounds " + std::to_string(lo) + ".." +
                     std::to_string(hi) + " must be powers of two");
  if (lo > hi)
    throw SpaceError("parameter '" + name + "': empty range " + std::to_string(lo) + ".." +
                     std::to_string(hi));
  Parameter p;
  p.name_ = std::move(name);
  p.description_ = std::move(description);
  p.kind_ = ParamKind::pow2_range;
  for (std::int64_t v = lo;; v *= 2) {
    p.values_.emplace_back(v);
    if (v == hi) break;
  }
  auto d = p.index_of(default_value);
  if (!d)
    throw SpaceError("parameter '" + p.name_ + "': default " + std::to_string(default_value) +
                     " is not a power of two in " + std::to_string(lo) + ".." + std::to_string(hi));
  p.default_index_ = *d;
  return p;
}

Parameter Parameter::list(std::string name, std::vector<Value> values, Value default_value,
                          std::string description) {
  check_name(name);
  if (values.empty()) throw SpaceError("parameter '" + name + "': empty list of values");
  if (values.size() > kMaxValues)
    throw SpaceError("parameter '" + name + "': " + std::to_string(values.size()) +
                     " values, more than the limit of " + std::to_string(kMaxValues));
  const bool integers = std::holds_alternative<std::int64_t>(values.front());
  for (const Value& v : values) {
    const bool is_int = std::holds_alternative<std::int64_t>(v);
    const bool is_real = std::holds_alternative<double>(v);
    if (!is_int && !is_real)
      throw SpaceError("parameter '" + name + "': list value '" + to_text(v) +
                       "' is not a number (use a categorical parameter for text, boolean for "
                       "true/false)");
    if (is_int != integers)
      throw SpaceError("parameter '" + name + "': list mixes integers and reals ('" +
                       to_text(values.front()) + "' and '" + to_text(v) + "')");
    if (is_real && !std::isfinite(std::get<double>(v)))
      throw SpaceError("parameter '" + name + "': list value '" + to_text(v) + "' is not finite");
  }
  std::set<double> seen;
  for (const Value& v : values)
    if (!seen.insert(as_number(v)).second)
      throw SpaceError("parameter '" + name + "': value '" + to_text(v) + "' is listed twice");
  Parameter p;
  p.name_ = std::move(name);
  p.description_ = std::move(description);
  p.kind_ = ParamKind::list;
  p.values_ = std::move(values);
  auto d = p.index_of(default_value);
  if (!d)
    throw SpaceError("parameter '" + p.name_ + "': default '" + to_text(default_value) +
                     "' is not one of its values (" + list_text(p.values_) + ")");
  p.default_index_ = *d;
  return p;
}

Parameter Parameter::categorical(std::string name, std::vector<std::string> values,
                                 std::string default_value, std::string description) {
  check_name(name);
  if (values.empty()) throw SpaceError("parameter '" + name + "': empty list of values");
  std::set<std::string> seen;
  for (const auto& v : values)
    if (!seen.insert(v).second)
      throw SpaceError("parameter '" + name + "': value '" + v + "' is listed twice");
  Parameter p;
  p.name_ = std::move(name);
  p.description_ = std::move(description);
  p.kind_ = ParamKind::categorical;
  for (auto& v : values) p.values_.emplace_back(std::move(v));
  auto d = p.index_of(Value(default_value));
  if (!d)
    throw SpaceError("parameter '" + p.name_ + "': default '" + default_value +
                     "' is not one of its values (" + list_text(p.values_) + ")");
  p.default_index_ = *d;
  return p;
}

Parameter Parameter::boolean(std::string name, bool default_value, std::string description) {
  check_name(name);
  Parameter p;
  p.name_ = std::move(name);
  p.description_ = std::move(description);
  p.kind_ = ParamKind::boolean;
  p.values_ = {Value(false), Value(true)};
  p.default_index_ = default_value ? 1 : 0;
  return p;
}

std::optional<std::size_t> Parameter::index_of(const Value& v) const {
  switch (kind_) {
    case ParamKind::categorical:
      if (const auto* s = std::get_if<std::string>(&v))
        for (std::size_t i = 0; i < values_.size(); ++i)
          if (std::get<std::string>(values_[i]) == *s) return i;
      return std::nullopt;
    case ParamKind::boolean:
      if (const auto* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
      if (const auto* i = std::get_if<std::int64_t>(&v); i && (*i == 0 || *i == 1))
        return static_cast<std::size_t>(*i);
      return std::nullopt;
    case ParamKind::int_range: {
      // Arithmetic lookup: ranges may be long.
      double x = 0;
      if (const auto* i = std::get_if<std::int64_t>(&v)) x = static_cast<double>(*i);
      else if (const auto* d = std::get_if<double>(&v)) x = *d;
      else return std::nullopt;
      const std::int64_t lo = std::get<std::int64_t>(values_.front());
      const std::int64_t step =
          values_.size() > 1 ? std::get<std::int64_t>(values_[1]) - lo : 1;
      if (x != std::floor(x)) return std::nullopt;
      const std::int64_t xi = static_cast<std::int64_t>(x);
      if (xi < lo || (xi - lo) % step != 0) return std::nullopt;
      const auto pos = static_cast<std::size_t>((xi - lo) / step);
      if (pos >= values_.size()) return std::nullopt;
      return pos;
    }
    case ParamKind::pow2_range:
    case ParamKind::list: {
      double x = 0;
      if (const auto* i = std::get_if<std::int64_t>(&v)) x = static_cast<double>(*i);
      else if (const auto* d = std::get_if<double>(&v)) x = *d;
      else return std::nullopt;
      for (std::size_t i = 0; i < values_.size(); ++i)
        if (as_number(values_[i]) == x) return i;
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace ktune
