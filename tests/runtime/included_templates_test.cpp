// included_templates: the headers a kernel source needs, by its #include
// lines (any extension), through headers that include each other, and only
// those under the kernel folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "emit/included_templates.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

class IncludedTemplates : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ktune_included_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    write(
        "kernels_templated/fam/kernel.cuh",
        "#pragma once\n#include \"kernels_templated/fam/types.hpp\"\n  #  include \"beside.inc\"\n"
        "#include <cuda_bf16.h>\n#include \"runtime/host_only.hpp\"\n");
    write("kernels_templated/fam/types.hpp", "#include <kernels_templated/common/util.h>\n");
    write("kernels_templated/fam/beside.inc", "#include \"kernel.cuh\"\n");  // a cycle
    write("kernels_templated/common/util.h", "// nothing included\n");
    write("kernels_templated/fam/unused.cuh", "// never included\n");
    write("runtime/host_only.hpp", "// outside the kernel folder\n");
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  std::vector<std::string> found(const std::vector<std::string>& sources) {
    std::vector<std::string> rel;
    for (const fs::path& p : included_templates(root_ / "kernels_templated", sources))
      rel.push_back(p.lexically_relative(fs::weakly_canonical(root_)).generic_string());
    return rel;
  }

  fs::path root_;
};

TEST_F(IncludedTemplates, FollowsIncludesOfAnyExtensionThroughHeaders) {
  const std::vector<std::string> want = {
      "kernels_templated/common/util.h", "kernels_templated/fam/beside.inc",
      "kernels_templated/fam/kernel.cuh", "kernels_templated/fam/types.hpp"};
  EXPECT_EQ(found({"#define X 1\n#include \"kernels_templated/fam/kernel.cuh\"\n"}), want);
}

TEST_F(IncludedTemplates, ASourceIncludingNothingOfTheFolderNeedsNothing) {
  EXPECT_TRUE(found({"#include <cuda_runtime.h>\n#include \"runtime/host_only.hpp\"\n"}).empty());
  EXPECT_TRUE(found({"#include \"kernels_templated/fam/missing.cuh\"\n"}).empty());
}

}  // namespace
}  // namespace ktune
