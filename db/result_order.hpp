// The one total order on measured results that every "best" uses: the
// lookup, the best view and the emitted dispatch header rank alike.
#pragma once

#include <string>
#include <string_view>
#include <tuple>

namespace ktune {

/// What ranks a measurement: its ranking time, then clean before noisy, then
/// min time, then spread, then the canonical configuration key. Every field
/// survives export, import and merge (a row id does not), so equal times rank
/// the same everywhere.
///
/// A noisy measurement (metrics.timing.noisy: its repetitions ended at the
/// cap above the spread target) is timed no better than the slow end of its
/// spread, median × (1 + spread); a clean one by its median. So a clean result
/// and a noisy one count as equal when their medians lie within the noisy
/// one's spread (the clean one's spread met the target), and then the clean
/// one ranks first; a noisy result ranks first only when faster by more than
/// its spread. One number per result keeps the order transitive.
struct ResultRank {
  double median_s = 0;
  double min_s = 0;
  double spread = 0;
  std::string_view config_key;
  bool noisy = false;

  double ranking_s() const { return noisy ? median_s * (1 + spread) : median_s; }
};

/// Whether a ranks strictly before b (faster first).
inline bool ranks_before(const ResultRank& a, const ResultRank& b) {
  const double ta = a.ranking_s(), tb = b.ranking_s();
  return std::tie(ta, a.noisy, a.min_s, a.spread, a.config_key) <
         std::tie(tb, b.noisy, b.min_s, b.spread, b.config_key);
}

/// The same order in SQL, over columns named median_s, min_s, spread,
/// config_key and noisy (0 or 1; kNoisySql gives it). SQLite computes the
/// ranking time in doubles as ranking_s() does, and compares text bytewise, as
/// std::string_view does.
inline constexpr const char* kResultRankSql =
    "CASE WHEN noisy THEN median_s * (1 + spread) ELSE median_s END, noisy, min_s, spread, "
    "config_key";

/// A results row's noisy mark (metrics.timing.noisy) as 0 or 1, for a results table named r.
/// Metrics SQLite cannot read (malformed, or nested past its depth limit) are
/// not marked, rather than failing the whole query: CASE tries json_valid first.
inline constexpr const char* kNoisySql =
    "(CASE WHEN NOT json_valid(r.metrics) THEN 0 "
    "WHEN json_extract(r.metrics, '$.timing.noisy') = 1 THEN 1 ELSE 0 END)";

/// A results row's metrics.energy_j as SQLite reads it (NULL where absent or
/// where the metrics are unreadable), for a results table named r.
inline constexpr const char* kEnergySql =
    "(CASE WHEN json_valid(r.metrics) THEN json_extract(r.metrics, '$.energy_j') END)";

/// What the lookup reads from a results row's metrics, kept per row in the
/// table result_lookup_metrics (schema version 3) so that opening a lookup
/// parses no JSON: result_id, metrics_valid, energy_j, noisy.
inline const std::string kLookupMetricsSelect =
    std::string("SELECT r.id, json_valid(r.metrics), ") + kEnergySql + ", " + kNoisySql +
    " FROM results r";

}  // namespace ktune
