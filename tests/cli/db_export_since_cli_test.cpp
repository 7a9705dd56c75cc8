// `ktune db export --since`: only the measurements made at or after a UTC
// time, on the shipped database (how the lent GPU's sweep steps hand back what
// they added to a copy of it); a time it cannot read is one line, exit 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "ktune_test_paths.hpp"
#include "tests/db/db_test_support.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using test::quote;

const std::string kShippedDb = std::string(KTUNE_TEST_DATA_DIR) + "/../../tuning_db/ktune.db";

class DbExportSinceCli : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(dir_); }
  void TearDown() override { fs::remove_all(dir_); }

  test::ProcessRun ktune(const std::string& args) {
    return test::shell("env -u KTUNE_DB -u KTUNE_SYSTEM_DB " + quote(test::ktune_path()) + " " +
                       args);
  }
  /// The measured_at of every record `args` exports, in file order.
  std::vector<std::string> exported_times(const std::string& args) {
    const std::string file = (dir_ / "out.jsonl").string();
    const auto r = ktune("db export --db " + quote(kShippedDb) + " -o " + quote(file) + " " + args);
    EXPECT_EQ(r.code, 0) << r.output;
    std::istringstream in(testing::read_bytes(file));
    std::vector<std::string> times;
    for (std::string line; std::getline(in, line);)
      times.push_back(nlohmann::json::parse(line).at("provenance").at("measured_at"));
    return times;
  }

  fs::path dir_ = fs::temp_directory_path() / ("ktune_export_since_" + std::to_string(::getpid()));
};

TEST_F(DbExportSinceCli, KeepsExactlyTheMeasurementsMadeFromThatTimeOn) {
  std::vector<std::string> all = exported_times("");
  ASSERT_GT(all.size(), 100u);
  std::vector<std::string> sorted = all;
  std::sort(sorted.begin(), sorted.end());
  // A time inside the database's span, written as a user would: seconds, no fraction.
  const std::string middle = sorted[sorted.size() / 2].substr(0, 19) + "Z";
  const auto since = exported_times("--since " + middle);
  const auto from_middle = std::count_if(all.begin(), all.end(), [&](const std::string& t) {
    return t >= middle.substr(0, 19) + ".000000Z";
  });
  EXPECT_EQ(static_cast<std::ptrdiff_t>(since.size()), from_middle);
  EXPECT_GT(since.size(), 0u);
  EXPECT_LT(since.size(), all.size());
  // The same instant without its Z or with a space reads the same; a day means its midnight.
  EXPECT_EQ(exported_times("--since " + quote(middle.substr(0, 10) + " " + middle.substr(11, 8))),
            since);
  EXPECT_EQ(exported_times("--since " + middle.substr(0, 10)).size(),
            static_cast<std::size_t>(std::count_if(all.begin(), all.end(), [&](const std::string& t) {
              return t >= middle.substr(0, 10);
            })));
  EXPECT_TRUE(exported_times("--since 2999-01-01").empty());
}

TEST_F(DbExportSinceCli, ATimeItCannotReadIsOneLineAndExitTwo) {
  for (const char* bad :
       {"yesterday", "2026-13-01", "2026-02-30", "2026-12-06T25:00", "12/06/2026"}) {
    const auto r = ktune("db export --db " + quote(kShippedDb) + " -o " +
                         quote((dir_ / "x.jsonl").string()) + " --since " + quote(bad));
    EXPECT_EQ(r.code, 2) << bad << ": " << r.output;
    EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
    EXPECT_NE(r.output.find("--since"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "x.jsonl")) << bad;
  }
}

}  // namespace
}  // namespace ktune
