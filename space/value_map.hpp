// ValueMap: a set of named values with one canonical key; the type of both a
// configuration (knob -> value) and a problem (shape key -> value).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "space/value.hpp"

namespace ktune {

/// Named values, ordered by name. The canonical key `a=1,b=x,c=2.5` is computed
/// here and only here: the searchers, the database and the runtime lookup all
/// use it, so two maps with the same contents always share one key whatever
/// order they were built in.
class ValueMap {
 public:
  ValueMap() = default;
  ValueMap(std::initializer_list<std::pair<const std::string, Value>> init) : values_(init) {}

  /// Parses `a=1,b=x` (spaces around items are ignored). Throws
  /// std::invalid_argument naming the offending item on malformed text,
  /// duplicate names or empty names.
  static ValueMap parse(std::string_view text);
  /// From a JSON object of scalars. Throws std::invalid_argument otherwise.
  static ValueMap from_json(const nlohmann::json& j);

  void set(const std::string& name, Value v) { values_[name] = std::move(v); }
  bool contains(std::string_view name) const { return values_.find(name) != values_.end(); }
  void erase(std::string_view name);
  /// Throws std::out_of_range naming the missing key.
  const Value& at(std::string_view name) const;

  /// Typed accessors; throw std::invalid_argument naming the key on a type
  /// mismatch (an integer is accepted where a real is asked for, and a bool
  /// where an integer is).
  std::int64_t integer(std::string_view name) const;
  double real(std::string_view name) const;
  bool boolean(std::string_view name) const;
  const std::string& text(std::string_view name) const;

  std::int64_t integer_or(std::string_view name, std::int64_t fallback) const;
  std::string text_or(std::string_view name, std::string fallback) const;

  std::size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }
  auto begin() const { return values_.begin(); }
  auto end() const { return values_.end(); }

  /// Canonical key: `name=value` items sorted by name, joined by commas.
  std::string key() const;
  /// 64-bit FNV-1a of key(): stable across runs, machines and builds.
  std::uint64_t hash() const;
  nlohmann::json to_json() const;

  friend bool operator==(const ValueMap& a, const ValueMap& b) { return a.values_ == b.values_; }
  friend bool operator<(const ValueMap& a, const ValueMap& b) { return a.key() < b.key(); }

 private:
  std::map<std::string, Value, std::less<>> values_;
};

/// A configuration of a kernel family's knobs.
using Config = ValueMap;
/// A problem: the shape, dtype, layout and other keys of one kernel call.
using Problem = ValueMap;

/// 64-bit FNV-1a, the one stable string hash of ktune (keys, source hashes).
std::uint64_t stable_hash(std::string_view text, std::uint64_t seed = 0xcbf29ce484222325ULL);
/// Hex text of stable_hash, 16 digits.
std::string stable_hash_hex(std::string_view text);

}  // namespace ktune

template <>
struct std::hash<ktune::ValueMap> {
  std::size_t operator()(const ktune::ValueMap& m) const noexcept { return m.hash(); }
};
