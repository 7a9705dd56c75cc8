// The test family test_center through the CLI without a GPU: it is one
// folder plus one line of families.def, and `ktune space`, `ktune tune
// --compile-only` (NVRTC), `ktune lookup` and `ktune emit-library` serve it
// like a shipped family. Users never see it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "compile/compiler.hpp"
#include "db/store.hpp"
#include "kernels_templated/family.hpp"
#include "space/device_spec.hpp"
#include "tests/ktune_process.hpp"
#include "tests/support/ranked_results.hpp"

namespace ktune {
namespace {

using test::ktune;
using test::quote;
namespace fs = std::filesystem;

const std::string kProblem = "rows=64,cols=4096,dtype=bf16";

TEST(FamilyTemplateCli, SpaceAndCompileOnlyTuneServeIt) {
  auto space = ktune("space --kernel test_center --problem " + kProblem + " --json");
  ASSERT_EQ(space.code, 0) << space.output;
  EXPECT_NE(space.output.find("row_cache"), std::string::npos);  // a whole-row family's knobs
  auto tune = ktune("tune --kernel test_center --problem " + kProblem +
                    " --compile-only --budget 3 --arch h200 --json");
  ASSERT_EQ(tune.code, 0) << tune.output;
  const auto report = nlohmann::json::parse(tune.output);
  EXPECT_EQ(report.at("compiled"), 3);
  EXPECT_EQ(report.at("failed"), 0);
  auto help = ktune("space --help");
  EXPECT_NE(help.output.find("test_center"), std::string::npos) << help.output;
}

TEST(FamilyTemplateCli, IsHiddenFromUsers) {
  auto run =
      test::shell(std::string("env -u ") + kTestFamiliesEnv + " " + quote(test::ktune_path()) +
                  " space --kernel test_center --problem " + kProblem);
  EXPECT_EQ(run.code, 2) << run.output;
  EXPECT_NE(run.output.find("unknown kernel family 'test_center'"), std::string::npos)
      << run.output;
}

// Results recorded for it are looked up, and a library is emitted from them.
TEST(FamilyTemplateCli, LookupAndEmitLibraryServeItsResults) {
  const fs::path dir =
      fs::temp_directory_path() / ("ktune_family_template_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const KernelFamily& f = find_family("test_center");
  const DeviceSpec d = *find_builtin_device("h200");
  const Problem p = parse_problem(f, kProblem);
  const std::vector<Config> configs = f.space(p, d).sample(2, 5);
  ASSERT_EQ(configs.size(), 2u);
  testing::store_ranked_results((dir / "t.db").string(), f, p, d, configs, /*best=*/0);
  auto lookup =
      ktune("lookup --db " + quote((dir / "t.db").string()) + " --kernel test_center --problem " +
            kProblem + " --device h200 --no-predict --json");
  ASSERT_EQ(lookup.code, 0) << lookup.output;
  EXPECT_NE(lookup.output.find(configs[0].key()), std::string::npos) << lookup.output;

  auto emit = ktune("emit-library --db " + quote((dir / "t.db").string()) +
                    " --device sm_90 --kernel test_center -o " + quote((dir / "lib").string()));
  ASSERT_EQ(emit.code, 0) << emit.output;
  EXPECT_TRUE(fs::exists(dir / "lib" / "include" / "kernels_templated" / "test_center" /
                         "test_center.cuh"));
  std::string router;
  {
    std::ifstream in(dir / "lib" / "router.cpp");
    router.assign(std::istreambuf_iterator<char>(in), {});
  }
  EXPECT_NE(router.find("\"test_center\""), std::string::npos);
  EXPECT_NE(router.find(configs[0].key()), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ktune
