// The shipped database's emitted library builds and serves an application:
// `ktune emit-library` over every family tuning_db/ktune.db holds, the tree
// built with examples/emitted_app against the install tree (find_package),
// and the application run (without a GPU it stops after opening the library).
// Minutes on 2 cores: nvcc compiles every kernel the routes need.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "db/store.hpp"
#include "ktune_test_paths.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using test::quote;
using test::shell;

/// Per GPU arch, the families with results in `db`.
std::map<std::string, std::set<std::string>> families_by_arch(const std::string& db) {
  std::map<std::string, std::set<std::string>> out;
  Store::open_read_only(db).for_each([&](const Measurement& m) {
    out[m.key.device.arch()].insert(m.key.family);
    return true;
  });
  return out;
}

TEST(EmittedApp, TheShippedDatabasesLibraryBuildsFromTheInstallTreeAndRuns) {
  const char* env = std::getenv("CUDACXX");
  const std::string nvcc = env && *env ? env : "/usr/local/cuda/bin/nvcc";
  if (!fs::exists(nvcc)) GTEST_SKIP() << "no nvcc at " << nvcc;
  const fs::path root = fs::path(KTUNE_TEST_DATA_DIR).parent_path().parent_path();
  const std::string shipped = (root / "tuning_db" / "ktune.db").string();
  const fs::path dir =
      fs::temp_directory_path() / ("ktune_emitted_app_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string log = (dir / "build.log").string();
  const std::string to_log = " >> " + quote(log) + " 2>&1";

  auto install = shell("cmake --install " + quote(KTUNE_BINARY_DIR) + " --prefix " +
                       quote((dir / "prefix").string()) + to_log);
  ASSERT_EQ(install.code, 0) << "see " << log;

  const auto by_arch = families_by_arch(shipped);
  ASSERT_FALSE(by_arch.empty()) << shipped << " holds no result";
  for (const auto& [arch, families] : by_arch) {
    SCOPED_TRACE(arch);
    std::string list;
    for (const std::string& f : families) list += (list.empty() ? "" : ",") + f;
    const fs::path lib = dir / ("lib_" + arch), app = dir / ("app_" + arch);
    auto emit = test::ktune("emit-library --db " + quote(shipped) + " --device " + arch +
                            " --kernel " + list + " -o " + quote(lib.string()));
    ASSERT_EQ(emit.code, 0) << emit.output;

    auto configure =
        shell("cmake -S " + quote((root / "examples" / "emitted_app").string()) + " -B " +
              quote(app.string()) + " -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER=" +
              quote(nvcc) + " -DCMAKE_PREFIX_PATH=" + quote((dir / "prefix").string()) +
              " -DEMITTED_DIR=" + quote(lib.string()) + to_log);
    ASSERT_EQ(configure.code, 0) << "see " << log;
    auto build = shell("cmake --build " + quote(app.string()) + to_log);
    ASSERT_EQ(build.code, 0) << "see " << log;

    auto run = shell(quote((app / "ktune_emitted_app").string()));
    EXPECT_EQ(run.code, 0) << run.output;
    EXPECT_NE(run.output.find("emitted from " + shipped + " for " + arch), std::string::npos)
        << run.output;
    for (const std::string& f : families)
      EXPECT_NE(run.output.find(f + "="), std::string::npos) << run.output;  // its template hash
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ktune
