// PositionListing: the valid configurations of a space as rows of value
// positions, in Space::enumerate()'s order, without building a Config each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace ktune {

/// Position of a value in its parameter's list. Configurations are handled as
/// vectors of positions (one per parameter, in declaration order) wherever
/// speed matters: enumeration, sampling, index-based searchers.
using ValueIndex = std::uint32_t;

/// Every valid configuration of a space (Space::list_positions), row r being
/// the value positions of configuration r, one per parameter in declaration
/// order. A row costs 4 bytes a parameter where a Config holds a map of
/// names and values: listing 18k gemm configurations as Configs took most of
/// a search's first proposal. Space::config_at(row(r)) is enumerate()[r].
class PositionListing {
 public:
  PositionListing() = default;
  /// `positions` holds `count` rows of `width` positions each, back to back.
  PositionListing(std::size_t width, std::size_t count, std::vector<ValueIndex> positions)
      : width_(width), count_(count), positions_(std::move(positions)) {}

  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  /// Positions per row: the number of parameters (also when empty).
  std::size_t width() const { return width_; }
  /// The value positions of configuration r (r < size()).
  std::span<const ValueIndex> row(std::size_t r) const {
    if (width_ == 0) return {};  // no storage to point into
    return {positions_.data() + r * width_, width_};
  }

 private:
  std::size_t width_ = 0;
  std::size_t count_ = 0;  ///< kept apart: a space without parameters has one empty row
  std::vector<ValueIndex> positions_;
};

}  // namespace ktune
