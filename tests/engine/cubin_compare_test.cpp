// same_machine_code (compile/cubin_compare): two NVRTC compilations of the same
// code compare equal even though NVRTC names their internal-linkage objects
// after the compilation (program name, include folders, process); a code
// change, a malformed file or a truncated one compares unequal. Runs NVRTC,
// no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "compile/compiler.hpp"
#include "compile/cubin_compare.hpp"

namespace ktune {
namespace {

// A kernel with an internal-linkage device array: its symbol carries NVRTC's
// module id, which changes with the program's name and include folders.
KernelSource scale_kernel(const std::string& comment, int scale,
                          const std::string& program = "scale.cu") {
  KernelSource s;
  s.program_name = program;
  s.source =
      "// " + comment +
      "\n\nnamespace {\n__device__ int offsets[4] = {1, 2, 3, 4};\n}\n"
      "namespace tiny {\n__global__ void scale(int* x) { x[threadIdx.x] = x[threadIdx.x] * " +
      std::to_string(scale) + " + offsets[threadIdx.x % 4]; }\n}\n";
  s.kernels = {"tiny::scale"};
  return s;
}

std::vector<char> cubin_of(const KernelSource& source) {
  CompilerOptions options;
  options.arch = "sm_90";
  CompileOutput out = Compiler(options).compile(source);
  EXPECT_TRUE(out.ok) << out.log;
  return out.cubin;
}

bool holds(const std::vector<char>& bytes, const std::string& text) {
  return std::search(bytes.begin(), bytes.end(), text.begin(), text.end()) != bytes.end();
}

TEST(CubinCompare, TheSameCodeUnderAnotherTextIsTheSameMachineCode) {
  const auto a = cubin_of(scale_kernel("first text", 3));
  // Another program name gives another module id (another length too), as
  // another include folder does for our templates.
  const auto b =
      cubin_of(scale_kernel("second text, a longer comment\n// and one more line", 3, "scaled.cu"));
  ASSERT_FALSE(a.empty());
  ASSERT_TRUE(holds(a, "_INTERNAL_"))
      << "the internal symbol's name carries NVRTC's module id: the case "
         "same_machine_code normalizes (has NVRTC's naming changed?)";
  EXPECT_NE(a, b) << "the two texts name the internal symbol differently";
  std::string why;
  EXPECT_TRUE(same_machine_code(a, b, &why)) << why;
  EXPECT_TRUE(same_machine_code(a, a, &why)) << why;
}

TEST(CubinCompare, AnotherCodeIsNot) {
  const auto a = cubin_of(scale_kernel("text", 3));
  const auto b = cubin_of(scale_kernel("text", 5));
  std::string why;
  EXPECT_FALSE(same_machine_code(a, b, &why));
  EXPECT_NE(why.find(".text"), std::string::npos) << why;
}

TEST(CubinCompare, MalformedOrTruncatedFilesAreNeverEqual) {
  const auto a = cubin_of(scale_kernel("text", 3));
  std::string why;
  const std::vector<char> junk = {'n', 'o', 't', ' ', 'e', 'l', 'f'};
  EXPECT_FALSE(same_machine_code(junk, junk, &why));
  EXPECT_EQ(why, "not a 64-bit ELF file");
  const std::vector<char> cut(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(a.size() / 2));
  EXPECT_FALSE(same_machine_code(cut, cut, &why))
      << "a truncated file is refused, not read past its end";
  EXPECT_FALSE(same_machine_code(a, cut, &why));
  EXPECT_FALSE(same_machine_code({}, {}, &why));
}

TEST(CubinCompare, ModuleIdsAreTakenOutOfNamesWithTheirLengthPrefix) {
  // Two compilations' names for one object (the id's number comes from the
  // process, so even its length varies).
  const std::string a =
      "_ZN50_INTERNAL_00000000_13_gemm_wgmma_cu_a82afcb4_227734cuda3ptx8sem_weakE";
  const std::string b =
      "_ZN51_INTERNAL_00000000_13_gemm_wgmma_cu_31c89ab5_2367814cuda3ptx8sem_weakE";
  EXPECT_EQ(without_module_ids(a), without_module_ids(b));
  EXPECT_EQ(without_module_ids(a), "_ZN_INTERNAL_cuda3ptx8sem_weakE");
  EXPECT_NE(without_module_ids(a),
            without_module_ids(
                "_ZN50_INTERNAL_00000000_13_gemm_wgmma_cu_a82afcb4_227734cuda3ptx8sem_scE"));
  EXPECT_EQ(without_module_ids("tiny::scale"), "tiny::scale");
  // An anonymous namespace inside an internal object, with no trailing number.
  EXPECT_EQ(without_module_ids(
                "_ZN38_INTERNAL_00000000_8_scale_cu_bc1b787e40_GLOBAL__N__00000000_8_scale_cu_"
                "bc1b787e7offsetsE"),
            "_ZN_INTERNAL__GLOBAL__N__7offsetsE");
}

}  // namespace
}  // namespace ktune
