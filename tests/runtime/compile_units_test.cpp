// compile_units: an emitted library's kernel sources grouped into .cu files.
// The sources here are made up; nothing is compiled.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "emit/compile_units.hpp"

namespace ktune {
namespace {

EmittedSource source(int i, std::vector<std::string> options = {}) {
  EmittedSource s;
  s.family = "fam";
  s.config = "X=" + std::to_string(i);
  s.hash = "h" + std::to_string(i);
  s.source.source = "// ktune fam: X=" + std::to_string(i) + "\n#include \"fam/fam.cuh\"\n";
  s.source.kernels = {"fam::kernel<" + std::to_string(i) + ">"};
  s.source.options = std::move(options);
  return s;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string joined(const std::vector<std::string>& units) {
  std::string all;
  for (const auto& u : units) all += u;
  return all;
}

TEST(CompileUnits, SourcesOfOnePreambleShareFilesUpToTheLimit) {
  std::vector<EmittedSource> sources;
  for (int i = 0; i < 20; ++i) sources.push_back(source(i));
  const auto units = compile_units(sources, 8);
  ASSERT_EQ(units.size(), 3u);  // 8 + 8 + 4
  EXPECT_EQ(count(units[0], "extern const ktune::EmittedKernel"), 8);
  EXPECT_EQ(count(units[2], "extern const ktune::EmittedKernel"), 4);
  for (const auto& u : units) {
    // The preamble once a file, without the sources' own comment lines.
    EXPECT_EQ(count(u, "#include \"fam/fam.cuh\""), 1);
    EXPECT_EQ(count(u, "// ktune fam:"), 0);
  }
  // Every source defined once, under the router's name, with its own table.
  const std::string all = joined(units);
  for (int i = 0; i < 20; ++i) {
    const std::string n = std::to_string(i);
    EXPECT_EQ(
        count(all, "ktune_emitted_kernel_" + n + " = {\"h" + n + "\", kFunctions" + n + ", 1}"), 1)
        << i;
    EXPECT_EQ(count(all, "&fam::kernel<" + n + ">)"), 1) << i;
    EXPECT_EQ(count(all, "//   fam X=" + n + "\n"), 1) << i;
  }
}

TEST(CompileUnits, DifferentDefinesNeverShareAFile) {
  // Two configurations of a user kernel (knobs as -D options) and a third
  // with the first one's options.
  const std::vector<EmittedSource> sources = {source(0, {"-DTILE=4", "-DFAST"}),
                                              source(1, {"-DTILE=8", "-DFAST"}),
                                              source(2, {"-DTILE=4", "-DFAST", "-use_fast_math"})};
  const auto units = compile_units(sources, 8);
  ASSERT_EQ(units.size(), 2u);
  EXPECT_NE(units[0].find("#define TILE 4\n#define FAST\n"), std::string::npos) << units[0];
  EXPECT_EQ(count(units[0], "extern const ktune::EmittedKernel"), 2);  // sources 0 and 2
  EXPECT_NE(units[0].find("ktune_emitted_kernel_2 "), std::string::npos);
  EXPECT_NE(units[1].find("#define TILE 8\n"), std::string::npos) << units[1];
  EXPECT_EQ(count(units[1], "#define TILE 4"), 0);
}

TEST(CompileUnits, OneAFileWhenAskedAndNoneForNoSources) {
  std::vector<EmittedSource> sources = {source(0), source(1), source(2)};
  EXPECT_EQ(compile_units(sources, 1).size(), 3u);
  EXPECT_TRUE(compile_units({}, 8).empty());
}

}  // namespace
}  // namespace ktune
