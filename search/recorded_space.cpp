// RecordedSpace readers (ktune, Kernel Tuner cache, T4), writer, the space
// rebuilt from recorded values, and the ReplayOracle.
#include "search/recorded_space.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "search/compressed_file.hpp"

namespace ktune {
namespace {

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw std::invalid_argument(source + ": " + what);
}

/// Median, min, max and p10-p90 spread of repetition times (seconds).
TimeStats stats_of(std::vector<double> times_s) {
  TimeStats t;
  times_s.erase(std::remove_if(times_s.begin(), times_s.end(),
                               [](double v) { return !(v > 0) || !std::isfinite(v); }),
                times_s.end());
  if (times_s.empty()) return t;
  std::sort(times_s.begin(), times_s.end());
  const std::size_t n = times_s.size();
  auto quantile = [&](double q) {
    const double pos = q * static_cast<double>(n - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, n - 1);
    return times_s[lo] + (pos - static_cast<double>(lo)) * (times_s[hi] - times_s[lo]);
  };
  t.median_s = quantile(0.5);
  t.min_s = times_s.front();
  t.max_s = times_s.back();
  t.spread = t.median_s > 0 ? (quantile(0.9) - quantile(0.1)) / t.median_s : 0;
  t.repetitions = static_cast<int>(n);
  return t;
}

/// A time recorded as one figure (no repetitions, or a median without min
/// and max) is its own min and max, so that every replayed time is ordered
/// min <= median <= max, as the database's import checks it.
void complete_single_time(TimeStats& t) {
  if (!(t.median_s > 0)) return;
  if (t.repetitions == 0) t.repetitions = 1;
  if (t.min_s == 0 && t.max_s == 0) t.min_s = t.max_s = t.median_s;
}

double unit_to_seconds(const std::string& unit) {
  if (unit.empty() || unit == "ms") return 1e-3;  // Kernel Tuner reports milliseconds
  if (unit == "s") return 1.0;
  if (unit == "us") return 1e-6;
  if (unit == "ns") return 1e-9;
  throw std::invalid_argument("unknown time unit '" + unit + "'");
}

/// Problem keys from Kernel Tuner's problem_size (a number, a list, or text).
Problem problem_from_size(const nlohmann::json& size) {
  Problem p;
  if (size.is_array()) {
    for (std::size_t i = 0; i < size.size(); ++i)
      if (size[i].is_primitive() && !size[i].is_null())
        p.set("size" + std::to_string(i), value_from_json(size[i]));
  } else if (size.is_primitive() && !size.is_null()) {
    p.set("size0", value_from_json(size));
  }
  return p;
}

bool is_integer(const Value& v) { return std::holds_alternative<std::int64_t>(v); }
bool is_real(const Value& v) { return std::holds_alternative<double>(v); }
bool is_text(const Value& v) { return std::holds_alternative<std::string>(v); }

}  // namespace

std::string_view to_string(RecordingFormat f) {
  switch (f) {
    case RecordingFormat::ktune: return "ktune";
    case RecordingFormat::kernel_tuner_cache: return "kernel_tuner_cache";
    case RecordingFormat::t4: return "t4";
  }
  return "unknown";
}

const Result* RecordedSpace::find(const Config& c) const {
  auto it = results.find(c.key());
  return it == results.end() ? nullptr : &it->second;
}

std::optional<Result> RecordedSpace::optimum() const {
  const Result* best = nullptr;
  for (const auto& [key, r] : results)
    if (r.ok() && (!best || r.time.median_s < best->time.median_s ||
                   (r.time.median_s == best->time.median_s && key < best->config.key())))
      best = &r;
  if (!best) return std::nullopt;
  return *best;
}

std::vector<Config> RecordedSpace::proposable() const {
  std::vector<std::pair<std::string, Config>> keyed;
  for (const auto& [key, r] : results)
    if (r.status != Status::invalid_config) keyed.emplace_back(key, r.config);
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Config> out;
  out.reserve(keyed.size());
  for (auto& [key, c] : keyed) out.push_back(std::move(c));
  return out;
}

std::map<std::string, std::size_t> RecordedSpace::status_counts() const {
  std::map<std::string, std::size_t> counts;
  for (const auto& [key, r] : results) ++counts[std::string(to_string(r.status))];
  return counts;
}

namespace {

/// Value positions of c, one per parameter of `params`. Throws
/// std::logic_error for a value that is not among its parameter's values.
std::vector<ValueIndex> recorded_positions(const std::vector<Parameter>& params, const Config& c) {
  std::vector<ValueIndex> row(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto at = params[i].index_of(c.at(params[i].name()));
    if (!at)
      throw std::logic_error("recorded space: a recorded value of '" + params[i].name() +
                             "' is not among its values");
    row[i] = static_cast<ValueIndex>(*at);
  }
  return row;
}

/// The recorded configurations as a trie of value positions, for the
/// membership constraints of a rebuilt space. Level i holds one node per
/// recorded prefix names[0..i], in lexicographic order, so the children of
/// a node are contiguous and sorted by position: a check walks down from
/// the root by binary search in small sorted runs. Listing the
/// 18k-configuration gemm spaces runs these checks some 10^5 times, each
/// walking up to 15 levels: text keys cost an allocation and a formatted
/// number per knob, hash maps a hashed lookup per knob (most of the first
/// proposal's listing of the space).
class RecordedPrefixes {
 public:
  /// `rows` are the value positions of the recorded configurations (one per
  /// parameter, in `params` order); repeats are harmless.
  RecordedPrefixes(std::vector<Parameter> params, std::vector<std::vector<ValueIndex>> rows)
      : params_(std::move(params)), first_(params_.size()), position_(params_.size()) {
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    if (!first_.empty()) first_[0].push_back(0);  // the root's children start at 0
    const std::vector<ValueIndex>* previous = nullptr;
    for (const auto& row : rows) {
      // The first level where this row leaves the previous one's path.
      std::size_t d = 0;
      if (previous)
        while ((*previous)[d] == row[d]) ++d;
      for (std::size_t i = d; i < row.size(); ++i) {
        // A node made at level i - 1 by this row has its first child here.
        if (i > d) first_[i].push_back(static_cast<std::uint32_t>(position_[i].size()));
        position_[i].push_back(row[i]);
      }
      previous = &row;
    }
    for (std::size_t i = 0; i < first_.size(); ++i)
      first_[i].push_back(static_cast<std::uint32_t>(position_[i].size()));
  }

  /// Whether the values `a` binds to names[0..level] begin a recorded
  /// configuration (the constraint declares names[0..level], in order).
  bool contains(const Assignment& a, std::size_t level) const {
    std::size_t node = 0;  // the root, then the node of the prefix so far
    for (std::size_t i = 0; i <= level; ++i) {
      std::optional<std::size_t> at = a.declared_position(i);
      if (!at) at = params_[i].index_of(a.get(params_[i].name()));
      if (!at) return false;
      const auto begin = position_[i].begin() + first_[i][node];
      const auto end = position_[i].begin() + first_[i][node + 1];
      const auto it = std::lower_bound(begin, end, *at);
      if (it == end || *it != *at) return false;
      node = static_cast<std::size_t>(it - position_[i].begin());
    }
    return true;
  }

 private:
  std::vector<Parameter> params_;
  /// Per level i, the children of node n of level i - 1 (the root for i = 0)
  /// are nodes first_[i][n] .. first_[i][n + 1] - 1 of level i.
  std::vector<std::vector<std::uint32_t>> first_;
  /// Per level i, the value position of names[i] at each node.
  std::vector<std::vector<ValueIndex>> position_;
};

}  // namespace

Space space_from_recorded(std::vector<Result>& results, const std::vector<std::string>& parameter_order) {
  // Names and recorded values of every parameter.
  std::vector<std::string> names = parameter_order;
  std::set<std::string> seen_names(names.begin(), names.end());
  for (const auto& r : results)
    for (const auto& [name, v] : r.config)
      if (seen_names.insert(name).second) names.push_back(name);
  if (names.empty()) throw std::invalid_argument("recorded space: no parameters in the recorded configurations");

  // A parameter that mixes integers and reals becomes real everywhere.
  for (const auto& name : names) {
    bool any_real = false, any_int = false;
    for (const auto& r : results)
      if (r.config.contains(name)) {
        any_real |= is_real(r.config.at(name));
        any_int |= is_integer(r.config.at(name));
      }
    if (any_real && any_int)
      for (auto& r : results)
        if (r.config.contains(name) && is_integer(r.config.at(name)))
          r.config.set(name, static_cast<double>(std::get<std::int64_t>(r.config.at(name))));
  }

  Space space;
  std::set<std::string> boolean_names;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto& name = names[i];
    std::vector<Value> numbers;
    std::vector<std::string> texts;
    bool all_bool = true;
    for (const auto& r : results) {
      if (r.status == Status::invalid_config) continue;
      if (!r.config.contains(name))
        throw std::invalid_argument("recorded space: configuration '" + r.config.key() +
                                    "' has no value for parameter '" + name + "'");
      const Value& v = r.config.at(name);
      all_bool &= std::holds_alternative<bool>(v);
      if (is_text(v))
        texts.push_back(std::get<std::string>(v));
      else
        numbers.push_back(std::holds_alternative<bool>(v) ? Value(std::int64_t(std::get<bool>(v))) : v);
    }
    if (all_bool && !numbers.empty()) {
      // A knob recorded only as true/false stays boolean, so that replayed
      // configurations keep the keys the GPU path stores.
      bool first = std::get<std::int64_t>(numbers.front()) != 0;
      space.add(Parameter::boolean(name, first, "recorded values"));
      boolean_names.insert(name);
      continue;
    }
    if (!texts.empty() && !numbers.empty())
      throw std::invalid_argument("recorded space: parameter '" + name + "' mixes text and numbers");
    if (!texts.empty()) {
      std::sort(texts.begin(), texts.end());
      texts.erase(std::unique(texts.begin(), texts.end()), texts.end());
      space.add(Parameter::categorical(name, texts, texts.front(), "recorded values"));
    } else {
      std::sort(numbers.begin(), numbers.end(),
                [](const Value& a, const Value& b) { return as_number(a) < as_number(b); });
      numbers.erase(std::unique(numbers.begin(), numbers.end(),
                                [](const Value& a, const Value& b) { return as_number(a) == as_number(b); }),
                    numbers.end());
      if (numbers.empty())
        throw std::invalid_argument("recorded space: parameter '" + name + "' has no recorded value");
      space.add(Parameter::list(name, numbers, numbers.front(), "recorded values"));
    }
  }
  // Booleans mixed with numbers were recorded as 0/1 above; store the
  // configurations the same way.
  for (auto& r : results)
    for (const auto& name : names)
      if (!boolean_names.count(name) && r.config.contains(name) &&
          std::holds_alternative<bool>(r.config.at(name)))
        r.config.set(name, std::int64_t(std::get<bool>(r.config.at(name))));

  // Membership: one constraint per prefix names[0..i], so that listing the
  // space prunes as soon as a prefix was never recorded.
  std::vector<Parameter> params;
  for (const auto& name : names) params.push_back(space.parameter(name));
  std::vector<std::vector<ValueIndex>> rows;
  for (const auto& r : results)
    if (r.status != Status::invalid_config) rows.push_back(recorded_positions(params, r.config));
  auto prefixes = std::make_shared<const RecordedPrefixes>(std::move(params), std::move(rows));
  for (std::size_t level = 0; level < names.size(); ++level) {
    std::vector<std::string> used(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(level) + 1);
    const bool full = level + 1 == names.size();
    space.require(full ? "recorded configuration" : "prefix of a recorded configuration", used,
                  [prefixes, level](const Assignment& a) { return prefixes->contains(a, level); });
  }
  return space;
}

namespace {

void add_results(RecordedSpace& rs, std::vector<Result> results, const std::vector<std::string>& order,
                 bool rebuild_space) {
  if (rebuild_space) {
    rs.space = space_from_recorded(results, order);
    rs.restricted_to_recorded = true;
  }
  for (auto& r : results) {
    std::string key = r.config.key();
    rs.results.insert_or_assign(std::move(key), std::move(r));
  }
}

}  // namespace

RecordedSpace read_ktune_recording(const nlohmann::json& j, const std::string& source) {
  if (j.value("format", std::string()) != "ktune-recorded-space")
    fail(source, "not a ktune recording (\"format\" is not \"ktune-recorded-space\")");
  const int version = j.value("version", 0);
  if (version != 1) fail(source, "unsupported ktune recording version " + std::to_string(version) + " (expected 1)");
  RecordedSpace rs;
  rs.format = RecordingFormat::ktune;
  rs.source = source;
  try {
    rs.family = j.at("family").get<std::string>();
    rs.problem = j.contains("problem") ? ValueMap::from_json(j.at("problem")) : Problem{};
    if (j.contains("device")) {
      const auto& d = j.at("device");
      if (d.is_string()) {
        rs.device_name = d.get<std::string>();
      } else if (d.is_object()) {
        rs.device_name = d.value("name", std::string());
        if (d.size() > 1) rs.device = DeviceSpec::from_json(d);
      }
    }
    rs.provenance = j.value("provenance", nlohmann::json::object());
    rs.restricted_to_recorded = j.value("restrict_to_recorded", false);
    std::vector<Result> results;
    for (const auto& rj : j.at("results")) {
      results.push_back(result_from_json(rj));
      complete_single_time(results.back().time);
    }
    if (rs.restricted_to_recorded) {
      std::vector<std::string> order;
      if (j.contains("space") && j.at("space").contains("parameters"))
        for (const auto& p : j.at("space").at("parameters"))
          if (p.contains("name")) order.push_back(p.at("name").get<std::string>());
      add_results(rs, std::move(results), order, true);
    } else {
      rs.space = Space::from_json(j.at("space"));
      add_results(rs, std::move(results), {}, false);
    }
  } catch (const nlohmann::json::exception& e) {
    fail(source, std::string("malformed ktune recording: ") + e.what());
  } catch (const SpaceError& e) {
    fail(source, std::string("bad space in ktune recording: ") + e.what());
  } catch (const std::invalid_argument& e) {
    fail(source, e.what());
  }
  return rs;
}

RecordedSpace read_kernel_tuner_cache(const nlohmann::json& j, const std::string& source) {
  if (!j.contains("tune_params_keys") || !j.contains("cache"))
    fail(source, "not a Kernel Tuner cache file (needs \"tune_params_keys\" and \"cache\")");
  RecordedSpace rs;
  rs.format = RecordingFormat::kernel_tuner_cache;
  rs.source = source;
  std::vector<Result> results;
  try {
    rs.family = j.value("kernel_name", std::string("unknown"));
    rs.device_name = j.value("device_name", std::string());
    if (j.contains("problem_size")) rs.problem = problem_from_size(j.at("problem_size"));
    for (const char* key : {"schema_version", "objective", "objective_higher_is_better"})
      if (j.contains(key)) rs.provenance[key] = j.at(key);
    const auto keys = j.at("tune_params_keys").get<std::vector<std::string>>();
    for (const auto& [cache_key, rec] : j.at("cache").items()) {
      Result r;
      // Parameter values: from the record when it has them, else from the key "v1,v2,...".
      std::vector<std::string> parts;
      {
        std::stringstream ss(cache_key);
        std::string item;
        while (std::getline(ss, item, ',')) parts.push_back(item);
      }
      for (std::size_t i = 0; i < keys.size(); ++i) {
        if (rec.contains(keys[i]) && rec.at(keys[i]).is_primitive() && !rec.at(keys[i]).is_null())
          r.config.set(keys[i], value_from_json(rec.at(keys[i])));
        else if (i < parts.size())
          r.config.set(keys[i], value_from_text(parts[i]));
        else
          fail(source, "cache entry '" + cache_key + "' has no value for '" + keys[i] + "'");
      }
      const auto& time = rec.at("time");
      if (time.is_string()) {
        const auto text = time.get<std::string>();
        if (text == "InvalidConfig")
          r.status = Status::invalid_config;
        else if (text == "CompilationFailedConfig")
          r.status = Status::compile_error;
        else if (text == "RuntimeFailedConfig")
          r.status = Status::launch_error;
        else
          r.status = Status::launch_error;
        r.message = "Kernel Tuner: " + text;
      } else if (time.is_number() && std::isfinite(time.get<double>()) && time.get<double>() > 0 &&
                 time.get<double>() < 1e20) {
        r.status = Status::ok;
        std::vector<double> reps;
        if (rec.contains("times") && rec.at("times").is_array())
          for (const auto& t : rec.at("times"))
            if (t.is_number()) reps.push_back(t.get<double>() * 1e-3);
        r.time = stats_of(reps);
        // The file's "time" (mean of repetitions in ms) is what Kernel Tuner
        // compares; it is the figure ktune replays.
        r.time.median_s = time.get<double>() * 1e-3;
        complete_single_time(r.time);
        if (rec.contains("GFLOP/s") && rec.at("GFLOP/s").is_number())
          r.tflops = rec.at("GFLOP/s").get<double>() / 1000.0;
        if (rec.contains("GB/s") && rec.at("GB/s").is_number()) r.gbps = rec.at("GB/s").get<double>();
      } else {
        r.status = Status::launch_error;
        r.message = "Kernel Tuner: unusable time " + time.dump();
      }
      results.push_back(std::move(r));
    }
    if (results.empty()) fail(source, "Kernel Tuner cache has no entries");
    add_results(rs, std::move(results), keys, true);
  } catch (const nlohmann::json::exception& e) {
    fail(source, std::string("malformed Kernel Tuner cache: ") + e.what());
  } catch (const SpaceError& e) {
    fail(source, e.what());
  }
  return rs;
}

RecordedSpace read_t4_results(const nlohmann::json& j, const std::string& source) {
  if (!j.contains("results") || !j.at("results").is_array())
    fail(source, "not a T4 results file (needs a \"results\" list)");
  RecordedSpace rs;
  rs.format = RecordingFormat::t4;
  rs.source = source;
  rs.family = std::filesystem::path(source).stem().string();
  if (j.contains("schema_version")) rs.provenance["schema_version"] = j.at("schema_version");
  std::vector<Result> results;
  std::vector<std::string> order;
  try {
    for (const auto& e : j.at("results")) {
      Result r;
      for (const auto& [name, v] : e.at("configuration").items()) {
        r.config.set(name, value_from_json(v));
        if (results.empty()) order.push_back(name);
      }
      const std::string invalidity = e.value("invalidity", std::string("correct"));
      if (invalidity == "correct")
        r.status = Status::ok;
      else if (invalidity == "compile")
        r.status = Status::compile_error;
      else if (invalidity == "runtime")
        r.status = Status::launch_error;
      else if (invalidity == "timeout")
        r.status = Status::timeout;
      else if (invalidity == "correctness")
        r.status = Status::wrong_result;
      else if (invalidity == "constraints")
        r.status = Status::invalid_config;
      else
        fail(source, "unknown invalidity '" + invalidity + "'");
      if (r.status != Status::ok) r.message = "T4 invalidity: " + invalidity;
      if (r.ok()) {
        std::optional<double> time_s;
        if (e.contains("measurements"))
          for (const auto& m : e.at("measurements"))
            if (m.value("name", std::string()) == "time" && m.contains("value") && m.at("value").is_number())
              time_s = m.at("value").get<double>() * unit_to_seconds(m.value("unit", std::string()));
        std::vector<double> reps;
        if (e.contains("times") && e.at("times").contains("runtimes"))
          for (const auto& t : e.at("times").at("runtimes"))
            if (t.is_number()) reps.push_back(t.get<double>() * 1e-3);
        r.time = stats_of(reps);
        if (time_s) r.time.median_s = *time_s;
        if (!(r.time.median_s > 0)) {
          r.status = Status::launch_error;
          r.message = "T4: correct but no usable time";
        } else {
          complete_single_time(r.time);
        }
      }
      results.push_back(std::move(r));
    }
    if (results.empty()) fail(source, "T4 file has no results");
    add_results(rs, std::move(results), order, true);
  } catch (const nlohmann::json::exception& e) {
    fail(source, std::string("malformed T4 results: ") + e.what());
  } catch (const SpaceError& e) {
    fail(source, e.what());
  }
  return rs;
}

RecordedSpace recorded_space_from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) fail(source, "expected a JSON object");
  if (j.contains("format")) return read_ktune_recording(j, source);
  if (j.contains("tune_params_keys") && j.contains("cache")) return read_kernel_tuner_cache(j, source);
  if (j.contains("results") && j.at("results").is_array()) return read_t4_results(j, source);
  fail(source, "unknown recording format (expected a ktune recording, a Kernel Tuner cache file or T4 results)");
}

RecordedSpace read_recorded_space(const std::filesystem::path& path) {
  std::string text = read_possibly_gzipped(path);
  // Kernel Tuner leaves a cache file open-ended (no closing braces) while it
  // is still tuning; close it the way Kernel Tuner itself does when reading.
  auto last = text.find_last_not_of(" \t\r\n");
  if (last != std::string::npos && text[last] == ',') text.erase(last);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    j = nlohmann::json::parse(text + "}}", nullptr, false);
    if (j.is_discarded()) throw std::invalid_argument(path.string() + ": not valid JSON");
  }
  return recorded_space_from_json(j, path.string());
}

nlohmann::json to_json(const RecordedSpace& r) {
  nlohmann::json j;
  j["format"] = "ktune-recorded-space";
  j["version"] = 1;
  j["family"] = r.family;
  j["problem"] = r.problem.to_json();
  j["device"] = r.device ? r.device->to_json() : nlohmann::json{{"name", r.device_name}};
  if (r.device && j["device"].value("name", std::string()).empty()) j["device"]["name"] = r.device_name;
  j["source_format"] = std::string(to_string(r.format));
  j["provenance"] = r.provenance;
  j["restrict_to_recorded"] = r.restricted_to_recorded;
  j["space"] = r.space.to_json();
  std::vector<std::pair<std::string, const Result*>> sorted;
  for (const auto& [key, res] : r.results) sorted.emplace_back(key, &res);
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  nlohmann::json results = nlohmann::json::array();
  for (const auto& [key, res] : sorted) results.push_back(result_to_json(*res));
  j["results"] = std::move(results);
  return j;
}

void write_recorded_space(const RecordedSpace& r, const std::filesystem::path& path) {
  nlohmann::json j = to_json(r);
  std::ofstream out(path);
  if (!out) throw std::runtime_error(path.string() + ": cannot write recorded space");
  // One result per line keeps large recordings diffable and greppable.
  nlohmann::json head = j;
  head.erase("results");
  std::string head_text = head.dump(1);
  head_text.pop_back();  // drop the closing brace
  while (!head_text.empty() && (head_text.back() == '\n' || head_text.back() == ' ')) head_text.pop_back();
  out << head_text << ",\n \"results\": [\n";
  const auto& results = j["results"];
  for (std::size_t i = 0; i < results.size(); ++i)
    out << "  " << results[i].dump() << (i + 1 < results.size() ? ",\n" : "\n");
  out << " ]\n}\n";
  if (!out) throw std::runtime_error(path.string() + ": write failed");
}

ReplayOracle::ReplayOracle(std::shared_ptr<const RecordedSpace> recording) : recording_(std::move(recording)) {
  if (!recording_) throw std::invalid_argument("ReplayOracle: no recording given");
}

bool ReplayOracle::recorded(const Config& c) const { return recording_->find(c) != nullptr; }

Result ReplayOracle::evaluate(const Config& c) const {
  if (const Result* r = recording_->find(c)) return *r;
  Result r;
  r.config = c;
  r.status = Status::invalid_config;
  r.message = std::string(kNotRecorded);
  return r;
}

std::vector<Result> ReplayOracle::evaluate(std::span<const Config> configs) const {
  std::vector<Result> out;
  out.reserve(configs.size());
  for (const auto& c : configs) out.push_back(evaluate(c));
  return out;
}

}  // namespace ktune
