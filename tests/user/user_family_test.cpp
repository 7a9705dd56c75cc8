// UserFamily: problems with defaults, the space, the NVRTC source of a
// configuration, the version hash; and the host buffers (fill, compare).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "compile/compiler.hpp"
#include "kernels_user/buffer_data.hpp"
#include "kernels_user/user_family.hpp"
#include "tests/db/db_test_support.hpp"
#include "tests/user/user_test_support.hpp"

namespace ktune::user {
namespace {

class UserFamilyTest : public ::testing::Test {
 protected:
  UserFamily family() {
    return UserFamily(load_description(test::write_scale(dir_.path(), test::scale_description())));
  }
  testing::TempDir dir_;
};

TEST_F(UserFamilyTest, ProblemsTakeDefaultsAndRefuseUnknownKeys) {
  const UserFamily f = family();
  EXPECT_EQ(f.normalize(Problem{}).integer("n"), 1000);
  EXPECT_EQ(parse_problem(f, "n=77").integer("n"), 77);
  EXPECT_THROW(parse_problem(f, "m=77"), ProblemError);
  EXPECT_THROW(parse_problem(f, "n=0"), ProblemError);
}

TEST_F(UserFamilyTest, SpaceHoldsTheConstraints) {
  const UserFamily f = family();
  const Space s = f.space(f.normalize({}), *find_builtin_device("h200"));
  EXPECT_EQ(s.count_valid(), 5u);  // 3 x 2, less BLOCK 128 with UNROLL 2
}

TEST_F(UserFamilyTest, SourcePassesTemplateArgumentsAndDefines) {
  const UserFamily f = family();
  Config c;
  c.set("BLOCK", std::int64_t{64});
  c.set("UNROLL", std::int64_t{2});
  const KernelSource s = f.source(f.normalize({}), c);
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0], "scale<64>");
  EXPECT_NE(std::find(s.options.begin(), s.options.end(), "-DUNROLL=2"), s.options.end());
  EXPECT_NE(std::find(s.options.begin(), s.options.end(), "-I" + dir_.path().string()),
            s.options.end());
  EXPECT_NE(s.source.find("__global__ void scale"), std::string::npos);
}

TEST_F(UserFamilyTest, VersionIsTheHashOfSourceAndDescription) {
  const UserFamily f = family();
  const std::string before = family_source_hash(f);
  std::ofstream(dir_.path() / "scale.cu", std::ios::app) << "// an edit\n";
  const std::string after_source = family_source_hash(f);
  EXPECT_NE(after_source, before);
  std::ofstream(dir_.path() / "scale.json", std::ios::app) << "\n";
  EXPECT_NE(family_source_hash(f), after_source);
}

TEST_F(UserFamilyTest, ComputeCapabilityBelowTheRequiredOneIsRefused) {
  auto d = test::scale_description();
  d["compute_capability"] = 9.0;
  const UserFamily f(load_description(test::write_scale(dir_.path(), d)));
  EXPECT_THROW(f.space(f.normalize({}), *find_builtin_device("sm_80")), ProblemError);
  EXPECT_NO_THROW(f.space(f.normalize({}), *find_builtin_device("sm_90")));
}

// The harness compiles the reference kernel from this source on the GPU; a
// file whose tuned kernel reads #define parameters must compile there too.
TEST(UserReference, ReferenceKernelsOfTheExamplesCompile) {
  for (const char* name : {"transpose/transpose.json", "conv2d/conv2d.json"}) {
    const UserFamily f(load_description((test::user_examples_dir() / name).string()));
    const DeviceSpec h200 = *find_builtin_device("h200");
    const KernelSource src = f.reference_source(f.normalize({}), h200);
    ASSERT_EQ(src.kernels.size(), 1u);
    const CompileOutput out = Compiler(CompilerOptions{}).compile(src);
    EXPECT_TRUE(out.ok) << name << ": " << out.log;
  }
}

TEST(UserBuffers, FillsAsDescribed) {
  Argument a;
  a.dtype = "int32";
  a.fill = Fill::index;
  auto bytes = fill_buffer(a, 5);
  std::int32_t v[5];
  std::memcpy(v, bytes.data(), sizeof v);
  EXPECT_EQ(v[4], 4);
  a.dtype = "float64";
  a.fill = Fill::random;
  a.lo = 2;
  a.hi = 3;
  bytes = fill_buffer(a, 100);
  for (int i = 0; i < 100; ++i) {
    double x;
    std::memcpy(&x, bytes.data() + 8 * i, 8);
    EXPECT_GE(x, 2);
    EXPECT_LT(x, 3);
  }
  EXPECT_EQ(fill_buffer(a, 100), bytes);  // seeded
}

TEST(UserBuffers, CompareFindsMismatchesAndUnwrittenElements) {
  Argument a;
  a.name = "y";
  a.dtype = "float32";
  a.fill = Fill::index;
  a.atol = 0.01;
  a.rtol = 0;
  const auto ref = fill_buffer(a, 4);
  EXPECT_TRUE(verify::passes(compare_buffer(a, ref, ref), tolerances_of(a)));
  auto out = ref;
  const float off = 2.5f;
  std::memcpy(out.data() + 4, &off, 4);
  std::memset(out.data() + 8, 0xFF, 4);
  const verify::CheckStats c = compare_buffer(a, out, ref);
  EXPECT_FALSE(verify::passes(c, tolerances_of(a)));
  EXPECT_EQ(c.off, 1);
  EXPECT_EQ(c.unwritten, 1);
  EXPECT_EQ(c.first_bad, 1);
  EXPECT_EQ(count_unwritten(a, out), 1);
  EXPECT_EQ(count_unwritten(a, ref), 0);
}

}  // namespace
}  // namespace ktune::user
