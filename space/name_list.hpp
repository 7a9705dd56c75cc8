// name_list: names joined for a message ("known: a, b, c").
#pragma once

#include <string>
#include <string_view>

namespace ktune {

/// The names of `names` (any range of strings) joined by ", ", or `when_empty`
/// when there are none: what an error message lists as the known choices.
template <class Names>
std::string name_list(const Names& names, std::string_view when_empty = "none") {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out.empty() ? std::string(when_empty) : out;
}

}  // namespace ktune
