// `ktune lookup --device` takes a known GPU's short name ('h200'), its full
// name ('NVIDIA H200') or its arch (sm_90) and answers the same from the
// shipped database: the short name once missed every nearest-shape answer.
#include <gtest/gtest.h>

#include <string>

#include "ktune_test_paths.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

using test::quote;

const std::string kShippedDb = std::string(KTUNE_TEST_DATA_DIR) + "/../../tuning_db/ktune.db";

std::string first_line(const std::string& device, const std::string& problem) {
  const test::ProcessRun r =
      test::shell("env -u KTUNE_DB -u KTUNE_SYSTEM_DB " + quote(test::ktune_path()) +
                  " lookup --db " + quote(kShippedDb) + " --kernel gemm --problem " +
                  quote(problem) + " --device " + quote(device) + " --no-predict");
  EXPECT_EQ(r.code, 0) << r.output;
  return r.output.substr(0, r.output.find('\n'));
}

TEST(LookupDeviceName, ShortNameFullNameAndArchGiveOneAnswer) {
  // 1024^3 is not in the database; 1000^3 is, with the same shape class.
  const std::string problem = "m=1024,n=1024,k=1024,dtype=bf16,layout=nt";
  const std::string full = first_line("NVIDIA H200", problem);
  EXPECT_NE(full.find("(nearest)"), std::string::npos) << full;
  EXPECT_EQ(first_line("h200", problem), full);
  EXPECT_EQ(first_line("sm_90", problem), full);
}

}  // namespace
}  // namespace ktune
