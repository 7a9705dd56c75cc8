// Parameter: one typed knob of a search space with its ordered values.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "space/value.hpp"

namespace ktune {

/// Raised for anything wrong with a space's definition or a configuration's
/// relation to it; the message names the parameter concerned.
struct SpaceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class ParamKind { int_range, pow2_range, list, categorical, boolean };
std::string_view to_string(ParamKind k);

/// A knob: a name, a human description, an ordered list of values and a
/// default. Everything but categoricals is ordinal (neighbours are the values
/// one step away; encoding scales by position, log2 for power-of-two ranges).
class Parameter {
 public:
  /// lo, lo+step, ..., <= hi. Throws SpaceError if lo > hi, step < 1 or the
  /// default is not one of the values.
  static Parameter int_range(std::string name, std::int64_t lo, std::int64_t hi, std::int64_t step,
                             std::int64_t default_value, std::string description = {});
  /// lo, 2lo, 4lo, ..., <= hi; lo and hi powers of two.
  static Parameter pow2_range(std::string name, std::int64_t lo, std::int64_t hi,
                              std::int64_t default_value, std::string description = {});
  /// An explicit ordered list of numbers (integers or reals, not mixed).
  static Parameter list(std::string name, std::vector<Value> values, Value default_value,
                        std::string description = {});
  static Parameter categorical(std::string name, std::vector<std::string> values,
                               std::string default_value, std::string description = {});
  static Parameter boolean(std::string name, bool default_value, std::string description = {});

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  ParamKind kind() const { return kind_; }
  bool ordinal() const { return kind_ != ParamKind::categorical; }
  const std::vector<Value>& values() const { return values_; }
  std::size_t size() const { return values_.size(); }
  std::size_t default_index() const { return default_index_; }
  const Value& default_value() const { return values_[default_index_]; }
  /// Position of v among the values (an integer matches an equal real and vice versa).
  std::optional<std::size_t> index_of(const Value& v) const;

 private:
  Parameter() = default;
  std::string name_;
  std::string description_;
  ParamKind kind_ = ParamKind::list;
  std::vector<Value> values_;
  std::size_t default_index_ = 0;
};

}  // namespace ktune
