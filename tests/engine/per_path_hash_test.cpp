// Tests of the per-kernel-path template hash: gemm's wgmma, mma.sync and SIMT
// paths are versioned by their own files, other families keep the
// whole-family hash, and `rehash` moves legacy rows onto the path hashes
// (the lookup then serves them). All times are SYNTHETIC, never measured.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <unistd.h>

#include "compile/compiler.hpp"
#include "compile/family_hash.hpp"
#include "db/current_hash.hpp"
#include "db/lookup.hpp"
#include "db/store.hpp"
#include "engine/tune_job.hpp"
#include "tests/db/db_test_support.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Points KTUNE_KERNEL_DIR at a private copy of kernels_templated (edits stay
// in the copy); restores the variable and removes the copy at scope exit.
class KernelDirCopy {
 public:
  KernelDirCopy() {
    static std::atomic<int> counter{0};
    const std::string source = Compiler::kernel_dir();
    const char* old = std::getenv("KTUNE_KERNEL_DIR");
    had_ = old != nullptr;
    if (old) saved_ = old;
    dir_ = fs::temp_directory_path() /
           ("ktune_per_path_hash_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir_);
    fs::copy(source, dir_, fs::copy_options::recursive);
    setenv("KTUNE_KERNEL_DIR", dir_.c_str(), 1);
  }
  ~KernelDirCopy() {
    if (had_) setenv("KTUNE_KERNEL_DIR", saved_.c_str(), 1);
    else unsetenv("KTUNE_KERNEL_DIR");
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  void append(const std::string& rel, const std::string& text) const {
    std::ofstream(dir_ / rel, std::ios::app) << text;
  }
  const fs::path& path() const { return dir_; }

 private:
  fs::path dir_;
  bool had_ = false;
  std::string saved_;
};

DeviceSpec h200() { return find_builtin_device("NVIDIA H200").value(); }
DeviceSpec a100() { return find_builtin_device("sm_80").value(); }

struct PathProblems {
  const KernelFamily& gemm = find_family("gemm");
  Problem wgmma = parse_problem(gemm, "m=4096,n=4096,k=4096,dtype=bf16,layout=nt");
  Problem mma = parse_problem(gemm, "m=4096,n=4096,k=4096,dtype=bf16,layout=nt,path=mma");
  Problem simt = parse_problem(gemm, "m=4096,n=4096,k=4096,dtype=fp32,layout=nt");
};

TEST(PerPathHash, GemmPathsListTheirOwnFilesAndTheSharedOnes) {
  PathProblems p;
  auto wgmma = p.gemm.template_files_for(p.wgmma, h200());
  auto mma = p.gemm.template_files_for(p.mma, h200());
  auto simt = p.gemm.template_files_for(p.simt, h200());
  auto has = [](const std::vector<std::string>& v, const std::string& f) {
    return std::find(v.begin(), v.end(), f) != v.end();
  };
  for (const auto* files : {&wgmma, &mma, &simt})
    for (const char* shared : {"gemm/gemm_common.cuh", "gemm/gemm_splitk.cuh", "gemm/gemm_repack.cuh"})
      EXPECT_TRUE(has(*files, shared)) << shared;
  EXPECT_TRUE(has(wgmma, "gemm/gemm_wgmma.cuh") && has(wgmma, "gemm/gemm_wgmma_ops.cuh"));
  EXPECT_FALSE(has(wgmma, "gemm/gemm_tc.cuh") || has(wgmma, "gemm/gemm_tile.cuh") || has(wgmma, "gemm/gemm_simt.cuh"));
  EXPECT_TRUE(has(mma, "gemm/gemm_tc.cuh") && has(mma, "gemm/gemm_tile.cuh"));
  EXPECT_FALSE(has(mma, "gemm/gemm_wgmma.cuh") || has(mma, "gemm/gemm_simt.cuh"));
  EXPECT_TRUE(has(simt, "gemm/gemm_simt.cuh"));
  EXPECT_FALSE(has(simt, "gemm/gemm_tc.cuh") || has(simt, "gemm/gemm_wgmma.cuh"));
  // The wgmma shape on an sm_80 GPU takes the mma.sync path.
  EXPECT_EQ(p.gemm.template_files_for(p.wgmma, a100()), p.gemm.template_files_for(p.mma, h200()));
  // Every path file is one of the family's files (the compile cache's list).
  auto all = p.gemm.template_files();
  for (const auto* files : {&wgmma, &mma, &simt})
    for (const auto& f : *files) EXPECT_TRUE(has(all, f)) << f;
}

/// The kernels_templated/ files `text` includes, directly or through them.
void collect_includes(const std::string& text, std::set<std::string>& out) {
  static const std::regex include_line(R"re(#include\s+"kernels_templated/([^"]+)")re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), include_line); it != std::sregex_iterator(); ++it) {
    const std::string rel = (*it)[1];
    if (!out.insert(rel).second) continue;
    std::ifstream in(fs::path(Compiler::kernel_dir()) / rel);
    ASSERT_TRUE(in) << rel;
    std::stringstream body;
    body << in.rdbuf();
    collect_includes(body.str(), out);
  }
}

// A path's list must cover every template its kernels' source includes
// (split-K and repack included), or an edit to a missing file would leave
// that path's results looking fresh.
TEST(PerPathHash, EveryPathListsEveryTemplateItsKernelsInclude) {
  PathProblems p;
  const std::vector<std::pair<Problem, const char*>> cases = {
      {p.wgmma, "wgmma"},
      {p.mma, "mma"},
      {p.simt, "simt"},
      {parse_problem(p.gemm, "m=100,n=200,k=300,dtype=bf16,layout=nt,lda=301,path=mma"), "mma misaligned"},
      {parse_problem(p.gemm, "m=100,n=200,k=300,dtype=bf16,layout=nt,lda=301"), "wgmma misaligned"}};
  for (const auto& [problem, what] : cases) {
    const auto listed = p.gemm.template_files_for(problem, h200());
    std::set<std::string> included;
    // Sampled configurations reach split-K (both reductions) and repacking.
    for (const Config& c : p.gemm.space(problem, h200()).sample(60, 7))
      collect_includes(p.gemm.source(problem, c).source, included);
    EXPECT_GT(included.size(), 2u) << what;
    for (const auto& f : included)
      EXPECT_NE(std::find(listed.begin(), listed.end(), f), listed.end())
          << what << " includes " << f << ", which its list lacks";
  }
}

TEST(PerPathHash, WgmmaAndMmaOfTheSameShapeDiffer) {
  PathProblems p;
  const std::string wgmma = family_source_hash(p.gemm, p.wgmma, h200());
  const std::string mma = family_source_hash(p.gemm, p.mma, h200());
  const std::string simt = family_source_hash(p.gemm, p.simt, h200());
  EXPECT_EQ(wgmma.size(), 16u);
  EXPECT_NE(wgmma, mma);
  EXPECT_NE(wgmma, simt);
  EXPECT_NE(mma, simt);
  EXPECT_NE(wgmma, family_source_hash(p.gemm)) << "a path hash is not the legacy whole-family hash";
  EXPECT_EQ(family_source_hash(p.gemm, p.wgmma, a100()), mma) << "sm_80 runs the mma.sync path";
}

TEST(PerPathHash, EditingOnePathsFileChangesOnlyThatPathsHash) {
  PathProblems p;
  KernelDirCopy copy;
  auto hashes = [&] {
    return std::vector<std::string>{family_source_hash(p.gemm, p.wgmma, h200()),
                                    family_source_hash(p.gemm, p.mma, h200()),
                                    family_source_hash(p.gemm, p.simt, h200()), family_source_hash(p.gemm)};
  };
  const auto before = hashes();
  copy.append("gemm/gemm_tc.cuh", "\n// an edit of the mma.sync kernel only\n");
  const auto after_tc = hashes();
  EXPECT_EQ(after_tc[0], before[0]) << "wgmma results stay fresh";
  EXPECT_NE(after_tc[1], before[1]) << "mma.sync results become stale";
  EXPECT_EQ(after_tc[2], before[2]) << "SIMT results stay fresh";
  EXPECT_NE(after_tc[3], before[3]) << "the whole-family hash (compile cache) still sees it";

  copy.append("gemm/gemm_wgmma_ops.cuh", "\n// an edit of the wgmma ops\n");
  const auto after_wgmma = hashes();
  EXPECT_NE(after_wgmma[0], after_tc[0]);
  EXPECT_EQ(after_wgmma[1], after_tc[1]);
  EXPECT_EQ(after_wgmma[2], after_tc[2]);

  copy.append("gemm/gemm_splitk.cuh", "\n// split-K serves every path\n");
  const auto after_splitk = hashes();
  for (int i = 0; i < 4; ++i) EXPECT_NE(after_splitk[i], after_wgmma[i]) << i;
}

TEST(PerPathHash, OtherFamiliesKeepTheWholeFamilyHash) {
  int checked = 0;
  for (const auto& name : family_names()) {
    if (name == "gemm") continue;
    const KernelFamily& f = find_family(name);
    EXPECT_EQ(f.template_files_for(Problem{}, h200()), f.template_files()) << name;
    // The hash of template_files()' text, concatenated: what stored results carry.
    std::string text;
    for (const auto& rel : f.template_files()) text += read_text(fs::path(Compiler::kernel_dir()) / rel);
    const std::string whole = stable_hash_hex(text);
    EXPECT_EQ(family_source_hash(f), whole) << name;
    EXPECT_EQ(family_source_hash(f, Problem{}, h200()), whole) << name;
    EXPECT_EQ(family_source_hash(f, Problem{}, a100()), whole) << name;
    ++checked;
  }
  EXPECT_GE(checked, 2) << "rowwise and reduce families are registered";
}

TEST(PerPathHash, StoredDevicesMapToTheSpecThatPicksThePath) {
  EXPECT_EQ(stored_device_spec("NVIDIA H200", "sm_90").cc_major, 9);
  DeviceSpec other = stored_device_spec("Some Future GPU", "sm_80");
  EXPECT_EQ(other.name, "Some Future GPU");
  EXPECT_EQ(other.cc_major, 8);
  EXPECT_EQ(other.cc_minor, 0);
  DeviceSpec unknown = stored_device_spec("Unknown", "sm_120");
  EXPECT_EQ(unknown.cc_major, 12);
  EXPECT_EQ(unknown.cc_minor, 0);
  PathProblems p;
  CurrentHash current = current_hash_resolver();
  EXPECT_EQ(current("gemm", p.wgmma, "NVIDIA H200", "sm_90"), family_source_hash(p.gemm, p.wgmma, h200()));
  EXPECT_EQ(current("gemm", p.wgmma, "NVIDIA A100-SXM4-80GB", "sm_80"), family_source_hash(p.gemm, p.mma, h200()));
  EXPECT_EQ(current("not_a_family", p.wgmma, "NVIDIA H200", "sm_90"), "");
}

TEST(PerPathHash, ATuneJobKeysItsResultsByThePathHash) {
  PathProblems p;
  for (const char* problem : {"m=4096,n=4096,k=4096,dtype=bf16,layout=nt",
                              "m=4096,n=4096,k=4096,dtype=bf16,layout=nt,path=mma"}) {
    TuneSpec spec;
    spec.kernel = "gemm";
    spec.problem = problem;
    spec.strategy = "random";
    spec.options.budget = 10;
    PrepareHooks hooks;
    hooks.device = h200();
    hooks.evaluator = [](const PreparedTune&) { return std::unique_ptr<Evaluator>(); };  // never evaluated
    auto job = prepare_tune(spec, hooks);
    EXPECT_EQ(job->key.family_hash, family_source_hash(p.gemm, job->problem, h200())) << problem;
  }
}

/// A fresh database file in a temporary folder, removed at scope exit.
struct TempDb {
  ktune::testing::TempDir dir;
  std::string path() const { return dir.file("legacy.db"); }
};

Result synthetic_ok(const Config& c, double seconds) {
  Result r;  // SYNTHETIC time, not measured
  r.config = c;
  r.status = Status::ok;
  r.time = {seconds, seconds, seconds, 0, 10};
  return r;
}

TEST(PerPathHash, RehashMovesLegacyRowsToTheirPathAndLookupServesThem) {
  PathProblems p;
  TempDb db;
  const std::string legacy = family_source_hash(p.gemm);
  const DeviceSpec gpu = h200();
  auto key = [&](const Problem& problem, const std::string& hash) {
    RunKey k;
    k.device = gpu;
    k.family = "gemm";
    k.family_hash = hash;
    k.problem = problem;
    k.shape_keys = p.gemm.shape_keys();
    k.shape_class = p.gemm.shape_class(problem);
    return k;
  };
  const Config wgmma_config = p.gemm.default_config(p.wgmma, gpu);
  const Config mma_config = p.gemm.default_config(p.mma, gpu);
  {
    Store store = Store::open(db.path());
    Provenance prov{"host", "test", "synthetic", ""};
    store.record(key(p.wgmma, legacy), std::vector<Result>{synthetic_ok(wgmma_config, 1e-3)}, prov);
    store.record(key(p.mma, legacy), std::vector<Result>{synthetic_ok(mma_config, 2e-3)}, prov);
    store.record(key(p.simt, "an-older-text"), std::vector<Result>{synthetic_ok(mma_config, 3e-3)}, prov);

    // Before: the legacy rows are stale against their path hashes.
    CurrentHash current = current_hash_resolver();
    auto stale = stale_results(store, "gemm", current);
    std::int64_t stale_rows = 0;
    for (const auto& s : stale) stale_rows += s.results;
    EXPECT_EQ(stale_rows, 3);

    RehashSummary s = rehash_results(store, "gemm", legacy, current, false);
    EXPECT_EQ(s.rehashed, 2);
    EXPECT_EQ(s.by_new_hash.size(), 2u) << "wgmma and mma.sync rows go to two hashes";
    ASSERT_EQ(s.left_alone.size(), 1u);
    EXPECT_EQ(s.left_alone[0].first, "an-older-text");
    EXPECT_EQ(store.results(key(p.wgmma, family_source_hash(p.gemm, p.wgmma, gpu))).size(), 1u);
    EXPECT_EQ(store.results(key(p.mma, family_source_hash(p.gemm, p.mma, gpu))).size(), 1u);
    EXPECT_TRUE(store.results(key(p.wgmma, legacy)).empty());
    // Only the row of older text is still stale.
    stale = stale_results(store, "gemm", current);
    ASSERT_EQ(stale.size(), 1u);
    EXPECT_EQ(stale[0].family_hash, "an-older-text");

    RehashSummary again = rehash_results(store, "gemm", legacy, current, false);
    EXPECT_EQ(again.rehashed, 0) << "idempotent";
  }
  // The lookup, asked with the hash `ktune lookup` computes, serves the rehashed rows as fresh.
  Lookup lookup = Lookup::open(db.path());
  for (const auto& [problem, config] : {std::pair{p.wgmma, wgmma_config}, std::pair{p.mma, mma_config}}) {
    LookupRequest req;
    req.family = "gemm";
    req.problem = problem;
    req.device = gpu.name;
    req.family_hash = family_source_hash(p.gemm, problem, gpu);
    auto a = lookup.best(req);
    ASSERT_TRUE(a) << problem.key();
    EXPECT_EQ(a->source, LookupSource::exact);
    EXPECT_EQ(a->config, config);
  }
}

}  // namespace
}  // namespace ktune
