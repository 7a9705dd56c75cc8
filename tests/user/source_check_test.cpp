// Checks of a description against its CUDA source with NVRTC's front end:
// the examples pass; each mismatch (kernel or reference name, template
// parameters, arguments against the signature, an unread #define, a source
// that does not compile) is one DescriptionError naming the field.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "compile/compiler.hpp"
#include "kernels_user/source_check.hpp"
#include "kernels_user/user_family.hpp"
#include "tests/db/db_test_support.hpp"
#include "tests/user/user_test_support.hpp"

namespace ktune::user {
namespace {

/// NVRTC's front end, as `ktune space --spec` runs it.
FrontEndOutput front_end(const KernelSource& source) {
  const CompileOutput out = Compiler(CompilerOptions{"sm_90"}).check_front_end(source);
  FrontEndOutput f{out.ok, out.log, {}};
  for (const KernelResources& k : out.kernels) f.lowered_names.push_back(k.lowered_name);
  return f;
}

void check(const std::string& description_path) {
  const UserFamily family(load_description(description_path));
  check_against_source(family, family.normalize({}), *find_builtin_device("h200"), front_end);
}

class SourceCheck : public ::testing::Test {
 protected:
  /// The message of the DescriptionError that checking `d` (with `source`) throws; "" if none.
  std::string mismatch(const nlohmann::json& d, const std::string& source = test::kScaleSource) {
    try {
      check(test::write_scale(dir_.path(), d, source));
    } catch (const DescriptionError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
      return e.what();
    }
    return "";
  }
  testing::TempDir dir_;
};

TEST(SourceCheckExamples, EveryExamplePasses) {
  for (const char* name :
       {"transpose/transpose.json", "conv2d/conv2d.json", "block_reduce/block_reduce.json"})
    EXPECT_NO_THROW(check((test::user_examples_dir() / name).string())) << name;
}

TEST_F(SourceCheck, TheScaleDescriptionPasses) {
  EXPECT_EQ(mismatch(test::scale_description()), "");
}

TEST_F(SourceCheck, AKernelNameTheSourceLacks) {
  auto d = test::scale_description();
  d["kernel"] = "scal";
  EXPECT_NE(mismatch(d).find("kernel: scale.cu declares no 'scal'"), std::string::npos)
      << mismatch(d);
}

TEST_F(SourceCheck, AReferenceNameTheSourceLacks) {
  auto d = test::scale_description();
  d["verification"] = {{"reference_kernel", {{"name", "scale_naive"}}}};
  EXPECT_NE(mismatch(d).find("verification.reference_kernel.name: scale.cu declares no "
                             "'scale_naive'"),
            std::string::npos)
      << mismatch(d);
  // A template reference cannot be launched as one kernel.
  d["verification"]["reference_kernel"]["name"] = "scale";
  EXPECT_NE(mismatch(d).find("'scale' is a template or overloaded"), std::string::npos)
      << mismatch(d);
}

TEST_F(SourceCheck, ATemplateParameterTheDescriptionLacks) {
  const std::string two = R"cu(
template <int BLOCK, int VEC>
__global__ void scale(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) y[i] = a * x[i] * UNROLL * VEC;
}
)cu";
  const std::string why = mismatch(test::scale_description(), two);
  EXPECT_NE(why.find("kernel: 'scale<64>' (the parameters BLOCK at their defaults) instantiates "
                     "no 'scale'"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("with \"pass\": \"template\""), std::string::npos) << why;
}

TEST_F(SourceCheck, TemplateArgumentsForAPlainKernel) {
  const std::string plain = R"cu(
__global__ void scale(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] * UNROLL;
}
)cu";
  const std::string why = mismatch(test::scale_description(), plain);
  EXPECT_NE(why.find("kernel: 'scale' is not a template, yet the parameters BLOCK pass as "
                     "template arguments: give them \"pass\": \"define\""),
            std::string::npos)
      << why;
}

TEST_F(SourceCheck, ATemplateKernelWithoutTemplateParameters) {
  const std::string templated = R"cu(
template <int THREADS>
__global__ void scale(float* y, const float* x, float a, int n) { y[0] = BLOCK * UNROLL; }
)cu";
  auto d = test::scale_description();
  d["parameters"][0]["pass"] = "define";
  EXPECT_NE(mismatch(d, templated).find("kernel: 'scale' is a template or overloaded"),
            std::string::npos)
      << mismatch(d, templated);
  // Defined as a macro, a template parameter's name breaks the declaration.
  EXPECT_NE(mismatch(d).find("'BLOCK' is also a template parameter of the source: give it "
                             "\"pass\": \"template\""),
            std::string::npos)
      << mismatch(d);
}

TEST_F(SourceCheck, ArgumentsAgainstTheSignature) {
  auto count = test::scale_description();
  count["arguments"].erase(3);
  EXPECT_NE(mismatch(count).find("arguments: 'scale' (the kernel) takes 4 parameters (float*, "
                                 "float const*, float, int), the description lists 3"),
            std::string::npos)
      << mismatch(count);

  auto dtype = test::scale_description();
  dtype["arguments"][1]["buffer"] = "float64";
  EXPECT_NE(mismatch(dtype).find("arguments[1]: 'x' is a float64 buffer, but parameter 2 of "
                                 "'scale' (the kernel) is 'float const*': make it \"buffer\": "
                                 "\"float32\""),
            std::string::npos)
      << mismatch(dtype);

  auto scalar = test::scale_description();
  scalar["arguments"][1] = {{"name", "x"}, {"scalar", "float32"}, {"value", "1"}};
  EXPECT_NE(mismatch(scalar).find("arguments[1]: 'x' is a float32 scalar, but parameter 2 of "
                                  "'scale' (the kernel) is 'float const*': make it a buffer"),
            std::string::npos)
      << mismatch(scalar);

  auto width = test::scale_description();
  width["arguments"][3]["scalar"] = "int64";
  EXPECT_NE(mismatch(width).find("arguments[3]: 'n' is an int64 scalar, but parameter 4 of "
                                 "'scale' (the kernel) is 'int': make it \"scalar\": \"int32\""),
            std::string::npos)
      << mismatch(width);

  auto buffer = test::scale_description();
  buffer["arguments"][2] = {{"name", "a"}, {"buffer", "float32"}, {"count", "n"}};
  EXPECT_NE(mismatch(buffer).find("arguments[2]: 'a' is a float32 buffer, but parameter 3 of "
                                  "'scale' (the kernel) is 'float': make the argument "
                                  "{\"scalar\": \"float32\""),
            std::string::npos)
      << mismatch(buffer);
}

TEST_F(SourceCheck, SameWidthTypesVectorsAndExternCKernelsAreAccepted) {
  const std::string wide = R"cu(
extern "C" __global__ void scale(float4* y, const void* x, float a, unsigned n) {
  if (n == BLOCK * UNROLL) y[0].x = a;
}
)cu";
  auto d = test::scale_description();
  d["parameters"][0]["pass"] = "define";
  EXPECT_EQ(mismatch(d, wide), "");
  // extern "C" kernels have no mangled name: their signature is still checked.
  d["arguments"][2]["scalar"] = "float64";
  EXPECT_NE(mismatch(d, wide).find("arguments[2]: 'a' is a float64 scalar, but parameter 3 of "
                                   "'scale' (the kernel) is 'float': make it \"scalar\": "
                                   "\"float32\""),
            std::string::npos)
      << mismatch(d, wide);
}

TEST_F(SourceCheck, AFunctionThatIsNotAKernel) {
  const std::string device_function = R"cu(
template <int BLOCK>
__device__ void scale(float* y, const float* x, float a, int n) { y[0] = UNROLL; }
)cu";
  EXPECT_NE(mismatch(test::scale_description(), device_function)
                .find("kernel: 'scale' is not a __global__ function"),
            std::string::npos)
      << mismatch(test::scale_description(), device_function);
}

TEST_F(SourceCheck, ADefineNothingReads) {
  auto d = test::scale_description();
  d["parameters"].push_back({{"name", "UNUSED"}, {"values", {1, 2}}, {"pass", "define"}});
  EXPECT_NE(mismatch(d).find("parameters[2]: 'UNUSED' (\"pass\": \"define\") is read by nothing"),
            std::string::npos)
      << mismatch(d);
  // Read by a launch expression only: it shapes the launch.
  d["launch"]["block"] = {"BLOCK * UNUSED"};
  EXPECT_EQ(mismatch(d), "");
}

TEST_F(SourceCheck, ADefineReadThroughAnUnlistedHeaderOrTokenPasting) {
  std::ofstream(dir_.path() / "helper.h") << "#define SCALE_FACTOR (HIDDEN_FACTOR * 2)\n";
  const std::string source = std::string("#include \"helper.h\"\n#define PASTE(a, b) a##b\n") +
                             test::kScaleSource +
                             "__device__ int pasted() { return PASTE(PAST, ED) + SCALE_FACTOR; }\n";
  auto d = test::scale_description();
  d["parameters"].push_back({{"name", "HIDDEN_FACTOR"}, {"values", {1, 2}}, {"pass", "define"}});
  d["parameters"].push_back({{"name", "PASTED"}, {"values", {1, 2}}, {"pass", "define"}});
  EXPECT_EQ(mismatch(d, source), "");
}

TEST_F(SourceCheck, ASourceThatDoesNotCompileWithTheDefaultConfiguration) {
  auto d = test::scale_description();
  d["parameters"].erase(1);  // UNROLL, which the source reads
  d["constraints"] = nlohmann::json::array();
  d["launch"]["grid"] = {"(n + BLOCK - 1) / BLOCK"};
  const std::string why = mismatch(d);
  EXPECT_NE(why.find("source: scale.cu does not compile with the default configuration "
                     "(BLOCK=64): scale.cu("),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("if 'UNROLL' is a parameter, add it to \"parameters\" with \"pass\": "
                     "\"define\""),
            std::string::npos)
      << why;
}

TEST(SignatureParameters, ReadsTheProbesLoweredName) {
  EXPECT_EQ(signature_parameters("_Z21ktune_check_signatureIPFvPfPKfiiEEvv"),
            (std::vector<std::string>{"float*", "float const*", "int", "int"}));
  EXPECT_EQ(signature_parameters("_Z21ktune_check_signatureIPFvvEEvv"), std::vector<std::string>{});
  EXPECT_EQ(signature_parameters("_Z21ktune_check_signatureIPiEvv"), std::nullopt);
  EXPECT_EQ(signature_parameters("transpose_naive"), std::nullopt);
}

}  // namespace
}  // namespace ktune::user
