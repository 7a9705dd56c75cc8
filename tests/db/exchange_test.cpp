// Exchange: export -> import round trips losslessly in each format (every
// field compared), and a malformed record rejects the whole import.
#include <gtest/gtest.h>

#include <sstream>

#include "db/exchange.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

std::vector<Measurement> all_of(const Store& s) {
  std::vector<Measurement> out;
  s.for_each([&](const Measurement& m) {
    out.push_back(m);
    return true;
  });
  return out;
}

void expect_same(const Measurement& a, const Measurement& b) {
  EXPECT_EQ(a.key.device.to_json(), b.key.device.to_json());
  EXPECT_EQ(a.key.family, b.key.family);
  EXPECT_EQ(a.key.family_hash, b.key.family_hash);
  EXPECT_EQ(a.key.problem, b.key.problem);
  EXPECT_EQ(a.key.shape_class, b.key.shape_class);
  EXPECT_EQ(a.key.shape_keys, b.key.shape_keys);
  const Result &ra = a.result, &rb = b.result;
  EXPECT_EQ(ra.config, rb.config);
  EXPECT_EQ(ra.status, rb.status);
  EXPECT_EQ(ra.time.median_s, rb.time.median_s);
  EXPECT_EQ(ra.time.min_s, rb.time.min_s);
  EXPECT_EQ(ra.time.max_s, rb.time.max_s);
  EXPECT_EQ(ra.time.spread, rb.time.spread);
  EXPECT_EQ(ra.time.repetitions, rb.time.repetitions);
  EXPECT_EQ(ra.tflops, rb.tflops);
  EXPECT_EQ(ra.gbps, rb.gbps);
  EXPECT_EQ(ra.error, rb.error);
  EXPECT_EQ(ra.max_abs_error, rb.max_abs_error);
  EXPECT_EQ(ra.deterministic, rb.deterministic);
  EXPECT_EQ(ra.message, rb.message);
  EXPECT_EQ(ra.metrics, rb.metrics);
  EXPECT_EQ(a.provenance.host, b.provenance.host);
  EXPECT_EQ(a.provenance.tool_version, b.provenance.tool_version);
  EXPECT_EQ(a.provenance.source, b.provenance.source);
  EXPECT_EQ(a.provenance.measured_at, b.provenance.measured_at);
}

// Synthetic contents that stress every field: awkward text, doubles that do
// not print short, absent and present optionals, several devices and hashes.
void fill(Store& store) {
  Result odd = ok_result(Config{{"BLOCK_M", std::int64_t{128}}, {"ALPHA", 1.0 / 3.0}, {"SWIZZLE", true},
                                {"LOADS", std::string("cp.async")}},
                         1.0 / 7.0 * 1e-3);
  odd.gbps = 1234.5678901234567;
  odd.message = "a, \"quoted\"\nmulti-line message";
  odd.metrics = {{"dram", {{"read", 1.5e9}, {"write", 3}}}, {"note", "x,y"}};
  Result wrong = failed_result(tile_config(32, 32), Status::wrong_result, "max error 3 at (1, 2)");
  wrong.deterministic = false;
  store.record(gemm_key(gemm_problem(1000, 1000, 1000)), std::vector<Result>{odd, wrong}, test_provenance("team, a"));
  RunKey other = gemm_key(gemm_problem(64, 32, 16, "fp32"), synthetic_device("Synthetic GPU C", 8, 0), "hash-old");
  other.device.dram_gbps = 2039.0;
  store.record(other,
               std::vector<Result>{failed_result(tile_config(8, 8), Status::compile_error, "error: too many resources"),
                                   ok_result(tile_config(16, 8), 2.5e-5)},
               Provenance{"other-host", "0.0.9", "", ""});
  RunKey plain;
  plain.device = synthetic_device();
  plain.family = "softmax";
  plain.family_hash = "h";
  plain.problem = Problem{{"rows", std::int64_t{4096}}, {"cols", std::int64_t{8192}}};
  store.record(plain, std::vector<Result>{ok_result(Config{{"THREADS", std::int64_t{256}}}, 9e-6)},
               test_provenance());
  // A replayed Kernel Tuner cache without a problem_size: a foreign kernel, no problem.
  RunKey foreign;
  foreign.device = synthetic_device("Synthetic GPU D");
  foreign.family = "vector_add";
  foreign.family_hash = "recorded-0123456789abcdef";
  store.record(foreign,
               std::vector<Result>{ok_result(Config{{"block_size_x", std::int64_t{128}}}, 4e-5)},
               test_provenance("replay:vector_add.json"));
}

class ExchangeRoundTrip : public ::testing::TestWithParam<ExchangeFormat> {};

TEST_P(ExchangeRoundTrip, IsLossless) {
  Store source = Store::open(":memory:");
  fill(source);
  std::stringstream text;
  EXPECT_EQ(export_measurements(source, text, GetParam()), 6);

  Store target = Store::open(":memory:");
  ImportSummary s = import_measurements(target, text, GetParam());
  EXPECT_EQ(s.read, 6);
  EXPECT_EQ(s.added, 6);
  auto a = all_of(source), b = all_of(target);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("measurement " + std::to_string(i));
    expect_same(a[i], b[i]);
  }
  // Importing the same file again adds nothing.
  text.clear();
  text.seekg(0);
  EXPECT_EQ(import_measurements(target, text, GetParam()).added, 0);
  EXPECT_EQ(target.result_count(), 6);
}

INSTANTIATE_TEST_SUITE_P(Formats, ExchangeRoundTrip,
                         ::testing::Values(ExchangeFormat::jsonl, ExchangeFormat::csv, ExchangeFormat::t4),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(ExchangeT4, CarriesTheStandardFields) {
  Store source = Store::open(":memory:");
  fill(source);
  std::stringstream text;
  export_measurements(source, text, ExchangeFormat::t4);
  auto doc = nlohmann::json::parse(text.str());
  EXPECT_EQ(doc["schema_version"], "1.0.0");
  ASSERT_EQ(doc["results"].size(), 6u);
  int correct = 0, compile = 0, correctness = 0;
  for (const auto& r : doc["results"]) {
    ASSERT_TRUE(r.contains("configuration") && r.contains("times") && r.contains("invalidity") &&
                r.contains("correctness"));
    correct += r["invalidity"] == "correct";
    compile += r["invalidity"] == "compile";
    correctness += r["invalidity"] == "correctness";
  }
  EXPECT_EQ(correct, 4);
  EXPECT_EQ(compile, 1);
  EXPECT_EQ(correctness, 1);
}

std::string break_line(const std::string& text, int line_number, const std::string& replacement) {
  std::istringstream in(text);
  std::string line, out;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    out += (n == line_number ? replacement : line) + "\n";
  }
  return out;
}

TEST(ExchangeImport, AMalformedJsonLineRejectsEverythingWithItsLineNumber) {
  Store source = Store::open(":memory:");
  fill(source);
  std::stringstream text;
  export_measurements(source, text, ExchangeFormat::jsonl);
  std::string broken = break_line(text.str(), 4, "{\"ktune\": \"ktune.measurement\", \"version\": 1");

  Store target = Store::open(":memory:");
  target.record(gemm_key(gemm_problem(1, 1, 1)), std::vector<Result>{ok_result(tile_config(1, 1), 1e-6)},
                test_provenance());
  std::istringstream in(broken);
  try {
    import_measurements(target, in, ExchangeFormat::jsonl);
    FAIL() << "a malformed line was accepted";
  } catch (const ImportError& e) {
    EXPECT_EQ(e.line, 4);
    EXPECT_NE(std::string(e.what()).find("line 4"), std::string::npos);
  }
  EXPECT_EQ(target.result_count(), 1);  // unchanged: lines 1-3 were not stored
}

TEST(ExchangeImport, AMalformedCsvRecordOrT4ResultRejectsEverything) {
  Store source = Store::open(":memory:");
  fill(source);
  std::stringstream csv;
  export_measurements(source, csv, ExchangeFormat::csv);
  // The first record spans lines 2-3 (its message has a newline): line 4 is the next one.
  std::string text = csv.str();
  std::size_t line4 = 0;
  for (int n = 1; n < 4; ++n) line4 = text.find('\n', line4) + 1;
  std::size_t ok_pos = text.find(",ok,", line4);
  ASSERT_NE(ok_pos, std::string::npos);
  std::size_t median_end = text.find(',', ok_pos + 4);
  text.replace(ok_pos + 4, median_end - (ok_pos + 4), "fast");  // median_s is not a number
  Store target = Store::open(":memory:");
  std::istringstream in(text);
  try {
    import_measurements(target, in, ExchangeFormat::csv);
    FAIL() << "a malformed CSV record was accepted";
  } catch (const ImportError& e) {
    EXPECT_GE(e.line, 4);
    EXPECT_NE(std::string(e.what()).find("median_s"), std::string::npos) << e.what();
  }
  EXPECT_EQ(target.result_count(), 0);

  std::stringstream t4;
  export_measurements(source, t4, ExchangeFormat::t4);
  std::string t4_text = t4.str();
  std::size_t status = t4_text.rfind("\"status\":\"ok\"");
  ASSERT_NE(status, std::string::npos);
  t4_text.replace(status, 13, "\"status\":\"fine\"");
  std::istringstream t4_in(t4_text);
  try {
    import_measurements(target, t4_in, ExchangeFormat::t4);
    FAIL() << "a malformed T4 result was accepted";
  } catch (const ImportError& e) {
    EXPECT_GT(e.line, 1);
    EXPECT_NE(std::string(e.what()).find("fine"), std::string::npos) << e.what();
  }
  EXPECT_EQ(target.result_count(), 0);
}

TEST(ExchangeImport, FormatsFromNames) {
  EXPECT_EQ(exchange_format_for_path("a/b.jsonl"), ExchangeFormat::jsonl);
  EXPECT_EQ(exchange_format_for_path("b.csv"), ExchangeFormat::csv);
  EXPECT_EQ(exchange_format_for_path("b.json"), ExchangeFormat::t4);
  EXPECT_THROW(exchange_format_for_path("b.txt"), std::invalid_argument);
  EXPECT_THROW(exchange_format_from_string("xml"), std::invalid_argument);
}

}  // namespace
}  // namespace ktune
