// Exchange formats: JSON Lines, CSV and T4 writers and all-or-nothing parsers.
#include "db/exchange.hpp"

#include <charconv>
#include <climits>
#include <cmath>
#include <istream>
#include <iterator>
#include <optional>
#include <ostream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "db/store_impl.hpp"

namespace ktune {
namespace {

using nlohmann::json;

constexpr const char* kJsonlTag = "ktune.measurement";
constexpr int kJsonlVersion = 1;

const std::vector<std::string> kCsvColumns = {
    "device_name", "device_arch",  "device",        "family",        "family_hash", "problem_key",
    "problem",     "shape_class",  "shape_keys",    "config_key",    "config",      "status",
    "median_s",    "min_s",        "max_s",         "spread",        "repetitions", "tflops",
    "gbps",        "error",        "max_abs_error", "deterministic", "message",     "metrics",
    "host",        "tool_version", "source",        "measured_at"};

std::string number_text(double d) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);  // shortest text that round-trips
  return std::string(buf, end);
}

double number_from(const std::string& text, const char* column) {
  double d = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (ec != std::errc() || p != text.data() + text.size())
    throw std::invalid_argument(std::string("column '") + column + "': '" + text +
                                "' is not a number");
  // from_chars reads "inf" and "nan", which JSON cannot carry: a database
  // holding one could no longer be exported and imported again.
  if (!std::isfinite(d))
    throw std::invalid_argument(std::string("column '") + column + "': '" + text +
                                "' is not a finite number");
  return d;
}

int int_from(const std::string& text, const char* column) {
  long long v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v < 0 || v > INT_MAX)
    throw std::invalid_argument(std::string("column '") + column + "': '" + text +
                                "' is not an integer in 0.." + std::to_string(INT_MAX));
  return static_cast<int>(v);
}

// ---- Strict JSON --------------------------------------------------------------------

/// Nesting deeper than this is refused. No record ktune writes comes near it
/// (its deepest, a T4 result's metrics, is about 8 levels); deeper input
/// overflowed the stack of the recursive JSON writer (70,000 levels), and a
/// stored row past SQLite's JSON depth limit breaks every query that reads it.
constexpr int kMaxJsonDepth = 64;
/// A JSON Lines record or a CSV record larger than this is refused before it is parsed.
constexpr std::size_t kMaxRecordBytes = std::size_t{16} << 20;

/// What the strict parser refuses beyond JSON syntax: a key given twice in one
/// object (nlohmann keeps the last one silently), nesting past kMaxJsonDepth,
/// a number past the range of a double. `element`: how many objects had been
/// opened at depth 2 (a T4 result) when it was found, so the caller can name
/// that result's line.
struct StrictJsonError : std::invalid_argument {
  StrictJsonError(const std::string& what, int e) : std::invalid_argument(what), element(e) {}
  int element;
};

json parse_strict(const std::string& text) {
  std::vector<std::set<std::string>> open_objects;
  int depth2_objects = 0;
  try {
    return json::parse(text, [&](int depth, json::parse_event_t event, json& parsed) {
      switch (event) {
        case json::parse_event_t::object_start:
        case json::parse_event_t::array_start:
          if (depth >= kMaxJsonDepth)
            throw StrictJsonError("nested deeper than " + std::to_string(kMaxJsonDepth) + " levels",
                                  depth2_objects - 1);
          if (event == json::parse_event_t::array_start) break;
          open_objects.emplace_back();
          if (depth == 2) ++depth2_objects;
          break;
        case json::parse_event_t::object_end:
          open_objects.pop_back();
          break;
        case json::parse_event_t::key:
          if (!open_objects.back().insert(parsed.get<std::string>()).second)
            throw StrictJsonError("duplicate key \"" + parsed.get<std::string>() +
                                      "\" (which one counts is not defined)",
                                  depth2_objects - 1);
          break;
        default:
          break;
      }
      return true;
    });
  } catch (const json::out_of_range& e) {
    // A number such as 1e400: the parser names it, but not where it is.
    throw StrictJsonError(e.what(), depth2_objects - 1);
  }
}

/// The offset of the first byte of `text` that is not well-formed UTF-8, or npos.
std::size_t invalid_utf8_at(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    int follow = 0;
    std::uint32_t min = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if ((c & 0xe0) == 0xc0) {
      follow = 1;
      min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      follow = 2;
      min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      follow = 3;
      min = 0x10000;
    } else {
      return i;
    }
    if (text.size() - i <= static_cast<std::size_t>(follow)) return i;  // cut short
    std::uint32_t code = c & (0x3f >> follow);
    for (int k = 1; k <= follow; ++k) {
      const auto f = static_cast<unsigned char>(text[i + k]);
      if ((f & 0xc0) != 0x80) return i;
      code = (code << 6) | (f & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
    if (code < min || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return i;
    i += follow + 1;
  }
  return std::string_view::npos;
}

// Integers in a problem or configuration: JSON's unsigned values past 2^63-1
// would wrap to negative numbers (2^64-1 to -1).
void check_integers(const json& j, const std::string& field) {
  if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    throw std::invalid_argument("'" + field + "': " + j.dump() +
                                " is out of range (at most 2^63-1)");
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it)
      check_integers(it.value(), field + "." + it.key());
}

// A JSON integer in 0..INT_MAX, or absent.
void check_count(const json& parent, const char* key, const std::string& field) {
  if (!parent.is_object() || !parent.contains(key)) return;
  const json& v = parent.at(key);
  const bool integer =
      v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= INT_MAX;
  if (!integer)
    throw std::invalid_argument("'" + field + "': " + v.dump() + " is not an integer in 0.." +
                                std::to_string(INT_MAX));
}

// A device as DeviceSpec reads it, refusing a field it would not write back
// as given: an integer past its field's range (2^63-1 in an int reads back
// as -1), a fraction where the field holds an integer, a compute capability such as "9.0x"
// ("arch" is not read: it is derived from "cc").
DeviceSpec device_from_json(const json& j) {
  check_integers(j, "device");  // nlohmann compares 2^64-1 equal to -1
  DeviceSpec d = DeviceSpec::from_json(j);
  const json written = d.to_json();
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "arch" && written.contains(it.key()) && written.at(it.key()) != *it)
      throw std::invalid_argument("'device." + it.key() + "': " + it->dump() +
                                  " cannot be stored as given (it reads back as " +
                                  written.at(it.key()).dump() + ")");
  return d;
}

// ---- Content checks -------------------------------------------------------------------

int days_in_month(int year, int month) {
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : days[month - 1];
}

// "2026-11-29T14:35:00.123456Z" or with an offset ("+01:00"); fractions optional.
bool is_iso8601(const std::string& text) {
  static const std::regex form(
      R"(^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$)");
  std::smatch m;
  if (!std::regex_match(text, m, form)) return false;
  auto n = [&](int i) { return std::stoi(m[i].str()); };
  const int month = n(2);
  if (month < 1 || month > 12 || n(3) < 1 || n(3) > days_in_month(n(1), month)) return false;
  if (n(4) > 23 || n(5) > 59 || n(6) > 60) return false;  // 60: a leap second
  return !m[9].matched || (n(9) <= 23 && n(10) <= 59);
}

void check_non_negative(double v, const char* field) {
  if (!std::isfinite(v) || v < 0)
    throw std::invalid_argument(std::string("'") + field + "': " + number_text(v) +
                                " is not a finite, non-negative number");
}

void check_non_negative_count(long long v, const char* field) {
  if (v < 0)
    throw std::invalid_argument(std::string("'") + field + "': " + std::to_string(v) +
                                " is negative");
}

// Counts and rates of a GPU cannot be negative, and a GPU of known compute
// capability has SMs; 0 stands for "unknown" elsewhere (a recording that named
// no GPU keeps only its name, compute capability 0.0).
void check_device(const DeviceSpec& d) {
  check_non_negative_count(d.cc_major, "device.cc");
  check_non_negative_count(d.cc_minor, "device.cc");
  check_non_negative_count(d.sm_count, "device.sm_count");
  if (d.sm_count == 0 && d.cc_major > 0)
    throw std::invalid_argument(
        "'device.sm_count': 0 is not a count of SMs of a GPU of compute "
        "capability " +
        std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor));
  check_non_negative_count(d.max_threads_per_block, "device.max_threads_per_block");
  check_non_negative_count(d.max_threads_per_sm, "device.max_threads_per_sm");
  check_non_negative_count(d.max_blocks_per_sm, "device.max_blocks_per_sm");
  check_non_negative_count(d.smem_per_sm, "device.smem_per_sm");
  check_non_negative_count(d.smem_per_block_optin, "device.smem_per_block_optin");
  check_non_negative_count(d.regs_per_sm, "device.regs_per_sm");
  check_non_negative_count(d.max_regs_per_thread, "device.max_regs_per_thread");
  check_non_negative_count(d.l2_bytes, "device.l2_bytes");
  check_non_negative_count(d.global_memory_bytes, "device.global_memory_bytes");
  check_non_negative(d.sm_clock_mhz, "device.sm_clock_mhz");
  check_non_negative(d.dram_gbps, "device.dram_gbps");
  check_non_negative(d.peak_tflops_simt_fp32, "device.peak_tflops_simt_fp32");
  check_non_negative(d.peak_tflops_tf32, "device.peak_tflops_tf32");
  check_non_negative(d.peak_tflops_bf16, "device.peak_tflops_bf16");
  check_non_negative(d.peak_tflops_fp16, "device.peak_tflops_fp16");
}

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

// ---- CSV --------------------------------------------------------------------------

void csv_cell(std::ostream& out, const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) {
    out << s;
    return;
  }
  out << '"';
  for (char c : s) {
    if (c == '"') out << '"';
    out << c;
  }
  out << '"';
}

struct CsvRecord {
  int line;
  std::vector<std::string> cells;
};

std::vector<CsvRecord> parse_csv(const std::string& text) {
  std::vector<CsvRecord> records;
  std::size_t i = 0;
  int line = 1;
  while (i < text.size()) {
    CsvRecord rec{line, {}};
    std::string cell;
    bool done = false;
    while (!done) {
      cell.clear();
      if (i < text.size() && text[i] == '"') {
        int opened = line;
        ++i;
        while (true) {
          if (i >= text.size()) throw ImportError(opened, "unterminated quoted cell");
          char c = text[i++];
          if (c == '"') {
            if (i < text.size() && text[i] == '"') {
              cell += '"';
              ++i;
            } else {
              break;
            }
          } else {
            if (c == '\n') ++line;
            cell += c;
          }
        }
        if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
          throw ImportError(line, "text after a closing quote");
      } else {
        while (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
          cell += text[i++];
      }
      rec.cells.push_back(cell);
      if (i >= text.size()) {
        done = true;
      } else if (text[i] == ',') {
        ++i;
      } else {
        if (text[i] == '\r') ++i;
        if (i < text.size() && text[i] == '\n') ++i;
        ++line;
        done = true;
      }
    }
    if (!(rec.cells.size() == 1 && rec.cells[0].empty())) records.push_back(std::move(rec));
  }
  return records;
}

Measurement measurement_from_csv(const std::vector<std::string>& c) {
  auto col = [&](const char* name) -> const std::string& {
    for (std::size_t i = 0; i < kCsvColumns.size(); ++i)
      if (kCsvColumns[i] == name) return c[i];
    throw std::logic_error("no CSV column " + std::string(name));
  };
  // Cells that are not JSON are stored as they are: each must be text that
  // export and `lookup --json` can write again.
  for (std::size_t i = 0; i < kCsvColumns.size(); ++i)
    if (std::size_t at = invalid_utf8_at(c[i]); at != std::string::npos)
      throw std::invalid_argument("column '" + kCsvColumns[i] + "': byte " +
                                  std::to_string(at + 1) +
                                  " is not UTF-8 (ktune's files are UTF-8 text)");
  auto parse_json = [&](const char* name) {
    try {
      json j = parse_strict(col(name));
      if (std::string_view(name) == "problem" || std::string_view(name) == "config")
        check_integers(j, name);
      return j;
    } catch (const StrictJsonError& e) {
      throw std::invalid_argument(std::string("column '") + name + "': " + e.what());
    } catch (const json::exception& e) {
      throw std::invalid_argument(std::string("column '") + name + "' is not JSON: " + e.what());
    }
  };
  Measurement m;
  m.key.device = device_from_json(parse_json("device"));
  m.key.family = col("family");
  m.key.family_hash = col("family_hash");
  m.key.problem = ValueMap::from_json(parse_json("problem"));
  m.key.shape_class = col("shape_class");
  m.key.shape_keys = split_names(col("shape_keys"));
  Result& r = m.result;
  r.config = ValueMap::from_json(parse_json("config"));
  r.status = status_from_string(col("status"));
  r.time.median_s = number_from(col("median_s"), "median_s");
  r.time.min_s = number_from(col("min_s"), "min_s");
  r.time.max_s = number_from(col("max_s"), "max_s");
  r.time.spread = number_from(col("spread"), "spread");
  r.time.repetitions = int_from(col("repetitions"), "repetitions");
  r.tflops = number_from(col("tflops"), "tflops");
  r.gbps = number_from(col("gbps"), "gbps");
  r.error = number_from(col("error"), "error");
  r.max_abs_error = number_from(col("max_abs_error"), "max_abs_error");
  const std::string& det = col("deterministic");
  if (det == "true")
    r.deterministic = true;
  else if (det == "false")
    r.deterministic = false;
  else if (!det.empty())
    throw std::invalid_argument("column 'deterministic': '" + det +
                                "' is not true, false or empty");
  r.message = col("message");
  r.metrics = parse_json("metrics");
  if (r.status == Status::ok && !(r.time.median_s > 0))
    throw std::invalid_argument("status ok without a positive median_s");
  m.provenance.host = col("host");
  m.provenance.tool_version = col("tool_version");
  m.provenance.source = col("source");
  m.provenance.measured_at = col("measured_at");
  if (m.provenance.measured_at.empty())
    throw std::invalid_argument("column 'measured_at' is empty");
  return m;
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

void check_record_size(int line, std::size_t bytes) {
  if (bytes > kMaxRecordBytes)
    throw ImportError(line, "the record has " + std::to_string(bytes) + " bytes, more than the " +
                                std::to_string(kMaxRecordBytes >> 20) + " MiB a record may have");
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

void check_measurement(const Measurement& m) {
  if (m.key.family.empty()) throw std::invalid_argument("'family' is empty");
  // Families this build does not register import with a note that names them
  // (replayed Kernel Tuner caches, user kernels): a name is a name, not a payload.
  constexpr std::size_t kMaxFamilyBytes = 256;
  if (m.key.family.size() > kMaxFamilyBytes)
    throw std::invalid_argument("'family' is " + std::to_string(m.key.family.size()) +
                                " bytes long (at most " + std::to_string(kMaxFamilyBytes) + ")");
  if (m.key.device.name.empty()) throw std::invalid_argument("'device.name' is empty");
  check_device(m.key.device);
  // An empty problem is a record ktune writes: a Kernel Tuner cache without a
  // problem_size, replayed. A family with shape keys still needs them below,
  // and the CLI's family check needs a problem the family accepts.
  for (const std::string& key : m.key.shape_keys) {
    if (!m.key.problem.contains(key))
      throw std::invalid_argument("'shape_keys': '" + key + "' is not a key of the problem");
    const Value& v = m.key.problem.at(key);
    const auto* i = std::get_if<std::int64_t>(&v);
    const auto* d = std::get_if<double>(&v);
    if (!(i && *i > 0) && !(d && std::isfinite(*d) && *d > 0))
      throw std::invalid_argument("'problem." + key + "': " + to_text(v) +
                                  " is not a positive size (a shape key)");
  }
  const Result& r = m.result;
  if (r.config.empty()) throw std::invalid_argument("'result.config' is empty");
  check_non_negative(r.time.median_s, "result.time.median_s");
  check_non_negative(r.time.min_s, "result.time.min_s");
  check_non_negative(r.time.max_s, "result.time.max_s");
  check_non_negative(r.time.spread, "result.time.spread");
  if (r.time.min_s > r.time.median_s || r.time.median_s > r.time.max_s)
    throw std::invalid_argument("'result.time': min_s " + number_text(r.time.min_s) +
                                ", median_s " + number_text(r.time.median_s) + ", max_s " +
                                number_text(r.time.max_s) +
                                " are not ordered min_s <= median_s <= max_s");
  if (r.time.repetitions < 0)
    throw std::invalid_argument("'result.time.repetitions': " + std::to_string(r.time.repetitions) +
                                " is negative");
  check_non_negative(r.tflops, "result.tflops");
  check_non_negative(r.gbps, "result.gbps");
  check_non_negative(r.error, "result.error");
  check_non_negative(r.max_abs_error, "result.max_abs_error");
  if (!is_iso8601(m.provenance.measured_at))
    throw std::invalid_argument("'provenance.measured_at': '" + m.provenance.measured_at +
                                "' is not an ISO-8601 time such as 2026-11-29T14:35:00.123456Z");
}

std::int64_t export_measurements(const Store& store, std::ostream& out, ExchangeFormat format) {
  std::int64_t n = 0;
  if (format == ExchangeFormat::csv) {
    for (std::size_t i = 0; i < kCsvColumns.size(); ++i) out << (i ? "," : "") << kCsvColumns[i];
    out << "\n";
  } else if (format == ExchangeFormat::t4) {
    out << "{\"schema_version\": \"1.0.0\",\n\"results\": [";
  }
  store.for_each([&](const Measurement& m) {
    switch (format) {
      case ExchangeFormat::jsonl:
        out << measurement_to_json(m).dump() << "\n";
        break;
      case ExchangeFormat::t4:
        out << (n ? ",\n" : "\n") << t4_result(m).dump();
        break;
      case ExchangeFormat::csv: {
        const Result& r = m.result;
        std::vector<std::string> cells = {
            m.key.device.name,
            m.key.device.arch(),
            m.key.device.to_json().dump(),
            m.key.family,
            m.key.family_hash,
            m.key.problem.key(),
            m.key.problem.to_json().dump(),
            m.key.shape_class,
            join_names(m.key.shape_keys),
            r.config.key(),
            r.config.to_json().dump(),
            std::string(to_string(r.status)),
            number_text(r.time.median_s),
            number_text(r.time.min_s),
            number_text(r.time.max_s),
            number_text(r.time.spread),
            std::to_string(r.time.repetitions),
            number_text(r.tflops),
            number_text(r.gbps),
            number_text(r.error),
            number_text(r.max_abs_error),
            r.deterministic ? (*r.deterministic ? "true" : "false") : "",
            r.message,
            r.metrics.dump(),
            m.provenance.host,
            m.provenance.tool_version,
            m.provenance.source,
            m.provenance.measured_at};
        for (std::size_t i = 0; i < cells.size(); ++i) {
          if (i) out << ',';
          csv_cell(out, cells[i]);
        }
        out << "\n";
        break;
      }
    }
    ++n;
    return true;
  });
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
    auto records = parse_csv(text);
    if (records.empty()) throw ImportError(1, "empty CSV: expected a header row");
    if (records[0].cells != kCsvColumns)
      throw ImportError(records[0].line, "the header row is not ktune's CSV header (" +
                                             std::to_string(kCsvColumns.size()) +
                                             " columns starting device_name,device_arch)");
    for (std::size_t i = 1; i < records.size(); ++i) {
      const auto& rec = records[i];
      if (rec.cells.size() != kCsvColumns.size())
        throw ImportError(rec.line, "expected " + std::to_string(kCsvColumns.size()) +
                                        " cells, found " + std::to_string(rec.cells.size()));
      std::size_t bytes = 0;
      for (const std::string& cell : rec.cells) bytes += cell.size();
      check_record_size(rec.line, bytes);
      try {
        add(measurement_from_csv(rec.cells));
      } catch (const ImportError&) {
        throw;
      } catch (const std::exception& e) {
        throw ImportError(rec.line, e.what());
      }
    }
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
