// Import checks content, not only syntax: each bad record of the table is
// refused with its line and field, and nothing of its file is stored.
#include <gtest/gtest.h>

#include <sstream>

#include "db/exchange.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

// Two valid measurements: the bad record of each row is the second one, a
// copy of it with one substitution.
std::vector<Measurement> good_measurements() {
  std::vector<Measurement> out;
  for (std::int64_t bn : {64, 96}) {
    Measurement m;
    m.key = gemm_key(gemm_problem(64, 96, 32));
    m.result.config = tile_config(64, bn);
    m.result.status = Status::ok;
    m.result.time = {0.002, 0.001, 0.003, 0.02, 20};  // synthetic figures
    m.result.tflops = 10;
    m.result.gbps = 100;
    m.result.error = 0.25;
    m.result.max_abs_error = 0.5;
    m.provenance = test_provenance_at("2026-11-29T14:35:00.123456Z");
    out.push_back(m);
  }
  return out;
}

std::string exported(ExchangeFormat format) {
  Store store = Store::open(":memory:");
  auto good = good_measurements();
  store.insert(good);
  std::stringstream text;
  export_measurements(store, text, format);
  return text.str();
}

// The text of the file with `from` replaced by `to` on line `line` only.
std::string with_bad_line(const std::string& text, int line, const std::string& from,
                          const std::string& to) {
  std::size_t start = 0;
  for (int n = 1; n < line; ++n) start = text.find('\n', start) + 1;
  const std::size_t end = text.find('\n', start);
  const std::size_t at = text.find(from, start);
  if (at == std::string::npos || at >= end) return "";
  return text.substr(0, at) + to + text.substr(at + from.size());
}

// `levels` arrays, one inside the other: [[[...]]].
std::string nested_arrays(int levels) {
  return std::string(levels, '[') + std::string(levels, ']');
}

struct BadRecord {
  ExchangeFormat format;
  std::string from, to;  ///< the bad record is the good one with `from` replaced by `to`
  std::string fragment;  ///< what the message must name (its field)
};

// JSON Lines: the bad record is line 2; CSV: line 3 (after the header); T4: line 4.
const BadRecord kBadRecords[] = {
    {ExchangeFormat::jsonl, "\"m\":64", "\"m\":-1", "'problem.m': -1 is not a positive size"},
    {ExchangeFormat::jsonl, "\"m\":64", "\"m\":0", "'problem.m': 0 is not a positive size"},
    {ExchangeFormat::jsonl, "\"m\":64", "\"m\":\"abc\"", "'problem.m': abc is not a positive size"},
    {ExchangeFormat::jsonl, "\"m\":64", "\"m\":18446744073709551615",
     "'problem.m': 18446744073709551615 is out of range"},
    {ExchangeFormat::jsonl, "\"BLOCK_M\":64", "\"BLOCK_M\":18446744073709551615",
     "'result.config.BLOCK_M'"},
    {ExchangeFormat::jsonl,
     "\"problem\":{\"dtype\":\"bf16\",\"k\":32,\"layout\":\"nn\",\"m\":64,\"n\":96}",
     "\"problem\":{}", "'shape_keys': 'm' is not a key of the problem"},
    {ExchangeFormat::jsonl, "\"config\":{\"BLOCK_M\":64,\"BLOCK_N\":96,\"STAGES\":3}",
     "\"config\":{}", "'result.config' is empty"},
    {ExchangeFormat::jsonl, "\"repetitions\":20", "\"repetitions\":1e20",
     "'result.time.repetitions': 1e+20"},
    {ExchangeFormat::jsonl, "\"repetitions\":20", "\"repetitions\":-3",
     "'result.time.repetitions': -3"},
    {ExchangeFormat::jsonl, "\"repetitions\":20", "\"repetitions\":2.5",
     "'result.time.repetitions': 2.5"},
    {ExchangeFormat::jsonl, "\"repetitions\":20", "\"repetitions\":4294967296",
     "'result.time.repetitions'"},
    {ExchangeFormat::jsonl, "\"median_s\":0.002", "\"median_s\":-0.002", "positive median"},
    {ExchangeFormat::jsonl, "\"min_s\":0.001", "\"min_s\":-0.001", "'result.time.min_s': -0.001"},
    {ExchangeFormat::jsonl, "\"max_s\":0.003", "\"max_s\":-0.003", "'result.time.max_s': -0.003"},
    {ExchangeFormat::jsonl, "\"min_s\":0.001", "\"min_s\":0.0025", "min_s <= median_s <= max_s"},
    {ExchangeFormat::jsonl, "\"max_s\":0.003", "\"max_s\":0.0015", "min_s <= median_s <= max_s"},
    {ExchangeFormat::jsonl, "\"spread\":0.02", "\"spread\":-0.5", "'result.time.spread'"},
    {ExchangeFormat::jsonl, "\"tflops\":10.0", "\"tflops\":-10.0", "'result.tflops'"},
    {ExchangeFormat::jsonl, "\"gbps\":100.0", "\"gbps\":-1.0", "'result.gbps'"},
    {ExchangeFormat::jsonl, "\"error\":0.25", "\"error\":-0.25", "'result.error'"},
    {ExchangeFormat::jsonl, "\"max_abs_error\":0.5", "\"max_abs_error\":-0.5",
     "'result.max_abs_error'"},
    {ExchangeFormat::jsonl, "2026-11-29T14:35:00.123456Z", "not a date",
     "'provenance.measured_at': 'not a date'"},
    {ExchangeFormat::jsonl, "2026-11-29T14:35:00.123456Z", "2026-13-29T14:35:00Z",
     "'provenance.measured_at'"},
    {ExchangeFormat::jsonl, "2026-11-29T14:35:00.123456Z", "2026-02-30T14:35:00Z",
     "'provenance.measured_at'"},
    {ExchangeFormat::jsonl, "2026-11-29T14:35:00.123456Z", "2026-11-29 14:35:00",
     "'provenance.measured_at'"},
    {ExchangeFormat::jsonl, "2026-11-29T14:35:00.123456Z", "2026-11-29T25:35:00Z",
     "'provenance.measured_at'"},
    {ExchangeFormat::jsonl, "2026-11-29T14:35:00.123456Z", "", "'provenance.measured_at' is empty"},
    {ExchangeFormat::jsonl, "\"m\":64", "\"m\":64,\"m\":128", "duplicate key \"m\""},
    {ExchangeFormat::jsonl, "\"family\":\"gemm\"", "\"family\":\"gemm\",\"family\":\"gemm\"",
     "duplicate key \"family\""},
    {ExchangeFormat::jsonl, "\"BLOCK_N\":96", "\"BLOCK_N\":96,\"BLOCK_N\":64",
     "duplicate key \"BLOCK_N\""},
    {ExchangeFormat::jsonl, "\"family\":\"gemm\"", "\"family\":\"\"", "'family' is empty"},
    {ExchangeFormat::jsonl, "\"family\":\"gemm\"", "\"family\":\"gemmm\"",
     "'family': unknown kernel family 'gemmm'"},
    {ExchangeFormat::jsonl, "\"shape_keys\":[\"m\",\"n\",\"k\"]", "\"shape_keys\":[\"m\",\"q\"]",
     "'shape_keys': 'q'"},
    {ExchangeFormat::jsonl, "\"status\":\"ok\"", "\"status\":\"fine\"", "fine"},
    // A value of the wrong JSON type names its field, as the content checks do.
    {ExchangeFormat::jsonl, "\"median_s\":0.002", "\"median_s\":\"fast\"",
     "'result.time.median_s': \"fast\" is not a number"},
    {ExchangeFormat::jsonl, "\"status\":\"ok\"", "\"status\":7",
     "'result.status': 7 is not a string"},
    {ExchangeFormat::jsonl, "\"family\":\"gemm\"", "\"family\":[\"gemm\"]",
     "'family': [\"gemm\"] is not a string"},
    {ExchangeFormat::jsonl, "\"deterministic\":null", "\"deterministic\":\"yes\"",
     "'result.deterministic': \"yes\" is not true or false"},
    {ExchangeFormat::jsonl, "\"shape_keys\":[\"m\",\"n\",\"k\"]", "\"shape_keys\":[\"m\",2]",
     "'shape_keys[1]': 2 is not a string"},
    {ExchangeFormat::jsonl, "\"time\":{", "\"time\":7,\"x\":{",
     "'result.time': 7 is not an object"},
    {ExchangeFormat::jsonl, "\"measured_at\":\"", "\"measured_at\":false,\"x\":\"",
     "'provenance.measured_at': false is not a string"},
    {ExchangeFormat::jsonl, "\"sm_count\":132", "\"sm_count\":\"many\"",
     "'device.sm_count': \"many\" is not a number"},
    {ExchangeFormat::t4, "\"median_s\":0.002", "\"median_s\":\"fast\"",
     "'result.time.median_s': \"fast\" is not a number"},
    {ExchangeFormat::csv, ",ok,0.002,", ",ok,inf,",
     "column 'median_s': 'inf' is not a finite number"},
    {ExchangeFormat::csv, ",ok,0.002,0.001,", ",ok,0.002,nan,",
     "column 'min_s': 'nan' is not a finite number"},
    {ExchangeFormat::csv, ",0.003,0.02,", ",0.003,-inf,",
     "column 'spread': '-inf' is not a finite number"},
    {ExchangeFormat::csv, ",0.02,20,", ",0.02,1e20,", "column 'repetitions': '1e20'"},
    {ExchangeFormat::csv, ",0.02,20,", ",0.02,-1,", "column 'repetitions': '-1'"},
    {ExchangeFormat::csv, "\"\"m\"\":64", "\"\"m\"\":64,\"\"m\"\":1",
     "column 'problem': duplicate key \"m\""},
    {ExchangeFormat::csv, "2026-11-29T14:35:00.123456Z", "yesterday",
     "'provenance.measured_at': 'yesterday'"},
    {ExchangeFormat::csv, ",0.002,0.001,0.003,", ",0.002,0.001,0.0015,",
     "min_s <= median_s <= max_s"},
    {ExchangeFormat::t4, "\"m\":64", "\"m\":64,\"m\":2", "duplicate key \"m\""},
    {ExchangeFormat::t4, "\"repetitions\":20", "\"repetitions\":1e20", "'result.time.repetitions'"},
    // Hostile files (issue 49): numbers past a double's range, nesting past the
    // bound, device fields out of range, text that is not UTF-8.
    {ExchangeFormat::jsonl, "\"median_s\":0.002", "\"median_s\":1e400", "number overflow"},
    {ExchangeFormat::t4, "\"median_s\":0.002", "\"median_s\":1e400", "number overflow"},
    {ExchangeFormat::jsonl, "\"message\":\"\"", "\"message\":\"\",\"x\":" + nested_arrays(65),
     "nested deeper than 64 levels"},
    {ExchangeFormat::t4, "\"message\":\"\"", "\"message\":\"\",\"x\":" + nested_arrays(65),
     "nested deeper than 64 levels"},
    {ExchangeFormat::csv, "{}", nested_arrays(65), "nested deeper than 64 levels"},
    {ExchangeFormat::jsonl, "\"sm_count\":132", "\"sm_count\":18446744073709551615",
     "'device.sm_count': 18446744073709551615 is out of range"},
    {ExchangeFormat::jsonl, "\"sm_count\":132", "\"sm_count\":9223372036854775807",
     "'device.sm_count': 9223372036854775807 cannot be stored as given (it reads back as -1)"},
    {ExchangeFormat::jsonl, "\"sm_count\":132", "\"sm_count\":0",
     "'device.sm_count': 0 is not a count of SMs"},
    {ExchangeFormat::jsonl, "\"sm_count\":132", "\"sm_count\":-1",
     "'device.sm_count': -1 is negative"},
    {ExchangeFormat::jsonl, "\"sm_count\":132", "\"sm_count\":13.5", "'device.sm_count': 13.5"},
    {ExchangeFormat::jsonl, "\"dram_gbps\":0.0", "\"dram_gbps\":-5.0", "'device.dram_gbps': -5"},
    {ExchangeFormat::jsonl, "\"cc\":\"9.0\"", "\"cc\":\"9.0x\"", "'device.cc': \"9.0x\""},
    {ExchangeFormat::csv, "\"\"sm_count\"\":132", "\"\"sm_count\"\":-1", "'device.sm_count': -1"},
    {ExchangeFormat::csv, "Synthetic GPU A,", "Synthetic GPU \xff,",
     "column 'device_name': byte 15 is not UTF-8"},
    {ExchangeFormat::csv, "testhost", "test\xc3host", "column 'host': byte 5 is not UTF-8"},
    {ExchangeFormat::csv, "testhost", "test\xed\xa0\x80host", "column 'host': byte 5 is not UTF-8"},
};

int bad_line_of(ExchangeFormat format) {
  switch (format) {
    case ExchangeFormat::jsonl:
      return 2;
    case ExchangeFormat::csv:
      return 3;
    case ExchangeFormat::t4:
      return 4;
  }
  return 0;
}

// The validator the CLI passes knows the registered families; this one, gemm.
void only_gemm(const Measurement& m) {
  if (m.key.family != "gemm")
    throw std::invalid_argument("'family': unknown kernel family '" + m.key.family + "'");
}

class BadImport : public ::testing::TestWithParam<BadRecord> {};

TEST_P(BadImport, IsRefusedNamingTheLineAndFieldAndStoresNothing) {
  const BadRecord& bad = GetParam();
  const int line = bad_line_of(bad.format);
  const std::string text = with_bad_line(exported(bad.format), line, bad.from, bad.to);
  ASSERT_FALSE(text.empty()) << "'" << bad.from << "' is not on line " << line;
  Store store = Store::open(":memory:");
  record_one_result(store, synthetic_device());
  std::istringstream in(text);
  try {
    import_measurements(store, in, bad.format, ImportOptions{only_gemm});
    FAIL() << "accepted:\n" << text;
  } catch (const ImportError& e) {
    EXPECT_EQ(e.line, line) << e.what();
    EXPECT_NE(std::string(e.what()).find("line " + std::to_string(line) + ": "), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(bad.fragment), std::string::npos) << e.what();
  }
  EXPECT_EQ(store.result_count(), 1);  // all or nothing: the good record 1 was not stored either
}

INSTANTIATE_TEST_SUITE_P(Table, BadImport, ::testing::ValuesIn(kBadRecords));

TEST(BadImport, TheGoodRecordsOfTheTableImport) {
  for (ExchangeFormat format : {ExchangeFormat::jsonl, ExchangeFormat::csv, ExchangeFormat::t4}) {
    Store store = Store::open(":memory:");
    std::istringstream in(exported(format));
    EXPECT_EQ(import_measurements(store, in, format, ImportOptions{only_gemm}).added, 2);
  }
}

// 70,000 levels once crashed the import (the recursive JSON writer ran out of
// stack); every format refuses them at the parser's bound.
TEST(BadImport, DeepNestingIsRefusedNotACrash) {
  const std::string deep = nested_arrays(70000);
  for (ExchangeFormat format : {ExchangeFormat::jsonl, ExchangeFormat::t4}) {
    const std::string text =
        with_bad_line(exported(format), bad_line_of(format), "\"message\":\"\"",
                      "\"message\":\"\",\"metrics_too\":" + deep);
    ASSERT_FALSE(text.empty());
    Store store = Store::open(":memory:");
    std::istringstream in(text);
    try {
      import_measurements(store, in, format);
      FAIL() << to_string(format) << ": accepted";
    } catch (const ImportError& e) {
      EXPECT_EQ(e.line, bad_line_of(format)) << e.what();
      EXPECT_NE(std::string(e.what()).find("nested deeper than 64 levels"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(store.result_count(), 0);
  }
}

TEST(BadImport, ARecordPastTheSizeBoundIsRefusedBeforeParsing) {
  const std::string text = with_bad_line(exported(ExchangeFormat::jsonl), 2, "\"message\":\"\"",
                                         "\"message\":\"" + std::string(17 << 20, 'x') + "\"");
  Store store = Store::open(":memory:");
  std::istringstream in(text);
  try {
    import_measurements(store, in, ExchangeFormat::jsonl);
    FAIL() << "accepted";
  } catch (const ImportError& e) {
    EXPECT_EQ(e.line, 2);
    EXPECT_NE(std::string(e.what()).find("more than the 16 MiB a record may have"),
              std::string::npos)
        << std::string(e.what()).substr(0, 200);
  }
  EXPECT_EQ(store.result_count(), 0);
}

TEST(BadImport, AnEmptyFileIsAnError) {
  for (ExchangeFormat format : {ExchangeFormat::jsonl, ExchangeFormat::csv, ExchangeFormat::t4}) {
    Store store = Store::open(":memory:");
    std::istringstream in("");
    try {
      import_measurements(store, in, format);
      FAIL() << "an empty " << to_string(format) << " file was accepted";
    } catch (const ImportError& e) {
      EXPECT_EQ(e.line, 1);
      EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ktune
