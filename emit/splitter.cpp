// Kernel splitter: groups shapes, picks a general and per-group specialized
// configurations from measured times, and emits the dispatch.
#include "emit/splitter.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "kernels_templated/rowwise/shape_group.hpp"

namespace ktune {
namespace {

// Verified median time of every configuration on one shape, by config key.
using TimeTable = std::unordered_map<std::string, double>;

TimeTable times_of(const ShapeTuning& s) {
  TimeTable t;
  for (const Result& r : s.results) {
    if (!r.ok() || !(r.time.median_s > 0)) continue;
    auto [it, inserted] = t.emplace(r.config.key(), r.time.median_s);
    if (!inserted)
      it->second = std::min(it->second, r.time.median_s);  // re-measured: keep the best
  }
  return t;
}

struct Choice {
  std::string key;
  double mean_log = std::numeric_limits<double>::infinity();
};

// The configuration with the smallest geometric-mean time over `members`,
// among those verified on every one of them; ties go to the smaller key so
// the result does not depend on input order.
Choice best_over(const std::vector<std::size_t>& members, const std::vector<TimeTable>& tables) {
  Choice best;
  if (members.empty()) return best;
  std::set<std::string> candidates;
  for (const auto& [key, t] : tables[members.front()]) candidates.insert(key);
  for (const std::string& key : candidates) {
    double sum = 0;
    bool everywhere = true;
    for (std::size_t m : members) {
      auto it = tables[m].find(key);
      if (it == tables[m].end()) {
        everywhere = false;
        break;
      }
      sum += std::log(it->second);
    }
    if (!everywhere) continue;
    const double mean = sum / static_cast<double>(members.size());
    if (mean < best.mean_log || (mean == best.mean_log && key < best.key)) best = {key, mean};
  }
  return best;
}

double geomean_log_time(const std::string& key, const std::vector<std::size_t>& members,
                        const std::vector<TimeTable>& tables) {
  double sum = 0;
  for (std::size_t m : members) sum += std::log(tables[m].at(key));
  return sum / static_cast<double>(members.size());
}

std::string best_key_of(const TimeTable& t) {
  std::string best;
  double time = std::numeric_limits<double>::infinity();
  for (const auto& [key, s] : t)
    if (s < time || (s == time && key < best)) best = key, time = s;
  return best;
}

std::string cpp_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string identifier(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out.empty() ? std::string("family") : out;
}

}  // namespace

Grouping rowwise_grouping() {
  Grouping g;
  g.key = [](const Problem& p) { return rowwise::group_key(p); };
  g.cpp_key_function = rowwise::group_key_cpp();
  return g;
}

const Config& Dispatch::select(const Problem& p) const {
  const std::string group = grouping.key(p);
  for (const DispatchRoute& r : routes)
    if (r.group == group) return r.config;
  return general;
}

Dispatch split_kernels(std::string family, std::span<const ShapeTuning> shapes,
                       const Grouping& grouping) {
  if (shapes.empty()) throw std::invalid_argument("kernel splitter: no shapes given");
  if (!grouping.key)
    throw std::invalid_argument("kernel splitter: the grouping has no key function");
  std::vector<TimeTable> tables;
  std::map<std::string, Config> configs;  // key -> configuration
  for (const ShapeTuning& s : shapes) {
    tables.push_back(times_of(s));
    for (const Result& r : s.results) configs.emplace(r.config.key(), r.config);
  }

  std::vector<std::size_t> all(shapes.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const Choice general = best_over(all, tables);
  if (general.key.empty())
    throw std::invalid_argument(
        "kernel splitter (" + family + "): no configuration is verified (status ok) on all " +
        std::to_string(shapes.size()) + " shapes, so there is no general fallback");

  Dispatch d;
  d.family = std::move(family);
  d.general = configs.at(general.key);
  d.shapes = shapes.size();
  d.grouping = grouping;

  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < shapes.size(); ++i)
    groups[grouping.key(shapes[i].problem)].push_back(i);

  std::vector<std::string> chosen(shapes.size(), general.key);
  for (const auto& [group, members] : groups) {
    const Choice special = best_over(members, tables);
    if (special.key.empty()) {
      d.rejected.push_back({group, "no configuration is verified on every shape of the group"});
      continue;
    }
    if (special.key == general.key) {
      d.rejected.push_back({group, "the general configuration is already the group's best"});
      continue;
    }
    const double general_log = geomean_log_time(general.key, members, tables);
    if (special.mean_log >
        general_log) {  // cannot happen with exact minima; kept as the adoption rule
      d.rejected.push_back({group, "slower than the general configuration on the group"});
      continue;
    }
    DispatchRoute route;
    route.group = group;
    route.config = configs.at(special.key);
    route.speedup = std::exp(general_log - special.mean_log);
    std::size_t agree = 0;
    for (std::size_t m : members) {
      route.shapes.push_back(shapes[m].problem);
      if (best_key_of(tables[m]) == special.key) ++agree;
      chosen[m] = special.key;
    }
    route.agreement = static_cast<double>(agree) / static_cast<double>(members.size());
    d.routes.push_back(std::move(route));
  }

  double sum = 0;
  for (std::size_t i = 0; i < shapes.size(); ++i)
    sum += std::log(tables[i].at(general.key)) - std::log(tables[i].at(chosen[i]));
  d.geomean_speedup = std::exp(sum / static_cast<double>(shapes.size()));
  return d;
}

std::string Dispatch::header_text() const {
  const std::string ns = "ktune_dispatch_" + identifier(family);
  std::ostringstream h;
  h << "// Generated by ktune's kernel splitter: routes a " << family
    << " problem to a tuned configuration key.\n"
    << "// " << routes.size() << " specialized route(s) over " << shapes
    << " shapes; geometric-mean speedup over the general configuration: " << geomean_speedup << "\n"
    << "#pragma once\n\n#include <string>\n#include <string_view>\n\nnamespace " << ns << " {\n\n"
    << grouping.cpp_key_function << "\n\n"
    << "struct Route {\n  const char* group;\n  const char* config;\n};\n\n"
    << "inline constexpr const char* kGeneral = " << cpp_string(general.key()) << ";\n\n";
  if (routes.empty()) {
    h << "inline constexpr Route kRoutes[1] = {{\"\", kGeneral}};  // no specialization "
         "adopted\n\n";
  } else {
    h << "inline constexpr Route kRoutes[] = {\n";
    for (const DispatchRoute& r : routes)
      h << "    {" << cpp_string(r.group) << ", " << cpp_string(r.config.key()) << "},  // "
        << r.shapes.size() << " shape(s), " << r.speedup << "x\n";
    h << "};\n\n";
  }
  h << "/// The configuration key for a problem; the general configuration when no route matches.\n"
    << "inline const char* select(std::string_view dtype, std::string_view axis, long long rows, "
       "long long cols) {\n"
    << "  const std::string group = group_key(dtype, axis, rows, cols);\n"
    << "  for (const Route& r : kRoutes)\n"
    << "    if (group == r.group) return r.config;\n"
    << "  return kGeneral;\n"
    << "}\n\n}  // namespace " << ns << "\n";
  return h.str();
}

nlohmann::json Dispatch::to_json() const {
  nlohmann::json j;
  j["family"] = family;
  j["general"] = general.to_json();
  j["shapes"] = shapes;
  j["geomean_speedup"] = geomean_speedup;
  j["routes"] = nlohmann::json::array();
  for (const DispatchRoute& r : routes) {
    nlohmann::json rj = {{"group", r.group},
                         {"config", r.config.to_json()},
                         {"speedup", r.speedup},
                         {"agreement", r.agreement}};
    rj["shapes"] = nlohmann::json::array();
    for (const Problem& p : r.shapes) rj["shapes"].push_back(p.key());
    j["routes"].push_back(std::move(rj));
  }
  j["rejected"] = nlohmann::json::array();
  for (const RejectedGroup& g : rejected)
    j["rejected"].push_back({{"group", g.group}, {"reason", g.reason}});
  return j;
}

}  // namespace ktune
