// Helpers for the db tests: temporary folders and synthetic (not measured) results.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "db/lookup.hpp"
#include "db/store.hpp"

namespace ktune::testing {

/// A fresh folder under the system temp dir, removed with its files at scope exit.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("ktune_db_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

/// A synthetic device identity (numbers are placeholders, not measurements).
inline DeviceSpec synthetic_device(const std::string& name = "Synthetic GPU A", int major = 9,
                                   int minor = 0) {
  DeviceSpec d;
  d.name = name;
  d.cc_major = major;
  d.cc_minor = minor;
  d.driver = "580.00";
  d.cuda_runtime = "13.0";
  d.sm_count = 132;
  d.smem_per_block_optin = 232448;
  return d;
}

/// A gemm-like problem; shape keys m, n, k; class from dtype and layout.
inline Problem gemm_problem(std::int64_t m, std::int64_t n, std::int64_t k,
                            const std::string& dtype = "bf16") {
  return Problem{{"m", m}, {"n", n}, {"k", k}, {"dtype", dtype}, {"layout", std::string("nn")}};
}

/// A synthetic device with synthetic "datasheet" ceilings (not measurements).
inline DeviceSpec datasheet_device() {
  DeviceSpec d = synthetic_device();
  d.dram_gbps = 4800;  // synthetic "datasheet" figures, not measurements
  d.peak_tflops_simt_fp32 = 67;
  d.peak_tflops_bf16 = 989;
  return d;
}

/// Synthetic "measured" ceilings for that device (not measurements).
inline DeviceSpec synthetic_ceilings() {
  DeviceSpec c;  // synthetic figures for the test, not measurements
  c.dram_gbps = 4000;
  c.peak_tflops_bf16 = 800;
  c.ceilings_source = "synthetic test figures";
  return c;
}

/// The shape class gemm_key stores a gemm_problem under (its dtype and layout).
inline std::string gemm_class(const Problem& p) {
  return "dtype=" + p.text("dtype") + ",layout=" + p.text("layout");
}

inline RunKey gemm_key(const Problem& p, const DeviceSpec& d = synthetic_device(),
                       const std::string& hash = "hash-current") {
  RunKey key;
  key.device = d;
  key.family = "gemm";
  key.family_hash = hash;
  key.problem = p;
  key.shape_keys = {"m", "n", "k"};
  key.shape_class = gemm_class(p);
  return key;
}

/// A lookup request for gemm `p` asked on `device` and/or `arch`, in the shape
/// keys and class gemm_key stores.
inline LookupRequest gemm_request(const Problem& p, const std::string& device,
                                  const std::string& arch = "") {
  LookupRequest r;
  r.family = "gemm";
  r.problem = p;
  r.device = device;
  r.arch = arch;
  r.shape_keys = {"m", "n", "k"};
  r.shape_class = gemm_class(p);
  return r;
}

inline Config tile_config(std::int64_t bm, std::int64_t bn, std::int64_t stages = 3) {
  return Config{{"BLOCK_M", bm}, {"BLOCK_N", bn}, {"STAGES", stages}};
}

/// A synthetic verified result: the time is made up by the test, not measured.
inline Result ok_result(const Config& c, double median_s) {
  Result r;
  r.config = c;
  r.status = Status::ok;
  r.time = {median_s, median_s * 0.95, median_s * 1.1, 0.02, 20};
  r.tflops = 1.0 / median_s * 1e-9;
  r.error = 1e-6;
  r.max_abs_error = 2e-6;
  r.deterministic = true;
  r.metrics = {{"registers", 128}};
  return r;
}

inline Result failed_result(const Config& c, Status s, const std::string& message = "synthetic failure") {
  Result r;
  r.config = c;
  r.status = s;
  r.message = message;
  if (s == Status::wrong_result) {
    r.error = 0.5;
    r.max_abs_error = 3.0;
  }
  return r;
}

inline Provenance test_provenance(const std::string& source = "test") {
  return Provenance{"testhost", "0.1.0+test", source, ""};
}

/// test_provenance() with a given measurement time (ISO 8601, UTC).
inline Provenance test_provenance_at(const std::string& when) {
  Provenance p = test_provenance();
  p.measured_at = when;
  return p;
}

/// Records one synthetic result measured on `device`, so that the database
/// holds a row for it (measured ceilings are stored with a device's rows).
inline void record_one_result(Store& store, const DeviceSpec& device) {
  store.record(gemm_key(gemm_problem(64, 64, 64), device),
               std::vector<Result>{ok_result(tile_config(64, 64), 1e-3)}, test_provenance());
}

/// Stores synthetic_ceilings() for `device` in the database at `path`, with
/// one result of it (ceilings are stored with a device's rows); returns how
/// many devices took them.
inline int store_synthetic_ceilings(const std::string& path, const DeviceSpec& device) {
  Store store = Store::open(path);
  record_one_result(store, device);
  return store.set_measured_ceilings(device.name, synthetic_ceilings());
}

/// A database (db_) holding two synthetic results of gemm 1024^3 on
/// synthetic_device(): 128x128 tiles at 1 ms and 64x128 at 2 ms.
class TunedDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Store store = Store::open(db_);
    store.record(gemm_key(gemm_problem(1024, 1024, 1024)),
                 std::vector<Result>{ok_result(kFast, 1e-3), ok_result(kSlow, 2e-3)},
                 test_provenance());
  }
  static inline const Config kFast = tile_config(128, 128), kSlow = tile_config(64, 128);
  TempDir dir_;
  std::string db_ = dir_.file("tuned.db");
};

}  // namespace ktune::testing
