// Tests of the NVRTC Compiler: cubins, lowered names, ptxas resources, errors,
// the on-disk cache and its recovery from corrupt entries. No GPU needed.
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "compile/compiler.hpp"

namespace fs = std::filesystem;
using namespace ktune;

namespace {

// A temp directory removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("ktune_compiler_test_" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

KernelSource saxpy_source(int threads = 128) {
  KernelSource s;
  s.program_name = "saxpy_test.cu";
  s.source = R"(
template <int THREADS>
__global__ void __launch_bounds__(THREADS) saxpy(float a, const float* x, float* y, int n) {
  __shared__ float tile[THREADS];
  int i = blockIdx.x * THREADS + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : 0.f;
  __syncthreads();
  if (i < n) y[i] = a * tile[threadIdx.x] + y[i];
}
__global__ void plain_kernel(float* y) { y[threadIdx.x] = 1.0f; }
)";
  s.kernels = {"saxpy<" + std::to_string(threads) + ">", "plain_kernel"};
  return s;
}

}  // namespace

TEST(Compiler, CompilesToCubinForSm90a) {
  Compiler compiler({});
  CompileOutput out = compiler.compile(saxpy_source());
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_GT(out.cubin.size(), 100u);
  // An ELF image: cubins start with the ELF magic.
  EXPECT_EQ(std::string(out.cubin.data(), 4), std::string("\x7f" "ELF", 4));
  EXPECT_EQ(out.arch, "sm_90a");
  EXPECT_FALSE(out.cache_hit);
  EXPECT_GT(out.compile_seconds, 0.0);
}

TEST(Compiler, NameExpressionsMapToLoweredNames) {
  Compiler compiler({});
  CompileOutput out = compiler.compile(saxpy_source(256));
  ASSERT_TRUE(out.ok) << out.log;
  ASSERT_EQ(out.kernels.size(), 2u);
  EXPECT_EQ(out.kernels[0].name_expression, "saxpy<256>");
  EXPECT_EQ(out.kernels[0].lowered_name, "_Z5saxpyILi256EEvfPKfPfi");
  EXPECT_EQ(out.kernels[1].lowered_name, "_Z12plain_kernelPf");
  // The mangled names occur in the cubin's symbol table.
  std::string image(out.cubin.begin(), out.cubin.end());
  EXPECT_NE(image.find(out.kernels[0].lowered_name), std::string::npos);
}

TEST(Compiler, ParsesPtxasResources) {
  Compiler compiler({});
  CompileOutput out = compiler.compile(saxpy_source(256));
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_NE(out.log.find("registers"), std::string::npos) << out.log;
  EXPECT_GT(out.kernels[0].registers, 0) << out.log;
  EXPECT_EQ(out.kernels[0].static_smem_bytes, 256 * 4) << out.log;
  EXPECT_GT(out.kernels[1].registers, 0) << out.log;
  EXPECT_EQ(out.kernels[1].static_smem_bytes, 0) << out.log;
}

TEST(Compiler, SyntaxErrorGivesLogNotException) {
  Compiler compiler({});
  KernelSource s = saxpy_source();
  s.source += "\n__global__ void broken(float* y) { y[0] = undeclared_identifier_xyz; }\n";
  CompileOutput out = compiler.compile(s);
  EXPECT_FALSE(out.ok);
  EXPECT_TRUE(out.cubin.empty());
  EXPECT_NE(out.log.find("undeclared_identifier_xyz"), std::string::npos) << out.log;
}

TEST(Compiler, UnknownNameExpressionFails) {
  Compiler compiler({});
  KernelSource s = saxpy_source();
  s.kernels.push_back("no_such_kernel<3>");
  CompileOutput out = compiler.compile(s);
  EXPECT_FALSE(out.ok);
  EXPECT_FALSE(out.log.empty());
}

TEST(Compiler, OptionsReachNvrtc) {
  Compiler compiler({});
  KernelSource s = saxpy_source();
  s.source = "#ifndef MUST_BE_DEFINED\n#error MUST_BE_DEFINED missing\n#endif\n" + s.source;
  EXPECT_FALSE(compiler.compile(s).ok);
  s.options = {"-DMUST_BE_DEFINED=1"};
  EXPECT_TRUE(compiler.compile(s).ok);
}

TEST(Compiler, IncludesCudaAndRepoHeaders) {
  Compiler compiler({});
  KernelSource s;
  s.program_name = "includes.cu";
  s.source = R"(
#include <cuda_fp16.h>
#include <cuda/std/cstdint>
__global__ void k(__half* y) { y[0] = __float2half(1.0f + (cuda::std::int32_t)0); }
)";
  s.kernels = {"k"};
  CompileOutput out = compiler.compile(s);
  EXPECT_TRUE(out.ok) << out.log;
}

/// Options whose cubin cache is the folder `dir`.
CompilerOptions caching_in(const TempDir& dir) {
  CompilerOptions opts;
  opts.cache_dir = dir.path.string();
  return opts;
}

TEST(Compiler, SecondCompileIsCacheHit) {
  TempDir dir;
  Compiler compiler(caching_in(dir));
  CompileOutput first = compiler.compile(saxpy_source());
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_FALSE(first.cache_hit);
  EXPECT_EQ(first.cache_key.size(), 32u);
  EXPECT_TRUE(fs::exists(dir.path / (first.cache_key + ".cubin")));

  CompileOutput second = compiler.compile(saxpy_source());
  ASSERT_TRUE(second.ok);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.compile_seconds, 0.0);
  EXPECT_EQ(second.cubin, first.cubin);
  ASSERT_EQ(second.kernels.size(), first.kernels.size());
  EXPECT_EQ(second.kernels[0].lowered_name, first.kernels[0].lowered_name);
  EXPECT_EQ(second.kernels[0].registers, first.kernels[0].registers);

  // A different configuration or option is a different entry.
  EXPECT_FALSE(compiler.compile(saxpy_source(64)).cache_hit);
  KernelSource with_option = saxpy_source();
  with_option.options = {"-DUNUSED=1"};
  EXPECT_FALSE(compiler.compile(with_option).cache_hit);
  // Failures are not cached.
  KernelSource bad = saxpy_source();
  bad.source += "syntax error here";
  EXPECT_FALSE(compiler.compile(bad).ok);
  EXPECT_FALSE(compiler.compile(bad).cache_hit);
}

TEST(Compiler, CorruptCacheEntryIsRecompiled) {
  TempDir dir;
  Compiler compiler(caching_in(dir));
  CompileOutput first = compiler.compile(saxpy_source());
  ASSERT_TRUE(first.ok) << first.log;
  fs::path entry = dir.path / (first.cache_key + ".cubin");
  ASSERT_TRUE(fs::exists(entry));

  // Flip bytes in the cubin part: the checksum must catch it.
  {
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-16, std::ios::end);
    f.write("corruptcorrupt!!", 16);
  }
  CompileOutput second = compiler.compile(saxpy_source());
  ASSERT_TRUE(second.ok) << second.log;
  EXPECT_FALSE(second.cache_hit);
  EXPECT_EQ(second.cubin, first.cubin);
  // ...and the entry was rewritten.
  EXPECT_TRUE(compiler.compile(saxpy_source()).cache_hit);

  // Truncated and garbage files are recompiled too.
  fs::resize_file(entry, 20);
  EXPECT_FALSE(compiler.compile(saxpy_source()).cache_hit);
  { std::ofstream(entry, std::ios::trunc) << "not a cache entry"; }
  CompileOutput fourth = compiler.compile(saxpy_source());
  EXPECT_TRUE(fourth.ok);
  EXPECT_FALSE(fourth.cache_hit);
  // No temp files are left behind.
  int files = 0;
  for (auto& e : fs::directory_iterator(dir.path)) {
    ++files;
    EXPECT_EQ(e.path().extension(), ".cubin") << e.path();
  }
  EXPECT_EQ(files, 1);
}

TEST(Compiler, CompileAllKeepsInputOrder) {
  Compiler compiler({});
  std::vector<KernelSource> sources;
  for (int t : {32, 64, 128, 256, 512}) sources.push_back(saxpy_source(t));
  sources[2].source += "garbage";
  auto outs = compiler.compile_all(sources);
  ASSERT_EQ(outs.size(), 5u);
  for (std::size_t i = 0; i < outs.size(); ++i) {
    if (i == 2) {
      EXPECT_FALSE(outs[i].ok);
      continue;
    }
    ASSERT_TRUE(outs[i].ok) << outs[i].log;
    EXPECT_EQ(outs[i].kernels[0].name_expression, sources[i].kernels[0]);
    EXPECT_EQ(outs[i].kernels[0].static_smem_bytes, std::stoi(sources[i].kernels[0].substr(6)) * 4);
  }
}

TEST(Compiler, KernelDirFollowsEnvironment) {
  const char* old = std::getenv("KTUNE_KERNEL_DIR");
  std::string saved = old ? old : "";
  setenv("KTUNE_KERNEL_DIR", "/some/where/kernels_templated", 1);
  EXPECT_EQ(Compiler::kernel_dir(), "/some/where/kernels_templated");
  unsetenv("KTUNE_KERNEL_DIR");
  // Without the variable: the tree found next to the test binary, or the build-time path.
  EXPECT_TRUE(fs::exists(fs::path(Compiler::kernel_dir()) / "family.hpp")) << Compiler::kernel_dir();
  if (old) setenv("KTUNE_KERNEL_DIR", saved.c_str(), 1);
}

// The templates come from kernel_dir() even when the working directory holds
// another kernels_templated (a checkout): NVRTC must not search it first.
TEST(Compiler, IncludesComeFromKernelDirNotTheWorkingDirectory) {
  TempDir dir;
  const fs::path chosen = dir.path / "chosen" / "kernels_templated";
  const fs::path decoy = dir.path / "decoy" / "kernels_templated";
  fs::create_directories(chosen);
  fs::create_directories(decoy);
  { std::ofstream(chosen / "probe.cuh") << "#define KTUNE_PROBE_VALUE 7\n"; }
  { std::ofstream(decoy / "probe.cuh") << "#error the working directory's kernels_templated was compiled\n"; }
  const char* old = std::getenv("KTUNE_KERNEL_DIR");
  const std::string saved = old ? old : "";
  const fs::path saved_cwd = fs::current_path();
  setenv("KTUNE_KERNEL_DIR", chosen.c_str(), 1);
  fs::current_path(decoy.parent_path());
  KernelSource s;
  s.program_name = "probe.cu";
  s.source = "#include \"kernels_templated/probe.cuh\"\n"
             "__global__ void probe(int* out) { *out = KTUNE_PROBE_VALUE; }\n";
  s.kernels = {"probe"};
  const CompileOutput out = Compiler({}).compile(s);
  fs::current_path(saved_cwd);
  if (old) setenv("KTUNE_KERNEL_DIR", saved.c_str(), 1); else unsetenv("KTUNE_KERNEL_DIR");
  EXPECT_TRUE(out.ok) << out.log;
}

// A cache filled on one machine serves another (scripts/gpu-precompile, then
// carried to the lent GPU): the key holds the templates' text, not where the
// checkout or the toolkit lie.
TEST(Compiler, CacheKeyIsTheSameForTheSameTemplatesInAnotherFolder) {
  TempDir dir;
  const fs::path here = dir.path / "here" / "kernels_templated";
  const fs::path there = dir.path / "elsewhere" / "deeper" / "kernels_templated";
  for (const fs::path& d : {here, there}) {
    fs::create_directories(d);
    std::ofstream(d / "probe.cuh") << "#define KTUNE_PROBE_VALUE 7\n";
  }
  auto key_with = [](const fs::path& templates) {
    CompilerOptions opts;
    opts.kernel_dir = templates.string();
    return Compiler(opts).cache_key(saxpy_source());
  };
  EXPECT_EQ(key_with(here), key_with(there));
  // Any header the kernels may include counts, .hpp ones too.
  const fs::path changed = dir.path / "changed" / "kernels_templated";
  fs::create_directories(changed);
  fs::copy_file(here / "probe.cuh", changed / "probe.cuh");
  std::ofstream(changed / "types.hpp") << "#define KTUNE_PROBE_TYPES 1\n";
  EXPECT_NE(key_with(here), key_with(changed));
}

TEST(Compiler, ArchSpecificSourcesGetTheATarget) {
  CompilerOptions opts;
  opts.arch = "sm_90";
  Compiler compiler(opts);
  KernelSource s = saxpy_source();
  EXPECT_EQ(compiler.compile(s).arch, "sm_90");
  s.needs_arch_specific = true;
  EXPECT_EQ(compiler.compile(s).arch, "sm_90a");
}

TEST(Compiler, DefaultCacheDirFollowsKtuneCacheDirThenXdg) {
  const char* old_xdg = std::getenv("XDG_CACHE_HOME");
  const char* old_named = std::getenv("KTUNE_CACHE_DIR");
  const std::string saved_xdg = old_xdg ? old_xdg : "";
  const std::string saved_named = old_named ? old_named : "";
  unsetenv("KTUNE_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
  EXPECT_EQ(default_compile_cache_dir(), "/tmp/xdg-test/ktune");
  setenv("KTUNE_CACHE_DIR", "/tmp/carried-cache", 1);
  EXPECT_EQ(default_compile_cache_dir(), "/tmp/carried-cache");
  if (old_xdg)
    setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
  else
    unsetenv("XDG_CACHE_HOME");
  if (old_named)
    setenv("KTUNE_CACHE_DIR", saved_named.c_str(), 1);
  else
    unsetenv("KTUNE_CACHE_DIR");
}

namespace {
// A descriptor with only what family_source_hash reads; the rest is never called.
class HashOnlyFamily : public KernelFamily {
 public:
  explicit HashOnlyFamily(std::vector<std::string> files) : files_(std::move(files)) {}
  std::string_view name() const override { return "hash_only"; }
  std::string_view description() const override { return ""; }
  std::vector<std::string> template_files() const override { return files_; }
  Problem normalize(const Problem& p) const override { return p; }
  std::string_view problem_help() const override { return ""; }
  std::vector<std::string> shape_keys() const override { return {}; }
  std::string shape_class(const Problem&) const override { return ""; }
  Space space(const Problem&, const DeviceSpec&) const override { throw std::logic_error("unused"); }
  Config default_config(const Problem&, const DeviceSpec&) const override { return {}; }
  double flops(const Problem&) const override { return 0; }
  double min_bytes(const Problem&) const override { return 0; }
  WorkEstimate estimate(const Problem&, const Config&, const DeviceSpec&) const override { return {}; }
  KernelSource source(const Problem&, const Config&) const override { return {}; }

 private:
  std::vector<std::string> files_;
};
}  // namespace

TEST(FamilySourceHash, HashesTemplateTextAndNoticesEdits) {
  TempDir dir;
  fs::create_directories(dir.path / "fam");
  { std::ofstream(dir.path / "fam" / "a.cuh") << "template <int X> __global__ void a() {}\n"; }
  { std::ofstream(dir.path / "fam" / "b.cuh") << "// b\n"; }
  const char* old = std::getenv("KTUNE_KERNEL_DIR");
  std::string saved = old ? old : "";
  setenv("KTUNE_KERNEL_DIR", dir.path.c_str(), 1);
  HashOnlyFamily family({"fam/a.cuh", "fam/b.cuh"});
  std::string h1 = family_source_hash(family);
  EXPECT_EQ(h1.size(), 16u);
  EXPECT_EQ(h1, family_source_hash(family));
  EXPECT_EQ(h1, stable_hash_hex("template <int X> __global__ void a() {}\n// b\n"));
  { std::ofstream(dir.path / "fam" / "b.cuh") << "// b edited\n"; }
  EXPECT_NE(h1, family_source_hash(family));
  HashOnlyFamily missing({"fam/nope.cuh"});
  EXPECT_THROW(family_source_hash(missing), std::runtime_error);
  if (old) setenv("KTUNE_KERNEL_DIR", saved.c_str(), 1); else unsetenv("KTUNE_KERNEL_DIR");
}
