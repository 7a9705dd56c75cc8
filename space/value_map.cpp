// ValueMap: parsing, typed access, canonical key and JSON of named values.
#include "space/value_map.hpp"

#include <cstdio>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace ktune {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string type_name(const Value& v) {
  static const char* names[] = {"integer", "real", "boolean", "text"};
  return names[v.index()];
}

}  // namespace

ValueMap ValueMap::parse(std::string_view text) {
  ValueMap out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = trim(text.substr(pos, comma - pos));
    pos = comma + 1;
    if (item.empty()) {
      if (comma == text.size() && out.empty() && trim(text).empty()) break;
      throw std::invalid_argument("empty item in '" + std::string(text) + "'");
    }
    std::size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      throw std::invalid_argument("item '" + std::string(item) + "' is not of the form name=value");
    std::string name(trim(item.substr(0, eq)));
    std::string_view value = trim(item.substr(eq + 1));
    if (name.empty()) throw std::invalid_argument("item '" + std::string(item) + "' has no name");
    if (value.empty())
      throw std::invalid_argument("item '" + std::string(item) + "' has no value");
    if (out.contains(name)) throw std::invalid_argument("'" + name + "' is given twice");
    out.set(name, value_from_text(value));
    if (comma == text.size()) break;
  }
  return out;
}

ValueMap ValueMap::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("expected a JSON object, got " + j.dump());
  ValueMap out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    try {
      out.set(it.key(), value_from_json(it.value()));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("'" + it.key() + "': " + e.what());
    }
  }
  return out;
}

void ValueMap::erase(std::string_view name) {
  if (auto it = values_.find(name); it != values_.end()) values_.erase(it);
}

const Value& ValueMap::at(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::out_of_range("missing key '" + std::string(name) + "'");
  return it->second;
}

std::int64_t ValueMap::integer(std::string_view name) const {
  const Value& v = at(name);
  if (auto i = std::get_if<std::int64_t>(&v)) return *i;
  if (auto b = std::get_if<bool>(&v)) return *b ? 1 : 0;
  throw std::invalid_argument("'" + std::string(name) + "' should be an integer, is " +
                              type_name(v) + " '" + to_text(v) + "'");
}

double ValueMap::real(std::string_view name) const {
  const Value& v = at(name);
  if (std::holds_alternative<std::string>(v))
    throw std::invalid_argument("'" + std::string(name) + "' should be a number, is text '" +
                                to_text(v) + "'");
  return as_number(v);
}

bool ValueMap::boolean(std::string_view name) const {
  const Value& v = at(name);
  if (auto b = std::get_if<bool>(&v)) return *b;
  if (auto i = std::get_if<std::int64_t>(&v); i && (*i == 0 || *i == 1)) return *i == 1;
  throw std::invalid_argument("'" + std::string(name) + "' should be a boolean, is " +
                              type_name(v) + " '" + to_text(v) + "'");
}

const std::string& ValueMap::text(std::string_view name) const {
  const Value& v = at(name);
  if (auto s = std::get_if<std::string>(&v)) return *s;
  throw std::invalid_argument("'" + std::string(name) + "' should be text, is " + type_name(v) +
                              " '" + to_text(v) + "'");
}

std::int64_t ValueMap::integer_or(std::string_view name, std::int64_t fallback) const {
  return contains(name) ? integer(name) : fallback;
}

std::string ValueMap::text_or(std::string_view name, std::string fallback) const {
  return contains(name) ? text(name) : fallback;
}

std::string ValueMap::key() const {
  std::string out;
  for (const auto& [name, value] : values_) {
    if (!out.empty()) out += ',';
    out += name;
    out += '=';
    out += to_text(value);
  }
  return out;
}

std::uint64_t ValueMap::hash() const { return stable_hash(key()); }

nlohmann::json ValueMap::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : values_) j[name] = value_to_json(value);
  return j;
}

std::uint64_t stable_hash(std::string_view text, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string stable_hash_hex(std::string_view text) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(stable_hash(text)));
  return buf;
}

}  // namespace ktune
