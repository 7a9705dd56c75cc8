// `ktune sweep` over a lookup's miss log: one run per family, each logged
// problem once, and malformed logs refused with the line number.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/sweep.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

class SweepMissLog : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ktune_sweep_miss_log_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& text) {
    fs::path p = dir_ / "misses.jsonl";
    std::ofstream(p) << text;
    return p;
  }
  fs::path dir_;
};

TEST_F(SweepMissLog, TunesEachLoggedProblemOncePerFamily) {
  const std::string a = "dtype=bf16,layout=nn,m=4000,n=4096,k=4096";
  const std::string b = "dtype=fp32,layout=nt,m=1,n=8192,k=8192";
  const std::string c = "cols=4096,dtype=fp32,rows=100";
  auto path = write(
      "{\"arch\":\"sm_90\",\"device\":\"NVIDIA H200\",\"family\":\"gemm\",\"problem\":\"" + a +
      "\"}\n{\"arch\":\"sm_90\",\"device\":\"\",\"family\":\"softmax\",\"problem\":\"" + c +
      "\"}\n{\"arch\":\"sm_90\",\"device\":\"\",\"family\":\"gemm\",\"problem\":\"" + b +
      "\"}\n{\"arch\":\"sm_80\",\"device\":\"\",\"family\":\"gemm\",\"problem\":\"" + a + "\"}\n");
  SweepFile sweep = read_sweep(path);
  ASSERT_EQ(sweep.items.size(), 3u);
  EXPECT_EQ(sweep.items[0].spec.kernel, "gemm");
  EXPECT_EQ(sweep.items[0].spec.problem, a);
  EXPECT_EQ(sweep.items[1].spec.kernel, "gemm");
  EXPECT_EQ(sweep.items[1].spec.problem, b);
  EXPECT_EQ(sweep.items[2].spec.kernel, "softmax");
  EXPECT_EQ(sweep.items[2].spec.problem, c);
}

TEST_F(SweepMissLog, AOneLineLogIsALogNotASweepFile) {
  SweepFile sweep =
      read_sweep(write("{\"family\":\"reduce\",\"problem\":\"rows=64,cols=64,dtype=fp32\"}\n"));
  ASSERT_EQ(sweep.items.size(), 1u);
  EXPECT_EQ(sweep.items[0].spec.kernel, "reduce");
}

TEST_F(SweepMissLog, AMalformedLineOrAnUnknownFamilyIsRefusedByLine) {
  try {
    read_sweep(write("{\"family\":\"gemm\",\"problem\":\"m=8,n=8,k=8\"}\n{not json\n"));
    FAIL() << "expected SweepError";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_sweep(write("{\"family\":\"nosuch\",\"problem\":\"m=8\"}\n")), SweepError);
  EXPECT_THROW(read_sweep(write("{\"family\":\"gemm\",\"problem\":\"m=0,n=8,k=8\"}\n")),
               SweepError);
}

}  // namespace
}  // namespace ktune
