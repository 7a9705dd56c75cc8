// Dispatch emitter: best rows -> exact table, log2 bucket table, default, as C++ text.
#include "db/dispatch_emitter.hpp"

#include <cctype>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "db/result_order.hpp"
#include "db/store_impl.hpp"

namespace ktune {
namespace {

std::string identifier(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "_" + out;
  return out;
}

std::string real(double d) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, end);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

ResultRank rank_of(const BestRow& row) {
  return {row.median_s, row.min_s, row.spread, row.config_key, row.noisy};
}

}  // namespace

std::optional<ShapeBucket> shape_bucket(const std::vector<double>& shape) {
  ShapeBucket b;
  for (double x : shape) {
    if (!(x > 0)) return std::nullopt;
    const int bi = std::ilogb(x);  // the header's bucket_of
    b.bucket.push_back(bi);
    const double off = std::log2(x) - (bi + 0.5);
    b.centre_d2 += off * off;
  }
  return b;
}

std::string cpp_string_literal(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string emit_dispatch_header(const Store& store, const DispatchOptions& options) {
  if (options.family.empty() || options.device.empty())
    throw std::invalid_argument("emit-dispatch needs a kernel family and a device (name or arch)");
  std::vector<BestRow> rows =
      best_per_problem(store, {options.family, options.device, "", options.current});
  // Several GPU models of one arch: the fastest measurement of each problem.
  std::map<std::string, BestRow> per_problem;
  for (auto& row : rows) {
    auto it = per_problem.find(row.problem_key);
    if (it == per_problem.end() || ranks_before(rank_of(row), rank_of(it->second)))
      per_problem[row.problem_key] = row;
  }
  std::vector<std::string> keys = options.shape_keys;
  if (keys.empty())
    for (const auto& [k, row] : per_problem)
      if (!row.shape_keys.empty()) {
        keys = row.shape_keys;
        break;
      }
  if (keys.empty())
    throw std::invalid_argument("the problems of '" + options.family +
                                "' carry no shape keys: pass them (--shape-keys m,n,k)");

  struct Point {
    std::string shape_class;
    std::vector<double> shape;
    const BestRow* row;
  };
  std::vector<Point> points;
  for (const auto& [k, row] : per_problem) {
    Point p{row.shape_class.empty() ? derived_shape_class(row.problem, keys) : row.shape_class,
            {},
            &row};
    bool ok = true;
    for (const auto& key : keys) {
      if (!row.problem.contains(key) || std::holds_alternative<std::string>(row.problem.at(key))) {
        ok = false;
        break;
      }
      p.shape.push_back(as_number(row.problem.at(key)));
    }
    if (ok) points.push_back(std::move(p));
  }

  std::vector<std::string> configs;
  std::map<std::string, std::size_t> config_index;
  auto config_of = [&](const BestRow& row) {
    auto [it, fresh] = config_index.try_emplace(row.config_key, configs.size());
    if (fresh) configs.push_back(row.config_key);
    return it->second;
  };

  // Validity conditions, one function case each ("true" is case 0).
  std::vector<std::string> conditions = {"true"};
  std::map<std::string, int> condition_index = {{"true", 0}};
  auto condition_of = [&](const BestRow& row) {
    const std::string text = options.condition ? options.condition(row) : "true";
    auto [it, fresh] = condition_index.try_emplace(text, static_cast<int>(conditions.size()));
    if (fresh) conditions.push_back(text);
    return it->second;
  };

  // One bucket per (class, floor(log2) of each key): its problems, nearest the
  // bucket's centre (in log2 space) first, lend their configurations.
  struct BucketPick {
    double d2;
    const Point* point;
  };
  std::map<std::pair<std::string, std::vector<int>>, std::vector<BucketPick>> buckets;
  for (const auto& p : points)
    if (auto b = shape_bucket(p.shape))
      buckets[std::make_pair(p.shape_class, b->bucket)].push_back({b->centre_d2, &p});
  std::size_t bucket_rows_total = 0;
  for (auto& [unused, picks] : buckets) {
    std::sort(picks.begin(), picks.end(), [](const BucketPick& a, const BucketPick& b) {
      if (a.d2 != b.d2) return a.d2 < b.d2;
      return ranks_before(rank_of(*a.point->row), rank_of(*b.point->row));
    });
    bucket_rows_total += picks.size();
  }

  const std::size_t n = keys.size();
  std::ostringstream h;
  std::string ns = identifier(options.family) + "_" + identifier(options.device);
  h << "// " << ns << ".hpp: generated by `ktune db emit-dispatch`: routes a " << options.family
    << " problem on " << options.device
    << " to its tuned configuration. Do not edit; regenerate.\n";
  h << "// Source: " << (options.source_label.empty() ? store.path() : options.source_label) << "; "
    << points.size() << " tuned problems, " << buckets.size() << " shape buckets ("
    << bucket_rows_total << " candidates)";
  std::set<std::string> hashes;  // one per kernel path the tuned problems take
  for (const auto& [unused, row] : per_problem) hashes.insert(row.family_hash);
  if (!hashes.empty()) {
    h << (hashes.size() == 1 ? ", template hash " : ", template hashes ");
    const char* sep = "";
    for (const auto& x : hashes) {
      h << sep << x;
      sep = " ";
    }
  }
  h << ".\n// Order: exact shape, then the shape bucket (same shape class, same floor(log2) of";
  for (const auto& k : keys) h << " " << k;
  h << "), then the default;\n// a row serves only where its configuration's condition of validity "
       "holds.\n#pragma once\n\n#include <cmath>\n#include <cstring>\n\n";
  h << "namespace ktune_dispatch {\nnamespace " << ns << " {\n\n";
  h << "/// What select() chose: the canonical configuration key (\"a=1,b=2\", nullptr when there\n"
       "/// is no default), how it was chosen, and the median time measured for it (0 for the "
       "default).\n";
  h << "struct Choice {\n  const char* config;\n  const char* how;\n  double median_s;\n};\n\n";
  h << "inline constexpr const char* kShapeKeys[] = {";
  for (std::size_t i = 0; i < n; ++i) h << (i ? ", " : "") << cpp_string_literal(keys[i]);
  h << "};\n";
  h << "inline constexpr const char* kDefaultConfig = "
    << (options.default_config ? cpp_string_literal(options.default_config->key()) : "nullptr")
    << ";\n\n";
  h << "namespace detail {\n";
  h << "struct Exact {\n  const char* shape_class;\n  double shape[" << n
    << "];\n  int config;\n  int condition;\n  double median_s;\n};\n";
  h << "struct Bucket {\n  const char* shape_class;\n  int bucket[" << n
    << "];\n  int config;\n  int condition;\n  double median_s;\n};\n";
  std::ostringstream exact_rows, bucket_rows;
  for (const auto& p : points) {
    exact_rows << "    {" << cpp_string_literal(p.shape_class) << ", {";
    for (std::size_t i = 0; i < n; ++i) exact_rows << (i ? ", " : "") << real(p.shape[i]);
    exact_rows << "}, " << config_of(*p.row) << ", " << condition_of(*p.row) << ", "
               << real(p.row->median_s) << "},\n";
  }
  for (const auto& [key, picks] : buckets)
    for (const auto& pick : picks) {
      bucket_rows << "    {" << cpp_string_literal(key.first) << ", {";
      for (std::size_t i = 0; i < n; ++i) bucket_rows << (i ? ", " : "") << key.second[i];
      bucket_rows << "}, " << config_of(*pick.point->row) << ", " << condition_of(*pick.point->row)
                  << ", " << real(pick.point->row->median_s) << "},\n";
    }
  h << "inline constexpr const char* kConfigs[] = {\n";
  for (const auto& c : configs) h << "    " << cpp_string_literal(c) << ",\n";
  if (configs.empty()) h << "    \"\",\n";
  h << "};\n";
  h << "inline constexpr Exact kExact[] = {\n" << exact_rows.str();
  if (points.empty()) h << "    {\"\\x01\", {}, 0, 0, 0.0},\n";  // never matches a caller's class
  h << "};\n";
  h << "inline constexpr Bucket kBuckets[] = {\n" << bucket_rows.str();
  if (buckets.empty()) h << "    {\"\\x01\", {}, 0, 0, 0.0},\n";
  h << "};\n";
  h << "inline int bucket_of(double x) { return x > 0 ? std::ilogb(x) : -2147483647 - 1; }\n";
  h << "/// Whether condition `c` (under which a row's configuration is valid) holds for this "
       "shape.\n";
  h << "inline bool holds(int c";
  for (const auto& k : keys) h << ", double " << identifier(k);
  h << ") {\n";
  for (const auto& k : keys) h << "  (void)" << identifier(k) << ";\n";
  h << "  switch (c) {\n";
  for (std::size_t i = 0; i < conditions.size(); ++i)
    h << "    case " << i << ": return " << conditions[i] << ";\n";
  h << "  }\n  return false;\n}\n";
  h << "}  // namespace detail\n\n";
  h << "/// Routes a problem of shape class `shape_class` to its configuration.\n";
  std::ostringstream args;  // ", m, n, k": the shape keys passed on to detail::holds
  for (const auto& k : keys) args << ", " << identifier(k);
  h << "inline Choice select(const char* shape_class";
  for (const auto& k : keys) h << ", double " << identifier(k);
  h << ") {\n  const double shape[" << n << "] = {";
  for (std::size_t i = 0; i < n; ++i) h << (i ? ", " : "") << identifier(keys[i]);
  h << "};\n";
  h << "  for (const auto& e : detail::kExact) {\n"
       "    if (std::strcmp(e.shape_class, shape_class) != 0) continue;\n"
       "    bool same = true;\n"
       "    for (int i = 0; i < "
    << n
    << "; ++i) same = same && e.shape[i] == shape[i];\n"
       "    if (same && detail::holds(e.condition"
    << args.str() << ")) return {detail::kConfigs[e.config], \"exact\", e.median_s};\n  }\n";
  h << "  int bucket[" << n << "];\n  for (int i = 0; i < " << n
    << "; ++i) bucket[i] = detail::bucket_of(shape[i]);\n";
  h << "  for (const auto& b : detail::kBuckets) {\n"
       "    if (std::strcmp(b.shape_class, shape_class) != 0) continue;\n"
       "    bool same = true;\n"
       "    for (int i = 0; i < "
    << n
    << "; ++i) same = same && b.bucket[i] == bucket[i];\n"
       "    if (same && detail::holds(b.condition"
    << args.str() << ")) return {detail::kConfigs[b.config], \"bucket\", b.median_s};\n  }\n";
  h << "  return {kDefaultConfig, \"default\", 0.0};\n}\n\n";
  h << "}  // namespace " << ns << "\n}  // namespace ktune_dispatch\n";
  return h.str();
}

}  // namespace ktune
