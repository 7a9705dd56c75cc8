// CompileQueue (compile_queue.hpp): every source compiled once, each output at
// its own index, and a queue left early joins without compiling the rest.
// NVRTC only: runs without a GPU.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "compile_queue.hpp"

namespace ktune {
namespace {

/// A kernel whose block size is `threads`: each source differs, so each output
/// can be matched to its input by the kernel's lowered name.
KernelSource sized_kernel(int threads) {
  KernelSource s;
  s.program_name = "queue_test.cu";
  s.source =
      "template <int T> __global__ void __launch_bounds__(T) fill(float* y) {\n"
      "  y[blockIdx.x * T + threadIdx.x] = T;\n}\n";
  s.kernels = {"fill<" + std::to_string(threads) + ">"};
  return s;
}

TEST(CompileQueue, EveryOutputIsAtItsSourcesIndex) {
  const Compiler compiler{CompilerOptions{}};
  std::vector<KernelSource> sources;
  for (int threads : {32, 64, 96, 128, 160, 192}) sources.push_back(sized_kernel(threads));
  CompileQueue queue(compiler, sources);
  ASSERT_EQ(queue.size(), sources.size());
  // Waited for out of order: the last first.
  for (std::size_t k = 0; k < sources.size(); ++k) {
    const std::size_t i = sources.size() - 1 - k;
    const CompileOutput& out = queue.wait(i);
    ASSERT_TRUE(out.ok) << out.log;
    ASSERT_EQ(out.kernels.size(), 1u);
    EXPECT_EQ(out.kernels[0].name_expression, sources[i].kernels[0]);
    EXPECT_EQ(out.kernels[0].lowered_name, compiler.compile(sources[i]).kernels[0].lowered_name);
  }
}

TEST(CompileQueue, AFailedSourceIsReportedNotThrown) {
  const Compiler compiler{CompilerOptions{}};
  KernelSource bad = sized_kernel(32);
  bad.source += "this does not compile";
  CompileQueue queue(compiler, {sized_kernel(64), bad});
  EXPECT_TRUE(queue.wait(0).ok);
  EXPECT_FALSE(queue.wait(1).ok);
  EXPECT_FALSE(queue.wait(1).log.empty());
}

TEST(CompileQueue, LeftEarlyItJoinsWithoutCompilingTheRest) {
  namespace fs = std::filesystem;
  const fs::path cache =
      fs::temp_directory_path() / ("ktune_queue_test_" + std::to_string(::getpid()));
  CompilerOptions options;
  options.cache_dir = cache.string();
  const Compiler compiler(options);
  std::vector<KernelSource> sources;
  for (int threads = 1; threads <= 128; ++threads) sources.push_back(sized_kernel(threads));
  {
    CompileQueue queue(compiler, sources);
    EXPECT_TRUE(queue.wait(0).ok);
  }
  // The workers finish the compiles in flight and take no more: far from all
  // of them (the cache holds what was compiled).
  std::size_t compiled = 0;
  for (const auto& entry : fs::directory_iterator(cache))
    compiled += entry.path().extension() == ".cubin";
  EXPECT_GE(compiled, 1u);
  EXPECT_LT(compiled, sources.size() / 2);
  fs::remove_all(cache);
}

}  // namespace
}  // namespace ktune
