// Recordings and Kernel Tuner cache files are read as shipped: gzip-compressed
// ones (.gz) decompress to the same space; a .gz that is not gzip, or a file
// that does not exist, is an error naming the file.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "ktune_test_paths.hpp"
#include "search/compressed_file.hpp"
#include "search/recorded_space.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

const fs::path kData = fs::path(KTUNE_TEST_DATA_DIR) / "recorded";

class CompressedFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ktune_compressed_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CompressedFile, AGzippedRecordingReadsAsThePlainOne) {
  const fs::path plain = kData / "kernel_tuner_cache_synthetic.json";
  const fs::path packed = dir_ / "cache with space.json.gz";  // one argument, never a shell word
  const std::string command = "gzip -c '" + plain.string() + "' > '" + packed.string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0);
  ASSERT_NE(fs::file_size(packed), fs::file_size(plain));

  const RecordedSpace a = read_recorded_space(plain);
  const RecordedSpace b = read_recorded_space(packed);
  EXPECT_EQ(b.family, a.family);
  EXPECT_EQ(b.problem, a.problem);
  ASSERT_EQ(b.results.size(), a.results.size());
  for (const auto& [key, r] : a.results) {
    const Result* other = b.find(r.config);
    ASSERT_NE(other, nullptr) << key;
    EXPECT_EQ(other->status, r.status);
    EXPECT_DOUBLE_EQ(other->time.median_s, r.time.median_s);
  }
}

TEST_F(CompressedFile, ANonGzipFileNamedGzIsAnErrorNamingIt) {
  const fs::path fake = dir_ / "fake.json.gz";
  std::ofstream(fake) << R"({"format": "ktune-recorded-space"})";
  try {
    read_possibly_gzipped(fake);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(fake.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("gzip"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_possibly_gzipped(dir_ / "missing.json.gz"), std::invalid_argument);
}

}  // namespace
}  // namespace ktune
