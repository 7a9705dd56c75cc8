// ktune emit-library from a small database: the tree's routes and kernel
// files, and (the longer test, ~50 s on 2 cores) that the tree builds with
// CMake and nvcc into a library an application links.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compile/compiler.hpp"
#include "db/store.hpp"
#include "emit/emit_library.hpp"
#include "ktune_test_paths.hpp"
#include "runtime_fakes.hpp"

namespace ktune {
namespace {

using namespace testing_rt;
namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

/// Two rmsnorm shapes of one class, two configurations each (both valid on both).
class EmitLibrary : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ktune_emit_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const KernelFamily& f = find_family("rmsnorm");
    const Problem a = f.normalize(Problem::parse("rows=64,cols=4096,dtype=fp32"));
    const Problem b = f.normalize(Problem::parse("rows=128,cols=4096,dtype=fp32"));
    const Space space = f.space(a, h200());
    std::vector<Config> configs;
    for (const Config& c : space.sample(40, 11))
      if (f.space(b, h200()).is_valid(c) && configs.size() < 2) configs.push_back(c);
    ASSERT_EQ(configs.size(), 2u);
    Store store = Store::open((dir_ / "test.db").string());
    int i = 0;
    for (const Problem& p : {a, b}) {
      RunKey key{h200(), "rmsnorm",      family_source_hash(f, p, h200()),
                 p,      f.shape_keys(), f.shape_class(p)};
      std::vector<Result> results;
      for (std::size_t c = 0; c < configs.size(); ++c) {
        Result r;
        r.config = configs[c];
        r.status = Status::ok;
        // The first configuration wins on a, the second on b.
        r.time.median_s = (c == static_cast<std::size_t>(i)) ? 1e-5 : 2e-5;
        results.push_back(r);
      }
      store.record(key, results, Provenance{});
      ++i;
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  EmitLibrarySummary emit() {
    EmitLibraryOptions o;
    o.database = (dir_ / "test.db").string();
    o.device = "sm_90";
    o.families = {"rmsnorm"};
    o.out_dir = (dir_ / "lib").string();
    return emit_library(o);
  }

  fs::path dir_;
};

TEST_F(EmitLibrary, WritesRoutesKernelsAndBuildFiles) {
  const EmitLibrarySummary s = emit();
  const fs::path out = dir_ / "lib";
  const std::string router = read(out / "router.cpp");
  EXPECT_EQ(count(router, "\"exact\""), 2);
  EXPECT_EQ(count(router, "\"general\""), 1);
  EXPECT_EQ(count(router, "\"default\""), 1);
  // The measured routes name the GPU whose rows chose them, the default none.
  EXPECT_GE(count(router, "\"" + h200().name + "\""), 3);
  EXPECT_EQ(count(router, ", nullptr},"), 1);
  EXPECT_NE(router.find(s.template_hashes), std::string::npos);
  EXPECT_NE(s.template_hashes.find("rmsnorm="), std::string::npos);
  EXPECT_GE(s.kernels, 2);
  int files = 0;
  for (const auto& e : fs::directory_iterator(out / "kernels"))
    files += e.path().extension() == ".cu";
  EXPECT_EQ(files, (s.kernels + 7) / 8);  // one preamble: up to eight sources a file
  EXPECT_TRUE(fs::exists(out / "CMakeLists.txt"));
  EXPECT_TRUE(fs::exists(out / "ktune_emitted.hpp"));
  EXPECT_TRUE(fs::exists(out / "include" / "kernels_templated" / "rmsnorm" / "rmsnorm.cuh"));
  // Only what the kernels include (found from the #include lines), not every template.
  EXPECT_FALSE(fs::exists(out / "include" / "kernels_templated" / "gemm"));
  EXPECT_NE(read(out / "CMakeLists.txt").find("ktune::launch"), std::string::npos);
}

TEST_F(EmitLibrary, BadInputIsInvalidArgument) {
  EmitLibraryOptions o;
  o.database = (dir_ / "test.db").string();
  o.device = "sm_90";
  o.out_dir = (dir_ / "lib").string();
  o.families = {"nosuch"};
  EXPECT_THROW(emit_library(o), std::invalid_argument);
  o.families = {"gemm"};  // no gemm results in this database
  EXPECT_THROW(emit_library(o), std::invalid_argument);
  o.families = {"rmsnorm"};
  o.device = "sm_12345";
  EXPECT_THROW(emit_library(o), std::invalid_argument);
  o.device = "sm_90";
  o.database = (dir_ / "missing.db").string();
  EXPECT_THROW(emit_library(o), std::invalid_argument);
}

// The longer test (~1 min on 2 cores): the emitted tree built by CMake and
// nvcc against the runtime's install tree, linked into a program that opens
// the tables (the database path and template hashes come back; without a
// GPU, Library::open answers with a status).
TEST_F(EmitLibrary, TheTreeBuildsIntoALibraryAnApplicationLinks) {
  const char* env = std::getenv("CUDACXX");
  const std::string nvcc = env && *env ? env : "/usr/local/cuda/bin/nvcc";
  if (!fs::exists(nvcc)) GTEST_SKIP() << "no nvcc at " << nvcc;
  const EmitLibrarySummary s = emit();
  const fs::path prefix = dir_ / "prefix", app = dir_ / "app";
  const std::string log = " >> " + (dir_ / "build.log").string() + " 2>&1";
  ASSERT_EQ(std::system(("cmake --install " + std::string(KTUNE_BINARY_DIR) + " --prefix " +
                         prefix.string() + log)
                            .c_str()),
            0);
  fs::create_directories(app);
  std::ofstream(app / "CMakeLists.txt")
      << "cmake_minimum_required(VERSION 3.24)\nproject(check LANGUAGES CXX "
         "CUDA)\nfind_package(ktune REQUIRED)\n"
      << "add_subdirectory(" << (dir_ / "lib").string() << " emitted)\n"
      << "add_executable(check main.cpp)\ntarget_link_libraries(check PRIVATE ktune_emitted)\n";
  std::ofstream(app / "main.cpp") << R"(#include <cstdio>
#include <cstring>
#include "ktune_emitted.hpp"
int main(int, char** argv) {
  const ktune::EmittedTables& t = ktune_emitted_tables();
  std::unique_ptr<ktune::Library> lib;
  const ktune::CallStatus s = ktune::Library::open(t, &lib);
  std::printf("%s %s %d %d %s\n", t.database, t.template_hashes, t.route_count, t.kernel_count, s.message().c_str());
  return std::strcmp(t.database, argv[1]) == 0 && std::strcmp(t.template_hashes, argv[2]) == 0 ? 0 : 1;
})";
  ASSERT_EQ(std::system(("cmake -S " + app.string() + " -B " + (app / "build").string() +
                         " -G Ninja -DCMAKE_CUDA_COMPILER=" + nvcc +
                         " -DCMAKE_PREFIX_PATH=" + prefix.string() + log)
                            .c_str()),
            0)
      << read(dir_ / "build.log");
  ASSERT_EQ(std::system(("cmake --build " + (app / "build").string() + log).c_str()), 0)
      << read(dir_ / "build.log");
  const std::string run = (app / "build" / "check").string() + " " + (dir_ / "test.db").string() +
                          " " + s.template_hashes + log;
  EXPECT_EQ(std::system(run.c_str()), 0) << read(dir_ / "build.log");
}

TEST_F(EmitLibrary, TheCommandExitsTwoOnAnUnknownFamily) {
  const fs::path ktune = fs::path(KTUNE_BINARY_DIR) / "bin" / "ktune";
  if (!fs::exists(ktune)) GTEST_SKIP() << "build the ktune target first";
  const std::string cmd = ktune.string() + " emit-library --db " + (dir_ / "test.db").string() +
                          " --device sm_90 --kernel nosuch -o " + (dir_ / "x").string() +
                          " > /dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  const std::string ok = ktune.string() + " emit-library --db " + (dir_ / "test.db").string() +
                         " --device sm_90 --kernel rmsnorm -o " + (dir_ / "y").string() +
                         " > /dev/null 2>&1";
  EXPECT_EQ(std::system(ok.c_str()), 0);
  EXPECT_TRUE(fs::exists(dir_ / "y" / "router.cpp"));
}

}  // namespace
}  // namespace ktune
