// Dispatch emitter: writes a dependency-free C++ header that routes a
// problem to its tuned configuration (exact shape, then shape bucket, then default).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "db/query.hpp"

namespace ktune {

struct DispatchOptions {
  std::string family;  ///< required
  std::string device;  ///< GPU name or arch ("sm_90"); required
  std::optional<Config>
      default_config;  ///< served when nothing matches (else the header returns nullptr)
  /// Shape keys in parameter order; empty: those stored with the problems.
  std::vector<std::string> shape_keys;
  std::string source_label;  ///< named in the header comment (e.g. the database path)
  /// Current hash per stored row (BestQuery::current); unset: the newest-measured hash.
  CurrentHash current{};
  /// The condition under which a row's configuration is valid for a problem
  /// of the row's shape class: a C++ boolean expression over the shape keys
  /// (KernelFamily::dispatch_condition; the CLI fills it from the family).
  /// select() serves an exact or bucket row only where it holds, else the
  /// bucket's next row, else the default. Unset: every row holds everywhere.
  std::function<std::string(const BestRow&)> condition;
};

/// Text of the header. Its namespace is ktune_dispatch::<family>_<device>, with
///   struct Choice { const char* config; const char* how; double median_s; };
///   Choice select(const char* shape_class, double <key1>, double <key2>, ...);
/// `config` is the canonical configuration key ("a=1,b=2"), `how` is "exact",
/// "bucket" (same shape class and floor(log2) of every shape key: the bucket's
/// problems nearest its centre first, the first whose condition holds) or
/// "default". The default is the caller's: it must fit every problem.
/// Throws std::invalid_argument when there is nothing to route or the shape
/// keys are unknown.
std::string emit_dispatch_header(const Store& store, const DispatchOptions& options);

/// The emitted header's shape bucket of a problem: floor(log2) of every
/// shape key, and the squared log2-space distance to the bucket's centre
/// (which orders a bucket's rows). nullopt when a key is not positive.
struct ShapeBucket {
  std::vector<int> bucket;
  double centre_d2 = 0;
};
std::optional<ShapeBucket> shape_bucket(const std::vector<double>& shape);

/// `s` as a C++ string literal (quotes, backslashes and newlines escaped), for generated sources.
std::string cpp_string_literal(const std::string& s);

}  // namespace ktune
