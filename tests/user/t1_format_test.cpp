// The T1 format (odgaard/TuningSchema) read as a kernel description: its
// parameters, conditions, launch sizes and arguments map, the result compiles,
// and what does not map is refused naming the T1 field.
#include <gtest/gtest.h>

#include <fstream>

#include "compile/compiler.hpp"
#include "kernels_user/description.hpp"
#include "kernels_user/t1_format.hpp"
#include "kernels_user/user_family.hpp"
#include "tests/db/db_test_support.hpp"

namespace ktune::user {
namespace {

using nlohmann::json;

json t1_scale() {
  return json::parse(R"json({
    "General": {"FormatVersion": 1},
    "ConfigurationSpace": {
      "TuningParameters": [
        {"Name": "BLOCK", "Type": "int", "Values": "[32, 64, 128]"},
        {"Name": "UNROLL", "Type": "int", "Values": "[1, 2]"}
      ],
      "Conditions": [{"Parameters": ["BLOCK", "UNROLL"], "Expression": "BLOCK * UNROLL < 256 and not (BLOCK == 16)"}]
    },
    "KernelSpecification": {
      "Language": "CUDA",
      "KernelName": "scale_t1",
      "KernelFile": "scale_t1.cu",
      "GlobalSize": {"X": "1000 / UNROLL"},
      "LocalSize": {"X": "BLOCK"},
      "Arguments": [
        {"Name": "y", "Type": "float", "MemoryType": "Vector", "AccessType": "WriteOnly", "Size": 1000,
         "FillType": "Constant", "FillValue": 0},
        {"Name": "x", "Type": "float", "MemoryType": "Vector", "AccessType": "ReadOnly", "Size": 1000,
         "FillType": "Random", "FillValue": 10, "RandomSeed": 3},
        {"Name": "n", "Type": "int32", "MemoryType": "Scalar", "FillValue": 1000}
      ]
    }
  })json");
}

const char* kScaleT1 = R"cu(
extern "C" __global__ void scale_t1(float* y, const float* x, int n) {
  for (int u = 0; u < UNROLL; ++u) {
    const int i = (blockIdx.x * UNROLL + u) * BLOCK + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
  }
}
)cu";

class T1Format : public ::testing::Test {
 protected:
  std::string write(const json& t1) {
    std::ofstream(dir_.file("scale_t1.cu")) << kScaleT1;
    std::ofstream(dir_.file("scale_t1.json")) << t1.dump(2);
    return dir_.file("scale_t1.json");
  }
  testing::TempDir dir_;
};

TEST_F(T1Format, MapsOntoADescriptionThatCompiles) {
  const KernelDescription d = load_description(write(t1_scale()));
  EXPECT_EQ(d.name, "scale_t1");
  ASSERT_EQ(d.passing.size(), 2u);
  EXPECT_EQ(d.passing[0].second, PassAs::define);
  EXPECT_EQ(d.space["constraints"][0], "BLOCK * UNROLL < 256 && ! (BLOCK == 16)");
  EXPECT_TRUE(d.arguments[0].output);
  EXPECT_FALSE(d.arguments[1].output);
  EXPECT_EQ(d.arguments[1].hi, 10);
  EXPECT_EQ(d.arguments[2].expression, "1000");

  const UserFamily f{KernelDescription(d)};
  const Problem p = f.normalize({});
  const Config c{{"BLOCK", std::int64_t{64}}, {"UNROLL", std::int64_t{2}}};
  const LaunchDims dims =
      evaluate_launch(d.launch, expression_names(d, p, *find_builtin_device("h200"), c));
  EXPECT_EQ(dims.grid[0], 8);  // ceil((1000 / 2) / 64): T1's GlobalSize counts threads
  EXPECT_EQ(dims.block[0], 64);
  const CompileOutput out = Compiler(CompilerOptions{}).compile(f.source(p, c));
  EXPECT_TRUE(out.ok) << out.log;
}

TEST_F(T1Format, WhatDoesNotMapNamesTheT1Field) {
  auto error = [&](const std::function<void(json&)>& edit) -> std::string {
    json t1 = t1_scale();
    edit(t1);
    try {
      load_description(write(t1));
    } catch (const DescriptionError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error([](json& t) {
              t["KernelSpecification"]["Language"] = "OpenCL";
            }).find("KernelSpecification.Language"),
            std::string::npos);
  EXPECT_NE(error([](json& t) {
              t["ConfigurationSpace"]["TuningParameters"][0]["Values"] = "range(4)";
            }).find("TuningParameters[0].Values"),
            std::string::npos);
  EXPECT_NE(error([](json& t) {
              t["KernelSpecification"]["Arguments"][1]["FillType"] = "Script";
            }).find("Arguments[1].FillType"),
            std::string::npos);
  EXPECT_NE(error([](json& t) {
              t["KernelSpecification"]["Arguments"][1]["Type"] = "float4";
            }).find("Arguments[1].Type"),
            std::string::npos);
}

}  // namespace
}  // namespace ktune::user
