// The lookup's in-memory index, built once per database layer by
// lookup_load.cpp and read by the tiers: per family version, every measured
// (GPU, problem) with its best few results per objective, found by problem
// and by shape class and arch. Internal to db/.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "db/lookup.hpp"

namespace ktune::lookup_detail {

/// Best few configurations kept per (device, problem) and objective: enough to
/// step past the ones a caller's device has seen fail, small enough for a
/// million results.
constexpr std::size_t kCandidatesPerEntry = 8;
/// Every objective, in the order of its index (index_of).
constexpr Objective kObjectives[] = {Objective::time, Objective::energy, Objective::edp};
inline std::size_t index_of(Objective o) { return static_cast<std::size_t>(o); }

/// Joins the parts of a text key: no name or key contains it.
constexpr char kSep = '\x1f';

/// 90 for "sm_90": the arch's digits, for the distance between archs.
inline int arch_number(std::string_view arch) {
  int n = 0;
  for (char c : arch)
    if (c >= '0' && c <= '9') n = n * 10 + (c - '0');
  return n;
}

/// log2 of the problem's values of `keys`; empty if any is missing, text or not positive.
inline std::vector<double> log_shape_of(const Problem& p, const std::vector<std::string>& keys) {
  std::vector<double> out;
  out.reserve(keys.size());
  for (const auto& k : keys) {
    if (!p.contains(k)) return {};
    const Value& v = p.at(k);
    if (std::holds_alternative<std::string>(v)) return {};
    double x = as_number(v);
    if (!(x > 0)) return {};
    out.push_back(std::log2(x));
  }
  return out;
}

/// The nearest-shape metric: the squared log2-space distance from the query
/// `q` to a measured shape with (at least) as many coordinates.
inline double squared_distance(const std::vector<double>& q, const std::vector<double>& shape) {
  double d2 = 0;
  for (std::size_t i = 0; i < q.size(); ++i) d2 += (q[i] - shape[i]) * (q[i] - shape[i]);
  return d2;
}

/// Combines hashes (boost-style, with a 64-bit odd constant): cheap, good
/// enough for the index's keys and the answer cache.
inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

/// One measured (GPU, problem) of a family version in one layer.
struct Entry {
  int device_index = -1;  // Lookup::Impl::device_index of `device`: integer compares in the scans
  std::string device, arch;
  int arch_num = 0;
  std::string problem_key;
  Problem problem;
  std::string shape_class;
  std::vector<std::string> shape_keys;
  std::vector<double> log_shape;  // log2 of shape_keys' values; empty if any is missing or <= 0
  // Per objective (index_of), best first; energy and edp hold only results with energy.
  std::array<std::vector<std::shared_ptr<const LookupAnswer>>, std::size(kObjectives)> candidates;
};

/// Key of FamilyIndex::by_class_arch.
inline std::string class_arch_key(const std::string& shape_class, const std::string& arch) {
  return shape_class + kSep + arch;
}

/// The entries of one family version in one layer.
struct FamilyIndex {
  std::vector<std::unique_ptr<Entry>> entries;
  std::unordered_map<std::string, std::vector<const Entry*>> by_problem;
  // class_arch_key -> entries sorted by log_shape[0] (those without a shape at the end)
  struct ClassGroup {
    std::vector<const Entry*> list;
    std::vector<std::string> shape_keys;  // shared by every entry when `uniform`
    bool uniform = true;
  };
  std::unordered_map<std::string, ClassGroup> by_class_arch;
  std::vector<std::string> shape_keys;  // as stored with the first problem that had them

  /// The entries that measured this problem (none: empty).
  const std::vector<const Entry*>& measured(const std::string& problem_key) const {
    static const std::vector<const Entry*> none;
    auto it = by_problem.find(problem_key);
    return it == by_problem.end() ? none : it->second;
  }
};

/// One database of the lookup's layers.
struct Layer {
  std::string path;
  std::map<std::pair<std::string, std::string>, FamilyIndex> families;  // (family, hash)
};

}  // namespace ktune::lookup_detail
