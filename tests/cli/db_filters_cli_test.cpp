// The `--device` and `--kernel` filters of the commands that read a database
// (db query, db diff, db emit-dispatch, record, emit-library), on the shipped
// database: a GPU's short name ('h200') selects what its full name measured,
// as `ktune lookup --device` reads it; a known GPU or arch with nothing
// measured is an empty answer; a name that neither the device table, the
// built-in families nor the database holds is a typo: one line, exit 2.
#include <gtest/gtest.h>

#include <string>

#include "ktune_test_paths.hpp"
#include "tests/db/db_test_support.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

using test::quote;

const std::string kShippedDb = std::string(KTUNE_TEST_DATA_DIR) + "/../../tuning_db/ktune.db";

test::ProcessRun ktune(const std::string& args) {
  return test::shell("env -u KTUNE_DB -u KTUNE_SYSTEM_DB " + quote(test::ktune_path()) + " " +
                     args);
}

std::string query(const std::string& filters) {
  const test::ProcessRun r = ktune("db query --db " + quote(kShippedDb) + " --keys " + filters);
  EXPECT_EQ(r.code, 0) << r.output;
  return r.output;
}

/// Exit 2 and one line that starts with `start`.
void expect_one_line_refusal(const test::ProcessRun& r, const std::string& start) {
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_EQ(r.output.rfind(start, 0), 0u) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
}

TEST(DbFiltersCli, AShortGpuNameSelectsWhatItsFullNameMeasured) {
  const std::string full = query("--device 'NVIDIA H200'");
  EXPECT_FALSE(full.empty());
  EXPECT_EQ(query("--device h200"), full);
  EXPECT_EQ(query("--device 'h100 80gb'"), query("--device 'NVIDIA H100 80GB HBM3'"));
  EXPECT_NE(query("--device h200"), query("--device h100"));
  // An arch in any case, with or without its 'a' suffix, is every GPU of it.
  const std::string arch = query("--device sm_90");
  EXPECT_NE(arch, full);
  EXPECT_EQ(query("--device SM_90"), arch);
  EXPECT_EQ(query("--device sm_90a"), arch);
}

TEST(DbFiltersCli, AKnownGpuOrArchWithNothingMeasuredIsAnEmptyAnswer) {
  for (const char* device : {"sm_80", "'h100 pcie'"}) {
    const test::ProcessRun r = ktune("db query --db " + quote(kShippedDb) + " --device " + device);
    EXPECT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("\n0 problems\n"), std::string::npos) << r.output;
  }
}

TEST(DbFiltersCli, ANameNothingHoldsIsOneLineAndExit2) {
  const std::string db = quote(kShippedDb);
  expect_one_line_refusal(ktune("db query --db " + db + " --device 'NVIDIA H900'"),
                          "ktune: unknown GPU 'NVIDIA H900': neither in the device table nor in "
                          "the database (it stores: NVIDIA H100 80GB HBM3, NVIDIA H200)");
  expect_one_line_refusal(ktune("db query --db " + db + " --kernel gemmx"),
                          "ktune: unknown kernel family 'gemmx': not built in (");
  expect_one_line_refusal(ktune("db diff " + db + " " + db + " --device h2x"),
                          "ktune: unknown GPU 'h2x'");
  expect_one_line_refusal(ktune("db diff " + db + " " + db + " --kernel softmx"),
                          "ktune: unknown kernel family 'softmx'");
  expect_one_line_refusal(
      ktune("db emit-dispatch --db " + db + " --kernel gemm --device h2x -o /dev/null"),
      "ktune: unknown GPU 'h2x'");
  expect_one_line_refusal(ktune("emit-library --db " + db + " --kernel gemm --device hopper -o " +
                                quote(testing::TempDir().file("never"))),
                          "ktune: unknown GPU 'hopper'");
}

TEST(DbFiltersCli, CeilingsTakeTheShortNameAndRefuseAnArch) {
  const test::ProcessRun r = ktune("db ceilings --db " + quote(kShippedDb) + " --device h200");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("NVIDIA H200: copy 4196 GB/s", 0), 0u) << r.output;
  expect_one_line_refusal(ktune("db ceilings --db " + quote(kShippedDb) + " --device sm_90"),
                          "ktune: " + kShippedDb + " holds no GPU named 'sm_90'");
}

TEST(DbFiltersCli, RecordAndEmitDispatchTakeTheShortName) {
  testing::TempDir dir;
  const std::string problem = "m=4096,n=4096,k=4096,dtype=bf16,layout=nt";
  const std::string db = quote(kShippedDb);
  for (const std::string device : {"h200", "'NVIDIA H200'"}) {
    const std::string tag = device == "h200" ? "short" : "full";
    const test::ProcessRun rec =
        ktune("record --db " + db + " --kernel gemm --problem " + problem + " --device " + device +
              " -o " + quote(dir.file(tag + ".json")));
    ASSERT_EQ(rec.code, 0) << rec.output;
    EXPECT_NE(rec.output.find(" on NVIDIA H200 into "), std::string::npos) << rec.output;
    const test::ProcessRun emit = ktune("db emit-dispatch --db " + db + " --kernel gemm --device " +
                                        device + " -o " + quote(dir.file(tag + ".h")));
    ASSERT_EQ(emit.code, 0) << emit.output;
  }
  EXPECT_EQ(testing::read_bytes(dir.file("short.h")), testing::read_bytes(dir.file("full.h")));
  EXPECT_FALSE(testing::read_bytes(dir.file("short.h")).empty());
}

}  // namespace
}  // namespace ktune
