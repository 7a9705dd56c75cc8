// A database travels across GPUs of one arch: the shipped database answers
// an H100 PCIe and a card only the driver names, which it holds nothing of,
// from the GPUs it holds (the H200 and the H100 SXM) and saying so, valid for the asked GPU, and
// the H100 SXM, which it holds, from its own first; the
// predictor's roofline evaluated for the asked GPU; its calibration kept per
// database content.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <unistd.h>

#include "compile/family_hash.hpp"
#include "db/lookup.hpp"
#include "db/store.hpp"
#include "kernels_templated/family.hpp"
#include "lookup/lookup_predictor.hpp"
#include "lookup/lookup_predictor_cache.hpp"
#include "lookup/lookup_validity.hpp"
#include "tests/lookup/shipped_database.hpp"

namespace ktune {
namespace {

using testing::driver_only_card;
using testing::kShippedDb;

namespace fs = std::filesystem;

/// As `ktune lookup` asks: validity, default and template hash for the asked GPU.
LookupRequest request_for(const std::string& problem_text, const DeviceSpec& device) {
  const KernelFamily& gemm = find_family("gemm");
  LookupRequest req;
  req.family = "gemm";
  req.problem = gemm.normalize(Problem::parse(problem_text));
  req.shape_keys = gemm.shape_keys();
  req.shape_class = gemm.shape_class(req.problem);
  req.device = device.name;
  req.arch = device.arch();
  req.device_spec = device;
  req.default_config = gemm.default_config(req.problem, device);
  req.fits = space_validator(gemm, req.problem, device);
  req.family_hash = family_source_hash(gemm, req.problem, device);
  return req;
}

class TempFolder {
 public:
  TempFolder()
      : path_(fs::temp_directory_path() / ("ktune_transfer_" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempFolder() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(LookupTransfer, TheShippedDatabaseAnswersHopperGpusItLacksFromTheGpusItHolds) {
  ASSERT_TRUE(fs::exists(kShippedDb)) << kShippedDb;
  Lookup lookup = Lookup::open(kShippedDb);
  lookup.set_predictor(CostModelPredictor::from_databases({kShippedDb}));
  const std::string h200 = find_builtin_device("NVIDIA H200")->name;
  const std::string h100 = find_builtin_device("NVIDIA H100 80GB HBM3")->name;
  for (const DeviceSpec& device : {*find_builtin_device("NVIDIA H100 PCIe"), driver_only_card()})
    // Every layout the database holds: nt on the wgmma path, nn on mma.sync.
    for (const char* text :
         {"m=24,n=4096,k=4096,dtype=bf16,layout=nt", "m=4096,n=4096,k=4096,dtype=bf16,layout=nt",
          "m=1,n=11008,k=4096,dtype=bf16,layout=nt",
          "m=8192,n=8192,k=4096,dtype=bf16,layout=nn,path=mma"}) {
      const LookupRequest req = request_for(text, device);
      const auto a = lookup.best(req);
      ASSERT_TRUE(a) << device.name << " " << text;
      EXPECT_NE(a->source, LookupSource::default_config) << device.name << " " << text;
      EXPECT_EQ(a->reach, LookupReach::sibling) << device.name << " " << text;
      // Measured on (or learned from) the H200 or the H100 SXM, never the asked GPU.
      const std::string origin = describe(*a);
      EXPECT_TRUE(origin.find(h200) != std::string::npos || origin.find(h100) != std::string::npos)
          << origin;
      EXPECT_EQ(origin.find(device.name), std::string::npos) << origin;
      EXPECT_TRUE(req.fits(a->config)) << device.name << " " << text << " " << a->config_key;
      // Own measurements only: nothing of this GPU's, so the default.
      LookupRequest own = req;
      own.own_device_only = true;
      EXPECT_EQ(lookup.best(own)->source, LookupSource::default_config) << text;
    }
}

TEST(LookupTransfer, AGpuTheDatabaseHoldsIsAnsweredFromItsOwnMeasurementsFirst) {
  Lookup lookup = Lookup::open(kShippedDb);
  lookup.set_predictor(CostModelPredictor::from_databases({kShippedDb}));
  const DeviceSpec h100 = *find_builtin_device("NVIDIA H100 80GB HBM3");
  // Shapes of the ship sweep's tier 1 classes (bf16, every layout), none of them measured as such.
  for (const char* text :
       {"m=24,n=4096,k=4096,dtype=bf16,layout=nt", "m=24,n=4096,k=4096,dtype=bf16,layout=tn",
        "m=1000,n=11008,k=4096,dtype=bf16,layout=nn"}) {
    LookupRequest req = request_for(text, h100);
    const auto a = lookup.best(req);
    ASSERT_TRUE(a) << text;
    EXPECT_EQ(a->source, LookupSource::predicted) << text << ": " << describe(*a);
    EXPECT_EQ(a->reach, LookupReach::own) << text << ": " << describe(*a);
    EXPECT_NE(describe(*a).find(h100.name), std::string::npos) << describe(*a);
    EXPECT_TRUE(req.fits(a->config)) << text << " " << a->config_key;
    req.own_device_only = true;
    EXPECT_NE(lookup.best(req)->source, LookupSource::default_config) << text;
  }
}

TEST(LookupTransfer, EveryAnswerToAnotherGpuOfTheArchLiesInItsSpace) {
  Lookup lookup = Lookup::open(kShippedDb);
  lookup.set_predictor(CostModelPredictor::from_databases({kShippedDb}));
  const DeviceSpec pcie = *find_builtin_device("NVIDIA H100 PCIe");
  std::mt19937_64 rng(20261206);
  // n and k keep the leading dimensions in the measured alignment classes.
  static const std::int64_t sizes[] = {24, 128, 1000, 2048, 4096, 5120, 11008, 13824};
  int served = 0;
  for (int i = 0; i < 300; ++i) {
    const std::string text = "m=" + std::to_string(rng() % 4 ? sizes[rng() % 8] : 1) +
                             ",n=" + std::to_string(sizes[rng() % 8]) +
                             ",k=" + std::to_string(sizes[rng() % 8]) + ",dtype=bf16,layout=nt";
    const LookupRequest req = request_for(text, pcie);
    const auto a = lookup.best(req);
    ASSERT_TRUE(a) << text;
    EXPECT_TRUE(req.fits(a->config)) << text << " " << a->config_key;
    served += a->source != LookupSource::default_config;
  }
  // Every class asked is measured on the H200: defaults mean a chain that stopped early.
  EXPECT_GT(served, 250) << served << " of 300 answered from measurements";
}

TEST(LookupTransfer, ThePredictionIsForTheAskedGpusSpecs) {
  const auto predictor = CostModelPredictor::from_databases({kShippedDb});
  const DeviceSpec h200 = *find_builtin_device("NVIDIA H200");
  const DeviceSpec pcie = *find_builtin_device("NVIDIA H100 PCIe");
  // A skinny, memory-bound problem: the PCIe card's 2.0 TB/s and 114 SMs
  // against 4.8 TB/s and 132.
  LookupRequest req = request_for("m=24,n=4096,k=4096,dtype=bf16,layout=nt", pcie);
  PredictionQuery q;
  q.request = &req;
  q.arch = "sm_90";
  q.family_hash = req.family_hash;
  q.shape_class = req.shape_class;
  q.measured_on = h200.name;
  q.candidates = {*req.default_config};
  q.device = h200;
  const auto on_h200 = predictor->choose(q);
  q.device = pcie;
  const auto on_pcie = predictor->choose(q);
  ASSERT_TRUE(on_h200 && on_pcie);
  EXPECT_EQ(on_pcie->learned_on, h200.name);
  EXPECT_GT(on_pcie->predicted_s, on_h200->predicted_s);
}

TEST(PredictorCache, FittedOnceReadAfterAndFittedAgainWhenTheMeasurementsChange) {
  TempFolder tmp;
  const fs::path db = tmp.path() / "copy.db";
  fs::copy_file(kShippedDb, db);
  const fs::path cache = tmp.path() / "cache";
  const PredictorLoad first = cached_predictor({db.string()}, cache.string());
  EXPECT_FALSE(first.from_cache);
  EXPECT_TRUE(first.note.empty()) << first.note;
  ASSERT_TRUE(fs::exists(first.cache_file)) << first.cache_file;
  const PredictorLoad second = cached_predictor({db.string()}, cache.string());
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.key, first.key);
  EXPECT_EQ(second.predictor->models(), first.predictor->models());
  // The same choices, to the last bit of the predicted time.
  LookupRequest req =
      request_for("m=24,n=4096,k=4096,dtype=bf16,layout=nt", *find_builtin_device("NVIDIA H200"));
  Lookup lookup = Lookup::open(db.string());
  lookup.set_predictor(first.predictor);
  const auto fitted = lookup.best(req);
  lookup.set_predictor(second.predictor);
  const auto read = lookup.best(req);
  ASSERT_EQ(fitted->source, LookupSource::predicted);
  EXPECT_EQ(read->config_key, fitted->config_key);
  EXPECT_EQ(read->predicted_s, fitted->predicted_s);
  // One more measurement: another key, fitted again.
  {
    Store store = Store::open(db.string());
    const KernelFamily& gemm = find_family("gemm");
    const DeviceSpec h200 = *find_builtin_device("NVIDIA H200");
    const Problem p = req.problem;
    RunKey key{h200, "gemm", req.family_hash, p, gemm.shape_keys(), gemm.shape_class(p)};
    Result r;
    r.config = *req.default_config;
    r.status = Status::ok;
    r.time.median_s = 1e-4;
    store.record(key, std::vector<Result>{r}, Provenance{});
  }
  const PredictorLoad third = cached_predictor({db.string()}, cache.string());
  EXPECT_FALSE(third.from_cache);
  EXPECT_NE(third.key, first.key);
  // A damaged cache file is fitted again and replaced, never trusted.
  { std::ofstream(third.cache_file, std::ios::trunc) << "{\"groups\": [{\"key\": 1"; }
  const PredictorLoad fourth = cached_predictor({db.string()}, cache.string());
  EXPECT_FALSE(fourth.from_cache);
  EXPECT_NE(fourth.note.find("unreadable"), std::string::npos) << fourth.note;
  EXPECT_TRUE(cached_predictor({db.string()}, cache.string()).from_cache);
}

}  // namespace
}  // namespace ktune
