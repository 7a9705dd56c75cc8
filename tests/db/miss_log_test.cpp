// The lookup's miss log: opt-in, one line per problem answered without an
// exact measurement, deduplicated (across reopenings too), safe under threads.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "db/lookup.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

LookupRequest request(const Problem& p) {
  LookupRequest r = gemm_request(p, "Synthetic GPU A");
  r.default_config = tile_config(64, 64);
  return r;
}

std::vector<nlohmann::json> lines_of(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

class MissLog : public TunedDbTest {
 protected:
  std::string log_ = dir_.file("misses.jsonl");
};

TEST_F(MissLog, LogsEachProblemWithoutAnExactMeasurementOnce) {
  Lookup lookup = Lookup::open(db_);
  lookup.best(request(gemm_problem(1000, 1024, 1024)));  // before opting in: not logged
  lookup.log_misses(log_);
  lookup.best(request(gemm_problem(1024, 1024, 1024)));    // exact: not logged
  lookup.best(request(gemm_problem(1000, 1000, 1024)));    // nearest
  lookup.best(request(gemm_problem(1000, 1000, 1024)));    // again: once
  lookup.best(request(gemm_problem(77, 77, 77, "tf32")));  // default
  auto lines = lines_of(log_);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["family"], "gemm");
  EXPECT_EQ(lines[0]["problem"], gemm_problem(1000, 1000, 1024).key());
  EXPECT_EQ(lines[0]["device"], "Synthetic GPU A");
  EXPECT_EQ(lines[0]["arch"], "sm_90");
  EXPECT_EQ(lines[1]["problem"], gemm_problem(77, 77, 77, "tf32").key());
  // Another process (a fresh lookup) appends only what the file lacks.
  Lookup again = Lookup::open(db_);
  again.log_misses(log_);
  again.best(request(gemm_problem(1000, 1000, 1024)));
  again.best(request(gemm_problem(3000, 1024, 1024)));
  EXPECT_EQ(lines_of(log_).size(), 3u);
}

TEST_F(MissLog, ConcurrentLookupsWriteWholeDistinctLines) {
  Lookup lookup = Lookup::open(db_);
  lookup.log_misses(log_);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i)
        lookup.best(request(gemm_problem(100 + (i * 7 + t) % 150, 512, 512)));
    });
  for (auto& t : threads) t.join();
  auto lines = lines_of(log_);  // every line parses: none interleaved
  std::set<std::string> problems;
  for (const auto& l : lines) problems.insert(l["problem"].get<std::string>());
  EXPECT_EQ(lines.size(), 150u);
  EXPECT_EQ(problems.size(), 150u);
}

TEST_F(MissLog, AnUnwritableLogIsRefusedWithItsPath) {
  Lookup lookup = Lookup::open(db_);
  try {
    lookup.log_misses(dir_.file("no/such/folder/misses.jsonl"));
    FAIL() << "expected DatabaseError";
  } catch (const DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("no/such/folder/misses.jsonl"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ktune
