// Follows the README's "Tune your own kernel" section verbatim: every `ktune`
// line of its code block runs from the repository root; the GPU tuning line
// must tune where there is a GPU and say why not where there is none.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "measure/device_query.hpp"
#include "tests/db/db_test_support.hpp"
#include "tests/ktune_process.hpp"
#include "tests/user/user_test_support.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

/// The `ktune ...` lines of the first code block after `heading` in README.md.
std::vector<std::string> readme_commands(const std::string& heading) {
  const fs::path root = test::user_examples_dir().parent_path().parent_path();
  std::ifstream in(root / "README.md");
  std::vector<std::string> commands;
  bool in_section = false, in_block = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == heading;
    if (!in_section) continue;
    if (line.rfind("```", 0) == 0) {
      if (in_block) break;
      in_block = true;
      continue;
    }
    if (in_block && line.rfind("ktune ", 0) == 0) commands.push_back(line.substr(6));
  }
  return commands;
}

TEST(ReadmeUserKernel, SectionRunsVerbatim) {
  const auto commands = readme_commands("## Tune your own kernel");
  ASSERT_EQ(commands.size(), 3u) << "the README section changed: update this test";
  testing::TempDir dir;
  const std::string root = test::user_examples_dir().parent_path().parent_path().string();
  auto run = [&](const std::string& args) {
    return test::shell("cd " + test::quote(root) +
                       " && KTUNE_DB=" + test::quote(dir.file("readme.db")) + " " +
                       test::quote(test::ktune_path()) + " " + args);
  };
  const auto space = run(commands[0]);
  EXPECT_EQ(space.code, 0) << space.output;
  EXPECT_NE(space.output.find("valid configurations:"), std::string::npos) << space.output;
  const auto compile = run(commands[1]);
  EXPECT_EQ(compile.code, 0) << compile.output;
  EXPECT_NE(compile.output.find("8 compiled, 0 failed"), std::string::npos) << compile.output;
  const auto tune = run(commands[2]);
  if (query_devices().devices.empty()) {
    EXPECT_EQ(tune.code, 1) << tune.output;
    EXPECT_NE(tune.output.find("no GPU"), std::string::npos) << tune.output;
  } else {
    EXPECT_EQ(tune.code, 0) << tune.output;
    EXPECT_NE(tune.output.find("Tuning example_transpose"), std::string::npos) << tune.output;
  }
}

}  // namespace
}  // namespace ktune
