// Exchange formats: JSON Lines and T4 records, the all-or-nothing parsers and
// the writers of every format (CSV in exchange_csv.cpp, strict JSON reading in
// exchange_json.cpp, the content checks in exchange_checks.cpp).
#include "db/exchange.hpp"

#include <istream>
#include <iterator>
#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "db/exchange_detail.hpp"
#include "db/store_impl.hpp"

namespace ktune {

using namespace exchange_detail;

namespace {

constexpr const char* kJsonlTag = "ktune.measurement";
constexpr int kJsonlVersion = 1;

// ---- JSON Lines -----------------------------------------------------------------

json provenance_to_json(const Provenance& p) {
  return {{"host", p.host},
          {"tool_version", p.tool_version},
          {"source", p.source},
          {"measured_at", p.measured_at}};
}

Provenance provenance_from_json(const json& j) {
  Provenance p;
  p.host = j.value("host", "");
  p.tool_version = j.value("tool_version", "");
  p.source = j.value("source", "");
  p.measured_at = j.at("measured_at").get<std::string>();
  if (p.measured_at.empty()) throw std::invalid_argument("'provenance.measured_at' is empty");
  return p;
}

// ---- T4 ---------------------------------------------------------------------------

std::string_view t4_invalidity(Status s) {
  switch (s) {
    case Status::ok:
      return "correct";
    case Status::wrong_result:
      return "correctness";
    case Status::compile_error:
      return "compile";
    case Status::launch_error:
      return "runtime";
    case Status::timeout:
      return "timeout";
    case Status::invalid_config:
      return "constraints";
  }
  return "runtime";
}

json t4_result(const Measurement& m) {
  const Result& r = m.result;
  json measurements = json::array();
  measurements.push_back({{"name", "time"}, {"value", r.time.median_s * 1e3}, {"unit", "ms"}});
  if (r.tflops > 0)
    measurements.push_back({{"name", "tflops"}, {"value", r.tflops}, {"unit", "TFLOP/s"}});
  if (r.gbps > 0) measurements.push_back({{"name", "gbps"}, {"value", r.gbps}, {"unit", "GB/s"}});
  json times = json::object();
  if (r.ok()) times["runtimes"] = json::array({r.time.median_s * 1e3});
  return {
      {"timestamp", m.provenance.measured_at},
      {"configuration", r.config.to_json()},
      {"objectives", json::array({"time"})},
      {"times", times},
      {"invalidity", t4_invalidity(r.status)},
      {"correctness", r.ok() ? 1.0 : 0.0},
      {"measurements", measurements},
      // T4 has no place for the problem, device and kernel version; ktune
      // keeps the lossless record beside the standard fields.
      {"ktune", measurement_to_json(m)},
  };
}

int line_of_offset(const std::string& text, std::size_t offset) {
  int line = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return line;
}

}  // namespace

ImportError::ImportError(int l, const std::string& what)
    : std::invalid_argument("line " + std::to_string(l) + ": " + what), line(l) {}

std::string_view to_string(ExchangeFormat f) {
  switch (f) {
    case ExchangeFormat::jsonl:
      return "jsonl";
    case ExchangeFormat::csv:
      return "csv";
    case ExchangeFormat::t4:
      return "t4";
  }
  return "unknown";
}

ExchangeFormat exchange_format_from_string(std::string_view text) {
  if (text == "jsonl") return ExchangeFormat::jsonl;
  if (text == "csv") return ExchangeFormat::csv;
  if (text == "t4") return ExchangeFormat::t4;
  throw std::invalid_argument("unknown format '" + std::string(text) +
                              "' (accepted: jsonl, csv, t4)");
}

ExchangeFormat exchange_format_for_path(const std::string& path) {
  auto ends = [&](std::string_view s) {
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  if (ends(".jsonl") || ends(".ndjson")) return ExchangeFormat::jsonl;
  if (ends(".csv")) return ExchangeFormat::csv;
  if (ends(".json") || ends(".t4")) return ExchangeFormat::t4;
  throw std::invalid_argument("cannot tell the format of '" + path +
                              "' from its name (.jsonl, .csv or .json for T4): pass --format");
}

json measurement_to_json(const Measurement& m) {
  return {
      {"ktune", kJsonlTag},
      {"version", kJsonlVersion},
      {"device", m.key.device.to_json()},
      {"family", m.key.family},
      {"family_hash", m.key.family_hash},
      {"problem", m.key.problem.to_json()},
      {"shape_class", m.key.shape_class},
      {"shape_keys", m.key.shape_keys},
      {"result", result_to_json(m.result)},
      {"provenance", provenance_to_json(m.provenance)},
  };
}

namespace {

// The JSON type of each field is the type export writes it with: the written
// form of a measurement is the schema, so a field added to the writer is
// checked on import too. A value of another type is refused naming its field
// (a bare JSON type error would name neither field nor value).
const json& written_form() {
  static const json form = [] {
    Measurement m;
    m.key.shape_keys = {"m"};       // an element to type the array's elements by
    m.result.deterministic = true;  // written as true or false (null, unknown, is accepted too)
    return measurement_to_json(m);
  }();
  return form;
}

const char* kind_text(const json& written) {
  if (written.is_string()) return "a string";
  if (written.is_number()) return "a number";
  if (written.is_boolean()) return "true or false";
  if (written.is_array()) return "an array";
  return "an object";
}

bool same_kind(const json& given, const json& written) {
  return (written.is_string() && given.is_string()) || (written.is_number() && given.is_number()) ||
         (written.is_boolean() && given.is_boolean()) || (written.is_array() && given.is_array()) ||
         (written.is_object() && given.is_object());
}

void check_types(const json& given, const json& written, const std::string& path) {
  for (auto it = written.begin(); it != written.end(); ++it) {
    if (!given.contains(it.key())) continue;  // absent fields: the readers' defaults or errors
    const json& v = given.at(it.key());
    const std::string field = path.empty() ? it.key() : path + "." + it.key();
    if (v.is_null() && field == "result.deterministic") continue;
    if (!same_kind(v, *it))
      throw std::invalid_argument("'" + field + "': " + v.dump() + " is not " + kind_text(*it));
    // problem, result.config and result.metrics are free-form maps, read by their own readers.
    if (it->is_object() && !it->empty()) check_types(v, *it, field);
    if (it->is_array())
      for (std::size_t i = 0; i < v.size(); ++i)
        if (!same_kind(v[i], it->front()))
          throw std::invalid_argument("'" + field + "[" + std::to_string(i) + "]': " + v[i].dump() +
                                      " is not " + kind_text(it->front()));
  }
}

}  // namespace

Measurement measurement_from_json(const json& j) {
  if (!j.is_object()) throw std::invalid_argument("expected a JSON object");
  check_types(j, written_form(), "");
  if (j.value("ktune", "") != kJsonlTag)
    throw std::invalid_argument(std::string("not a ktune measurement (no \"ktune\": \"") +
                                kJsonlTag + "\")");
  if (j.value("version", 0) != kJsonlVersion)
    throw std::invalid_argument("unsupported measurement version " +
                                j.value("version", json()).dump());
  Measurement m;
  try {
    check_integers(j.at("problem"), "problem");
    const json& result = j.at("result");
    if (result.is_object()) {
      if (result.contains("config")) check_integers(result.at("config"), "result.config");
      if (result.contains("time"))
        check_count(result.at("time"), "repetitions", "result.time.repetitions");
    }
    m.key.device = device_from_json(j.at("device"));
    m.key.family = j.at("family").get<std::string>();
    m.key.family_hash = j.at("family_hash").get<std::string>();
    m.key.problem = ValueMap::from_json(j.at("problem"));
    m.key.shape_class = j.value("shape_class", "");
    m.key.shape_keys = j.value("shape_keys", std::vector<std::string>{});
    m.result = result_from_json(j.at("result"));
    m.provenance = provenance_from_json(j.at("provenance"));
  } catch (const json::exception& e) {
    throw std::invalid_argument(e.what());
  }
  return m;
}

std::int64_t export_measurements(const Store& store, std::ostream& out, ExchangeFormat format,
                                 const std::string& measured_since) {
  std::int64_t n = 0;
  if (format == ExchangeFormat::csv) {
    write_csv_header(out);
  } else if (format == ExchangeFormat::t4) {
    out << "{\"schema_version\": \"1.0.0\",\n\"results\": [";
  }
  store.for_each(
      [&](const Measurement& m) {
        switch (format) {
          case ExchangeFormat::jsonl:
            out << measurement_to_json(m).dump() << "\n";
            break;
          case ExchangeFormat::t4:
            out << (n ? ",\n" : "\n") << t4_result(m).dump();
            break;
          case ExchangeFormat::csv:
            write_csv_row(out, m);
            break;
        }
        ++n;
        return true;
      },
      measured_since);
  if (format == ExchangeFormat::t4) out << "\n]}\n";
  return n;
}

std::vector<Measurement> parse_measurements(std::istream& in, ExchangeFormat format,
                                            const ImportOptions& options) {
  std::vector<Measurement> out;
  // Every record passes the same checks, in every format.
  auto add = [&](Measurement m) {
    check_measurement(m);
    if (options.validate) options.validate(m);
    out.push_back(std::move(m));
  };
  if (format == ExchangeFormat::jsonl) {
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      check_record_size(number, line.size());
      try {
        add(measurement_from_json(parse_strict(line)));
      } catch (const std::exception& e) {
        throw ImportError(number, e.what());
      }
    }
    if (number == 0) throw ImportError(1, "the file is empty (0 bytes): no measurement to import");
    return out;
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.empty()) throw ImportError(1, "the file is empty (0 bytes): no measurement to import");
  if (format == ExchangeFormat::csv) {
    parse_csv_measurements(text, add);
    return out;
  }
  // T4: one document; errors name the line of the offending result.
  json doc;
  std::optional<StrictJsonError> refused;
  try {
    doc = parse_strict(text);
  } catch (const json::parse_error& e) {
    throw ImportError(line_of_offset(text, e.byte), e.what());
  } catch (const StrictJsonError& e) {
    refused = e;  // reported with the line of its result, found below
  }
  if (!refused && (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array()))
    throw ImportError(1, "not a T4 results document (no \"results\" array)");
  // Results are written one per line; find each one's line for messages.
  std::vector<int> lines;
  {
    int line = 1;
    int depth = 0;
    bool in_string = false, escaped = false, in_results = false;
    std::size_t results_pos = text.find("\"results\"");
    for (std::size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      if (c == '\n') ++line;
      if (in_string) {
        if (escaped)
          escaped = false;
        else if (c == '\\')
          escaped = true;
        else if (c == '"')
          in_string = false;
        continue;
      }
      if (c == '"') {
        in_string = true;
        continue;
      }
      if (i > results_pos && !in_results && c == '[') {
        in_results = true;
        depth = 0;
        continue;
      }
      if (!in_results) continue;
      if (c == '{' || c == '[') {
        if (depth == 0 && c == '{') lines.push_back(line);
        ++depth;
      } else if (c == '}' || c == ']') {
        if (depth == 0) break;
        --depth;
      }
    }
  }
  if (refused) {
    const int element = refused->element;
    throw ImportError(element >= 0 && element < static_cast<int>(lines.size()) ? lines[element] : 1,
                      refused->what());
  }
  const json& results = doc["results"];
  for (std::size_t i = 0; i < results.size(); ++i) {
    int line = i < lines.size() ? lines[i] : 1;
    const json& r = results[i];
    try {
      if (!r.is_object() || !r.contains("ktune"))
        throw std::invalid_argument(
            "result " + std::to_string(i + 1) +
            " has no \"ktune\" record (device, kernel, problem): only T4 files "
            "written by ktune can be imported");
      add(measurement_from_json(r.at("ktune")));
    } catch (const std::exception& e) {
      throw ImportError(line, e.what());
    }
  }
  return out;
}

ImportSummary import_measurements(Store& store, std::istream& in, ExchangeFormat format,
                                  const ImportOptions& options) {
  std::vector<Measurement> all = parse_measurements(in, format, options);
  ImportSummary s;
  s.read = static_cast<std::int64_t>(all.size());
  s.added = store.insert(all);
  return s;
}

}  // namespace ktune
