// The hostile files of issue 49, through the `ktune` binary: each is refused
// with exit 2 and one line that names what is wrong (no crash, no exit 1), and
// the database is byte-for-byte what it was. A stored row that cannot be read
// is skipped with a warning naming its id; the other rows still answer.
#include <gtest/gtest.h>

#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ktune_test_paths.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::quote;

const std::string kShippedDb = std::string(KTUNE_TEST_DATA_DIR) + "/../../tuning_db/ktune.db";

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

// "k=v,..." of a problem object, as --problem takes it.
std::string problem_text(const json& problem) {
  std::string out;
  for (auto it = problem.begin(); it != problem.end(); ++it)
    out += (out.empty() ? "" : ",") + it.key() + "=" +
           (it->is_string() ? it->get<std::string>() : it->dump());
  return out;
}

// Two ok measurements of one problem on one GPU, from the shipped database's
// JSON Lines export: the seed of every test's database.
const std::vector<std::string>& seed_lines() {
  static const std::vector<std::string> lines = [] {
    // Per process: CTest runs these tests in parallel, each exporting its seed.
    const fs::path file =
        fs::temp_directory_path() / ("ktune_hostile_seed_" + std::to_string(::getpid()) + ".jsonl");
    auto run = test::ktune("db export --db " + quote(kShippedDb) + " -o " + quote(file.string()));
    std::map<std::string, std::vector<std::string>> by_problem;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
      const json j = json::parse(line);
      if (j["result"]["status"] != "ok") continue;
      auto& group =
          by_problem[j["family_hash"].dump() + j["device"]["name"].dump() + j["problem"].dump()];
      group.push_back(line);
      if (group.size() == 2) {
        fs::remove(file);
        return group;
      }
    }
    ADD_FAILURE() << "no problem with two ok measurements in " << kShippedDb << ": " << run.output;
    return std::vector<std::string>{};
  }();
  return lines;
}

class HostileFilesCli : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(seed_lines().size(), 2u);
    dir_ = fs::temp_directory_path() /
           (std::string("ktune_hostile_cli_") +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = (dir_ / "tuned.db").string();
    write_file(dir_ / "good.jsonl", seed_lines()[0] + "\n" + seed_lines()[1] + "\n");
    auto imported =
        run("db import --db " + quote(db_) + " " + quote((dir_ / "good.jsonl").string()));
    ASSERT_EQ(imported.code, 0) << imported.output;
    before_ = read_file(db_);
  }
  void TearDown() override {
    EXPECT_EQ(read_file(db_), before_) << "the database changed";
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  test::ProcessRun run(const std::string& args, const std::string& env = "") const {
    return test::shell("env -u KTUNE_DB -u KTUNE_SYSTEM_DB -u KTUNE_LOOKUP_LOG " + env + " " +
                       quote(test::ktune_path()) + " " + args);
  }
  /// `ktune ARGS` exits 2 with one line, "ktune: ..." containing `fragment`.
  void expect_refused(const std::string& args, const std::string& fragment) const {
    SCOPED_TRACE(args.substr(0, 300));
    auto r = run(args);
    EXPECT_EQ(r.code, 2) << r.output.substr(0, 2000);
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output.substr(0, 2000);
    EXPECT_EQ(r.output.rfind("ktune: ", 0), 0u) << r.output.substr(0, 2000);
    EXPECT_NE(r.output.find(fragment), std::string::npos) << r.output.substr(0, 2000);
    EXPECT_LT(r.output.size(), 1500u) << "what is echoed is bounded";
  }
  std::string import_args(const fs::path& file) const {
    return "db import --db " + quote(db_) + " " + quote(file.string());
  }
  /// The seed's first line with `edit` applied to its JSON.
  std::string edited(const std::function<void(json&)>& edit) const {
    json j = json::parse(seed_lines()[0]);
    edit(j);
    return j.dump() + "\n";
  }
  std::string lookup_args(const json& seed, const std::string& problem) const {
    return "lookup --kernel gemm --problem " + quote(problem) + " --device " +
           quote(seed["device"]["name"].get<std::string>()) + " --hash " +
           quote(seed["family_hash"].get<std::string>()) + " --no-predict --json";
  }

  fs::path dir_;
  std::string db_, before_;
};

// 1. A number past a double's range in a T4 file: exit 1 with no line before.
TEST_F(HostileFilesCli, AT4TimeOf1e400IsRefusedWithItsLine) {
  auto exported =
      run("db export --db " + quote(db_) + " -o " + quote((dir_ / "out.json").string()));
  ASSERT_EQ(exported.code, 0) << exported.output;
  const std::string t4 =
      std::regex_replace(read_file(dir_ / "out.json"), std::regex("\"median_s\":[-0-9.e+]+"),
                         "\"median_s\":1e400", std::regex_constants::format_first_only);
  write_file(dir_ / "huge.json", t4);
  expect_refused(import_args(dir_ / "huge.json"), "line 3: ");
  expect_refused(import_args(dir_ / "huge.json"), "number overflow parsing '1e400'");
}

// 2. Metrics nested 70,000 levels deep crashed the import (stack overflow).
TEST_F(HostileFilesCli, MetricsNested70000LevelsDeepAreRefusedNotACrash) {
  const std::string seed = seed_lines()[0];
  const std::string deep =
      "{\"deep\":" + std::string(70000, '[') + std::string(70000, ']') + "," + seed.substr(1);
  write_file(dir_ / "deep.jsonl", deep + "\n");
  expect_refused(import_args(dir_ / "deep.jsonl"), "line 1: nested deeper than 64 levels");
}

// 3. One row whose metrics SQLite cannot read made every lookup fail.
TEST_F(HostileFilesCli, AnUnreadableRowIsSkippedWithAWarningAndTheOtherServes) {
  std::int64_t row = 0;
  std::string other_config;
  {
    SQLite::Database db(db_, SQLite::OPEN_READWRITE);
    SQLite::Statement q(db, "SELECT r.id FROM results r ORDER BY r.median_s LIMIT 1");
    ASSERT_TRUE(q.executeStep());
    row = q.getColumn(0).getInt64();
    other_config = db.execAndGet(
                         "SELECT c.key FROM results r JOIN configs c ON c.id = r.config_id "
                         "WHERE r.id <> " +
                         std::to_string(row))
                       .getString();
    std::string deep;
    for (int i = 0; i < 5000; ++i) deep += "{\"a\":";
    deep += "1" + std::string(5000, '}');
    SQLite::Statement update(db, "UPDATE results SET metrics = ? WHERE id = ?");
    update.bind(1, deep);
    update.bind(2, row);
    update.exec();
  }
  before_ = read_file(db_);
  const json seed = json::parse(seed_lines()[0]);
  auto r = run(lookup_args(seed, problem_text(seed["problem"])) + " --db " + quote(db_) +
               " --system-db ''");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("warning: '" + db_ + "': results row " + std::to_string(row) +
                          " cannot be read"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("\"config_key\": \"" + other_config + "\""), std::string::npos)
      << r.output;
}

// 4. Device fields out of range: 2^64-1 came back as -1; 0 and negative counts passed.
TEST_F(HostileFilesCli, DeviceFieldsOutOfRangeAreRefused) {
  const std::vector<std::pair<std::function<void(json&)>, std::string>> cases = {
      {[](json& j) { j["device"]["sm_count"] = std::numeric_limits<std::uint64_t>::max(); },
       "'device.sm_count': 18446744073709551615 is out of range"},
      {[](json& j) { j["device"]["sm_count"] = 0; }, "'device.sm_count': 0 is not a count of SMs"},
      {[](json& j) { j["device"]["sm_count"] = -1; }, "'device.sm_count': -1 is negative"},
      {[](json& j) { j["device"]["dram_gbps"] = -100.0; }, "'device.dram_gbps': -100"},
  };
  for (const auto& [edit, fragment] : cases) {
    write_file(dir_ / "device.jsonl", edited(edit));
    expect_refused(import_args(dir_ / "device.jsonl"), "line 1: " + fragment);
  }
}

// 5. A CSV cell that is not UTF-8 imported, and then export and lookup --json exited 1.
TEST_F(HostileFilesCli, ACsvCellThatIsNotUtf8IsRefused) {
  auto exported = run("db export --db " + quote(db_) + " -o " + quote((dir_ / "out.csv").string()));
  ASSERT_EQ(exported.code, 0) << exported.output;
  std::string csv = read_file(dir_ / "out.csv");
  const std::size_t second_line = csv.find('\n') + 1;
  csv.insert(second_line + 1, "\xff");  // inside the device name of the first record
  write_file(dir_ / "bad.csv", csv);
  expect_refused(import_args(dir_ / "bad.csv"),
                 "line 2: column 'device_name': byte 2 is not UTF-8");
}

// 6. A folder or a symlink loop as a database or import path exited 1; a
// folder named .jsonl was "empty".
TEST_F(HostileFilesCli, AFolderOrASymlinkLoopIsRefusedAsDatabaseAndAsImport) {
  const fs::path folder = dir_ / "folder.db", loop = dir_ / "loop.db";
  fs::create_directory(folder);
  fs::create_directory(dir_ / "records.jsonl");
  fs::create_symlink(loop, loop);
  fs::create_symlink(dir_ / "loop.jsonl", dir_ / "loop.jsonl");
  const json seed = json::parse(seed_lines()[0]);
  const std::string lookup = lookup_args(seed, problem_text(seed["problem"]));
  const std::string good = quote((dir_ / "good.jsonl").string());
  for (const fs::path& path : {folder, loop}) {
    const std::string why = path == folder ? "is a folder" : "Too many levels of symbolic links";
    const std::string db = " --db " + quote(path.string());
    expect_refused("db stats" + db, why);
    expect_refused("db import" + db + " " + good, why);
    expect_refused("db export" + db + " -o -", why);
    expect_refused(lookup + db + " --system-db ''", why);
    expect_refused(lookup + " --db '' --system-db " + quote(path.string()), why);
    expect_refused("db merge " + quote(db_) + " -o " + quote(path.string()), why);
  }
  expect_refused(import_args(dir_ / "records.jsonl"), "is a folder, not a file to import");
  expect_refused(import_args(dir_ / "loop.jsonl"), "Too many levels of symbolic links");
  EXPECT_TRUE(fs::is_directory(folder));
}

// 7. Processes logging the same miss at once logged it many times. End to end
// through --log-misses and KTUNE_LOOKUP_LOG; whether the processes overlap is
// up to the scheduler, so tests/db/hostile_files_test.cpp holds them at a
// barrier to make the race certain.
TEST_F(HostileFilesCli, ProcessesSharingAMissLogLogAMissOnce) {
  const json seed = json::parse(seed_lines()[0]);
  json problem = seed["problem"];
  problem["m"] = problem["m"].get<std::int64_t>() + 8;  // measured nowhere: a nearest answer
  const std::string log = (dir_ / "misses.jsonl").string();
  const std::string args =
      lookup_args(seed, problem_text(problem)) + " --db " + quote(db_) + " --system-db ''";
  constexpr int kProcesses = 6;
  std::vector<test::ProcessRun> runs(kProcesses);
  std::vector<std::thread> threads;
  for (int i = 0; i < kProcesses; ++i)
    threads.emplace_back([&, i] {
      runs[i] = i % 2 ? run(args + " --log-misses " + quote(log))
                      : run(args, "KTUNE_LOOKUP_LOG=" + quote(log));
    });
  for (auto& t : threads) t.join();
  for (const auto& r : runs) EXPECT_EQ(r.code, 0) << r.output;
  const std::string text = read_file(log);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
}

// 8. The partial file of a killed merge was accepted as a database.
TEST_F(HostileFilesCli, TheLeftoverOfAKilledMergeIsNoDatabase) {
  const fs::path partial = dir_ / "merged.db.ktune-partial-otherhost-4242-0";
  fs::copy_file(db_, partial);
  const std::string bytes = read_file(partial);
  const json seed = json::parse(seed_lines()[0]);
  expect_refused("db stats --db " + quote(partial.string()), "unfinished output of a merge");
  expect_refused(lookup_args(seed, problem_text(seed["problem"])) + " --db '' --system-db " +
                     quote(partial.string()),
                 "unfinished output of a merge");
  EXPECT_EQ(read_file(partial), bytes);
}

// 9. `m=true` and `alpha=nan` were accepted as problem values, and a message
// echoed its input in full, however long.
TEST_F(HostileFilesCli, ProblemValuesAreCheckedAndLongInputIsNotEchoedInFull) {
  const std::string space = "space --kernel gemm --device h200 --problem ";
  expect_refused(space + "m=true,n=64,k=64", "gemm: 'm=true' is not a size");
  expect_refused(space + "m=64,n=64,k=64,alpha=nan", "gemm: 'alpha=nan' is not a finite number");
  expect_refused(space + "m=64,n=64,k=64,beta=-inf", "gemm: 'beta=-inf' is not a finite number");
  // One argument may hold at most 128 KiB: a long one on the command line...
  expect_refused(space + "m=64,n=64,k=64,dtype=" + std::string(100000, 'x'), "left out");
  // ... and a 1 MB value in a file.
  write_file(dir_ / "long.jsonl", edited([](json& j) { j["family"] = std::string(1 << 20, 'g'); }));
  expect_refused(import_args(dir_ / "long.jsonl"), "'family' is 1048576 bytes long (at most 256)");
  write_file(dir_ / "true.jsonl", edited([](json& j) {
               j["problem"]["m"] = true;
               j["shape_keys"] = json::array();
             }));
  expect_refused(import_args(dir_ / "true.jsonl"), "'m=true' is not a size");
}

}  // namespace
}  // namespace ktune
