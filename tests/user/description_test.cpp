// Reading kernel descriptions: the examples load, and each kind of bad
// description is refused with a DescriptionError naming the field.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "kernels_user/description.hpp"
#include "tests/db/db_test_support.hpp"
#include "tests/user/user_test_support.hpp"

namespace ktune::user {
namespace {

using nlohmann::json;

/// The message of the DescriptionError `path` raises ("" when it loads).
std::string load_error(const std::string& path) {
  try {
    load_description(path);
  } catch (const DescriptionError& e) {
    return e.what();
  }
  return "";
}

class Description : public ::testing::Test {
 protected:
  /// The error of the scale description after `edit`.
  std::string error_after(const std::function<void(json&)>& edit) {
    json d = test::scale_description();
    edit(d);
    return load_error(test::write_scale(dir_.path(), d));
  }
  testing::TempDir dir_;
};

TEST_F(Description, ExamplesLoad) {
  for (const char* name :
       {"transpose/transpose.json", "conv2d/conv2d.json", "block_reduce/block_reduce.json"}) {
    const KernelDescription d = load_description((test::user_examples_dir() / name).string());
    EXPECT_FALSE(d.sources.empty()) << name;
    EXPECT_FALSE(d.arguments.empty()) << name;
  }
}

TEST_F(Description, ScaleLoadsWithItsFields) {
  const KernelDescription d =
      load_description(test::write_scale(dir_.path(), test::scale_description()));
  EXPECT_EQ(d.name, "test_scale");
  ASSERT_EQ(d.passing.size(), 2u);
  EXPECT_EQ(d.passing[0].second, PassAs::template_argument);
  EXPECT_EQ(d.passing[1].second, PassAs::define);
  EXPECT_EQ(d.size_defaults.integer("n"), 1000);
  EXPECT_EQ(d.arguments[1].fill, Fill::index);
  EXPECT_TRUE(d.arguments[0].output);
  EXPECT_EQ(d.verification.by, VerifyBy::first_valid);
}

TEST_F(Description, UnknownParameterInAConstraintNamesTheConstraint) {
  const std::string e = error_after([](json& d) { d["constraints"] = {"BLOCK * UNROL < 256"}; });
  EXPECT_NE(e.find("constraints"), std::string::npos) << e;
  EXPECT_NE(e.find("UNROL"), std::string::npos) << e;
}

TEST_F(Description, GridNamingAnUndefinedSizeNamesTheDimension) {
  const std::string e =
      error_after([](json& d) { d["launch"]["grid"] = {"(m + BLOCK - 1) / BLOCK"}; });
  EXPECT_NE(e.find("launch.grid[0]"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown name 'm'"), std::string::npos) << e;
}

TEST_F(Description, MalformedJsonIsRefused) {
  std::ofstream(dir_.file("bad.json")) << "{\"name\": \"x\",";
  const std::string e = load_error(dir_.file("bad.json"));
  EXPECT_NE(e.find("not JSON"), std::string::npos) << e;
}

TEST_F(Description, MissingSourceNamesTheField) {
  const std::string e = error_after([](json& d) { d["source"] = "nowhere.cu"; });
  EXPECT_NE(e.find("source: cannot read"), std::string::npos) << e;
  EXPECT_NE(error_after([](json& d) { d.erase("source"); }).find("source: missing"),
            std::string::npos);
}

TEST_F(Description, FieldErrorsNameTheField) {
  EXPECT_NE(error_after([](json& d) { d["colour"] = 1; }).find("colour: unknown field"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) {
              d["arguments"][0]["output"] = false;
            }).find("no buffer is an output"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) {
              d["arguments"][1]["count"] = "n * BLOCK";
            }).find("arguments[1].count"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) {
              d["arguments"][2]["scalar"] = "half";
            }).find("arguments[2].scalar"),
            std::string::npos);
  EXPECT_NE(
      error_after([](json& d) { d["parameters"][0]["pass"] = "macro"; }).find("parameters[0].pass"),
      std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["parameters"][0]["default"] = 48; }).find("parameters"),
            std::string::npos);
  EXPECT_NE(
      error_after([](json& d) { d["launch"]["block"] = {"BLOCK == 32"}; }).find("launch.block[0]"),
      std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["sizes"]["n"] = -4; }).find("sizes.n"), std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["name"] = "gemm"; }).find("built-in"), std::string::npos);
  EXPECT_NE(error_after([](json& d) {
              d["verification"] = {{"reference_file", "none.bin"}};
            }).find("verification.reference_file"),
            std::string::npos);
  EXPECT_EQ(error_after([](json&) {}), "");
}

TEST(DescriptionLaunch, EvaluatesGridAndBlockForAConfiguration) {
  LaunchShape shape;
  shape.grid = {"(n + B - 1) / B", "2", "1"};
  shape.block = {"B", "1", "1"};
  shape.shared_memory = "B * 4";
  ValueMap names;
  names.set("n", std::int64_t{1000});
  names.set("B", std::int64_t{64});
  const LaunchDims dims = evaluate_launch(shape, names);
  EXPECT_EQ(dims.grid[0], 16);
  EXPECT_EQ(dims.grid[1], 2);
  EXPECT_EQ(dims.block[0], 64);
  EXPECT_EQ(dims.shared_memory, 256);
  names.set("B", std::int64_t{0});
  EXPECT_THROW(evaluate_launch(shape, names), DescriptionError);  // division by zero
}

}  // namespace
}  // namespace ktune::user
