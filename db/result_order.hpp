// The one total order on measured results that every "best" uses: the
// lookup, the best view and the emitted dispatch header rank alike.
#pragma once

#include <string_view>
#include <tuple>

namespace ktune {

/// What ranks a measurement: median time, then min time, then spread, then
/// the canonical configuration key. Every field survives export, import and
/// merge (a row id does not), so equal medians rank the same everywhere.
struct ResultRank {
  double median_s = 0;
  double min_s = 0;
  double spread = 0;
  std::string_view config_key;
};

/// Whether a ranks strictly before b (faster first).
inline bool ranks_before(const ResultRank& a, const ResultRank& b) {
  return std::tie(a.median_s, a.min_s, a.spread, a.config_key) <
         std::tie(b.median_s, b.min_s, b.spread, b.config_key);
}

/// The same order in SQL, over columns named median_s, min_s, spread and
/// config_key (SQLite compares text bytewise, as std::string_view does).
inline constexpr const char* kResultRankSql = "median_s, min_s, spread, config_key";

}  // namespace ktune
