// The CSV exchange format: RFC 4180, one header row, JSON in the problem,
// configuration, device and metrics cells.
#include <charconv>
#include <climits>
#include <cmath>
#include <ostream>

#include "db/exchange_detail.hpp"

namespace ktune::exchange_detail {
namespace {

const std::vector<std::string> kCsvColumns = {
    "device_name", "device_arch",  "device",        "family",        "family_hash", "problem_key",
    "problem",     "shape_class",  "shape_keys",    "config_key",    "config",      "status",
    "median_s",    "min_s",        "max_s",         "spread",        "repetitions", "tflops",
    "gbps",        "error",        "max_abs_error", "deterministic", "message",     "metrics",
    "host",        "tool_version", "source",        "measured_at"};

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

}  // namespace

std::string number_text(double d) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);  // shortest text that round-trips
  return std::string(buf, end);
}

void write_csv_header(std::ostream& out) {
  for (std::size_t i = 0; i < kCsvColumns.size(); ++i) out << (i ? "," : "") << kCsvColumns[i];
  out << "\n";
}

void write_csv_row(std::ostream& out, const Measurement& m) {
  const Result& r = m.result;
  std::vector<std::string> cells = {m.key.device.name,
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
}

void parse_csv_measurements(const std::string& text, const std::function<void(Measurement)>& add) {
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
}

}  // namespace ktune::exchange_detail
