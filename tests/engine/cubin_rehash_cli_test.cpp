// `ktune db rehash --compare-cubins` through the built binary: results of the
// mma.sync GEMM path measured with an older text of its templates move to the
// current hash only where the configuration compiles to the same machine code
// under both texts. Runs NVRTC, no GPU; times are SYNTHETIC, never measured.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../ktune_process.hpp"
#include "compile/compiler.hpp"
#include "compile/family_hash.hpp"
#include "db/store.hpp"
#include "space/value_map.hpp"
#include "tests/db/db_test_support.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using test::quote;

/// A copy of the current kernels_templated whose gemm_tc.cuh has `edit`
/// applied: the "older text" the database's results were measured with.
std::string older_text(const fs::path& root, const std::function<void(std::string&)>& edit) {
  const fs::path dir = root / "kernels_templated";
  fs::create_directories(root);
  fs::copy(Compiler::kernel_dir(), dir, fs::copy_options::recursive);
  const fs::path file = dir / "gemm" / "gemm_tc.cuh";
  std::ostringstream text;
  text << std::ifstream(file).rdbuf();
  std::string s = text.str();
  edit(s);
  std::ofstream(file, std::ios::trunc) << s;
  return dir.string();
}

struct Case {
  ktune::testing::TempDir dir;
  const KernelFamily& gemm = find_family("gemm");
  DeviceSpec h200 = find_builtin_device("NVIDIA H200").value();
  Problem problem =
      parse_problem(gemm, "m=512,n=512,k=512,dtype=bf16,layout=nn,path=mma");  // the mma.sync path
  Config two_stages, three_stages;
  std::string db = dir.file("results.db");

  Case() {
    const Space space = gemm.space(problem, h200);
    two_stages = three_stages = gemm.default_config(problem, h200);
    two_stages.set("STAGES", std::int64_t{2});
    three_stages.set("STAGES", std::int64_t{3});
    space.check(two_stages);
    space.check(three_stages);
  }

  /// Both configurations stored as measured with the text in `old_dir` (one
  /// of them a wrong result: a status moves with its configuration).
  void store_measured_with(const std::string& old_dir) {
    Store store = Store::open(db);
    store.record(
        ktune::testing::gemm_key(problem, h200, family_source_hash(gemm, problem, h200, old_dir)),
        std::vector<Result>{ktune::testing::ok_result(three_stages, 1e-4),
                            ktune::testing::failed_result(two_stages, Status::wrong_result)},
        ktune::testing::test_provenance());
  }

  test::ProcessRun rehash(const std::string& old_dir, const std::string& more = "") {
    return test::ktune("db rehash --kernel gemm --compare-cubins " + quote(old_dir) + " --db " +
                       quote(db) + " " + more);
  }
  std::int64_t stale() {
    Store store = Store::open_read_only(db);
    std::int64_t n = 0;
    for (const auto& s : stale_results(store, "gemm", current_hash_resolver())) n += s.results;
    return n;
  }
};

TEST(CubinRehashCli, ACommentEditMovesEveryResult) {
  Case c;
  const std::string old_dir = older_text(c.dir.path() / "old", [](std::string& s) {
    s.insert(0, "// A comment the current text does not have.\n");
  });
  c.store_measured_with(old_dir);
  ASSERT_EQ(c.stale(), 2);

  auto dry = c.rehash(old_dir, "--dry-run");
  ASSERT_EQ(dry.code, 0) << dry.output;
  EXPECT_NE(dry.output.find("2 identical: 2 results would move"), std::string::npos) << dry.output;
  EXPECT_EQ(c.stale(), 2) << "a dry run writes nothing";

  auto run = c.rehash(old_dir);
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("compared the cubins of 2 stale gemm configurations"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("2 identical: 2 results moved"), std::string::npos) << run.output;
  EXPECT_EQ(c.stale(), 0);
  // The wrong result moved with its status: never served under the new hash.
  auto lookup = test::ktune(
      "lookup --kernel gemm --problem m=512,n=512,k=512,dtype=bf16,layout=nn,path=mma "
      "--device 'NVIDIA H200' --json --db " +
      quote(c.db) + " --system-db " + quote(c.db));
  ASSERT_EQ(lookup.code, 0) << lookup.output;
  EXPECT_NE(lookup.output.find("\"exact\""), std::string::npos) << lookup.output;
  EXPECT_NE(lookup.output.find("STAGES=3"), std::string::npos) << lookup.output;
}

TEST(CubinRehashCli, ACodeEditMovesOnlyTheConfigurationsItDoesNotChange) {
  Case c;
  // The older text had an extra branch in two-stage kernels only.
  const std::string old_dir = older_text(c.dir.path() / "old", [](std::string& s) {
    const std::string anchor = "static_assert(STAGES >= 1 && STAGES <= 6, \"1 to 6 stages\");";
    const auto at = s.find(anchor);
    ASSERT_NE(at, std::string::npos) << "gemm_tc.cuh changed: update the test's anchor";
    s.insert(
        at + anchor.size(),
        "\n  if constexpr (STAGES == 2) { if (threadIdx.x == 9999) asm volatile(\"trap;\"); }");
  });
  c.store_measured_with(old_dir);

  auto run = c.rehash(old_dir);
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("1 identical: 1 results moved"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("1 with different cubins"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("STAGES=2"), std::string::npos)
      << "the example names the one left: " << run.output;
  EXPECT_EQ(c.stale(), 1);
}

TEST(CubinRehashCli, AFileAddedSinceIsLeftOutOfTheOlderTextsHash) {
  Case c;
  // The older checkout had no gemm_splitk.cuh (the kernels timed here do not
  // include it: no K split). Its results were stored under the hash of the
  // path's other files, concatenated in the path's order.
  const std::string old_dir = older_text(c.dir.path() / "old", [](std::string&) {});
  const std::string added = "gemm/gemm_splitk.cuh";
  fs::remove(fs::path(old_dir) / added);
  std::string text;
  for (const std::string& rel : c.gemm.template_files_for(c.problem, c.h200))
    if (rel != added) text += ktune::testing::read_bytes((fs::path(old_dir) / rel).string());
  Store(Store::open(c.db))
      .record(ktune::testing::gemm_key(c.problem, c.h200, stable_hash_hex(text)),
              std::vector<Result>{ktune::testing::ok_result(c.three_stages, 1e-4)}, ktune::testing::test_provenance());
  ASSERT_EQ(c.stale(), 1);

  auto run = c.rehash(old_dir);
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("1 identical: 1 results moved"), std::string::npos) << run.output;
  EXPECT_EQ(c.stale(), 0);
}

TEST(CubinRehashCli, AFolderWithoutTheMeasuredTextMovesNothing) {
  Case c;
  const std::string old_dir =
      older_text(c.dir.path() / "old", [](std::string& s) { s.insert(0, "// older\n"); });
  c.store_measured_with(old_dir);
  const std::string before = ktune::testing::read_bytes(c.db);
  auto missing = c.rehash((c.dir.path() / "no-such-folder").string());
  EXPECT_NE(missing.code, 0) << missing.output;
  EXPECT_NE(missing.output.find("is not a folder"), std::string::npos) << missing.output;
  auto empty = c.rehash(c.dir.path().string());  // a folder, but no templates in it
  EXPECT_NE(empty.code, 0) << empty.output;
  EXPECT_NE(empty.output.find("does not hold the gemm templates"), std::string::npos)
      << empty.output;
  // The current text is not the text these results were measured with.
  auto other = c.rehash(Compiler::kernel_dir());
  EXPECT_EQ(other.code, 0) << other.output;
  EXPECT_NE(other.output.find("compared the cubins of 0 stale"), std::string::npos) << other.output;
  EXPECT_NE(other.output.find("2 stored under a hash these templates do not give"),
            std::string::npos)
      << other.output;
  EXPECT_EQ(ktune::testing::read_bytes(c.db), before);
  EXPECT_EQ(c.stale(), 2);
}

}  // namespace
}  // namespace ktune
