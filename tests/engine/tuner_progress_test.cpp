// Tests of the progress line, the ETA, the plain (non-terminal) output and the results table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>

#include "engine/progress.hpp"

namespace ktune {
namespace {

/// What was written to the temporary file `f`, which is closed.
std::string read_and_close(std::FILE* f) {
  std::rewind(f);
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, f)) text += buf;
  std::fclose(f);
  return text;
}

Result ok_result(double seconds, double tflops) {
  Result r;
  r.config = Config{{"x", std::int64_t{3}}};
  r.status = Status::ok;
  r.time.median_s = seconds;
  r.tflops = tflops;
  return r;
}

TEST(TunerProgress, LineShowsCountsBestAndEta) {
  ProgressState s;
  s.label = "gemm";
  s.evaluated = 10;
  s.budget = 40;
  s.failures = 2;
  s.reused = 5;
  s.best = ok_result(1.5e-3, 91.6);  // synthetic figures
  s.elapsed_s = 20;
  std::string line = format_progress_line(s);
  EXPECT_NE(line.find("gemm: 10/40 evaluated (+5 reused), 2 failed"), std::string::npos) << line;
  EXPECT_NE(line.find("best 1.500 ms 91.6 TFLOP/s"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA 1:00"), std::string::npos) << line;  // 30 left at 2 s each
}

TEST(TunerProgress, EtaIsTheSoonerOfBudgetAndTimeLimit) {
  ProgressState s;
  s.evaluated = 10;
  s.budget = 40;
  s.elapsed_s = 20;
  s.time_limit_s = 25;
  ASSERT_TRUE(estimate_eta(s));
  EXPECT_DOUBLE_EQ(*estimate_eta(s), 5.0);
  ProgressState none;
  EXPECT_FALSE(estimate_eta(none));
}

TEST(TunerProgress, NoVerifiedResultIsSaid) {
  ProgressState s;
  EXPECT_NE(format_progress_line(s).find("no verified result yet"), std::string::npos);
}

TEST(TunerProgress, PlainOutputHasNoControlCharactersAndIsThrottled) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    StreamProgress progress(f, /*terminal=*/false, /*interval_s=*/3600);
    ProgressState s;
    progress.started(s);
    for (int i = 0; i < 5; ++i) {
      s.evaluated = i + 1;
      progress.batch_done(s);  // within the interval: not printed
    }
    progress.finished(s);
  }
  const std::string text = read_and_close(f);
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_EQ(text.find('\033'), std::string::npos);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;  // start and end
  EXPECT_NE(text.find("5 evaluated"), std::string::npos) << text;
}

TEST(TunerProgress, TerminalOutputRewritesOneLine) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  StreamProgress progress(f, /*terminal=*/true);
  ProgressState s;
  progress.started(s);
  progress.batch_done(s);
  progress.finished(s);
  const std::string text = read_and_close(f);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\r'), 3);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
}

TEST(TunerProgress, TableListsStatusTimeThroughputAndRooflineFraction) {
  Result failed;
  failed.config = Config{{"x", std::int64_t{4}}};
  failed.status = Status::wrong_result;
  std::vector<ResultRow> rows = {{ok_result(2e-3, 68.7), 0.25}, {failed, std::nullopt}};
  std::ostringstream out;
  print_results_table(out, rows, Throughput::tflops);
  std::string text = out.str();
  EXPECT_NE(text.find("TFLOP/s"), std::string::npos) << text;
  EXPECT_NE(text.find("2.000 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("68.7"), std::string::npos) << text;
  EXPECT_NE(text.find("25.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("wrong_result"), std::string::npos) << text;
  EXPECT_NE(text.find("x=4"), std::string::npos) << text;
}

TEST(TunerProgress, DurationsAndClocks) {
  EXPECT_EQ(format_duration(2.5), "2.500 s");
  EXPECT_EQ(format_duration(1.25e-3), "1.250 ms");
  EXPECT_EQ(format_duration(5.6e-5), "56.0 us");
  EXPECT_EQ(format_clock(65), "1:05");
  EXPECT_EQ(format_clock(3725), "1:02:05");
}

}  // namespace
}  // namespace ktune
