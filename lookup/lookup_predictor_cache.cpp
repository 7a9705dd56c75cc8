// cached_predictor: key from the databases' fingerprints and this build,
// read the calibration or fit and write it.
#include "lookup/lookup_predictor_cache.hpp"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "compile/compiler.hpp"
#include "compile/version.hpp"
#include "db/content_fingerprint.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

/// Bump when the calibration's JSON or its meaning changes.
constexpr int kCalibrationFormat = 1;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The binary holding this code, by size and modification time: a rebuilt
/// ktune (a changed cost model or family estimate) never reads an older fit.
std::string build_identity() {
  std::string id = tool_version();
  Dl_info info{};
  struct stat st {};
  if (dladdr(reinterpret_cast<const void*>(&build_identity), &info) != 0 && info.dli_fname &&
      ::stat(info.dli_fname, &st) == 0)
    id += "|" + std::to_string(st.st_size) + "|" + std::to_string(st.st_mtim.tv_sec) + "." +
          std::to_string(st.st_mtim.tv_nsec);
  return id;
}

std::string calibration_key(const std::vector<std::string>& paths,
                            const CostModelPredictorOptions& options) {
  std::ostringstream text;
  text << "format " << kCalibrationFormat << "\nbuild " << build_identity() << "\nresiduals "
       << options.config_residuals << "\nprior "
       << (options.prior_weight ? std::to_string(*options.prior_weight) : "chosen") << "\n";
  for (const std::string& path : paths) text << "db " << content_fingerprint(path) << "\n";
  return stable_hash_hex(text.str()) + stable_hash_hex("ktune-calibration\n" + text.str());
}

std::shared_ptr<CostModelPredictor> read_calibration(const fs::path& file,
                                                     const CostModelPredictorOptions& options) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return nullptr;
  std::ostringstream text;
  text << in.rdbuf();
  return CostModelPredictor::from_json(nlohmann::json::parse(text.str()), options);
}

/// Written beside its final name and renamed over it: atomic on one file system.
void write_calibration(const fs::path& file, const CostModelPredictor& predictor) {
  fs::create_directories(file.parent_path());
  const fs::path partial =
      file.string() + ".partial-" + std::to_string(static_cast<long>(::getpid()));
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out << predictor.to_json().dump();
    if (!out.flush()) {
      std::error_code ignored;
      fs::remove(partial, ignored);
      throw std::runtime_error("cannot write " + partial.string());
    }
  }
  fs::rename(partial, file);
}

}  // namespace

PredictorLoad cached_predictor(const std::vector<std::string>& paths, const std::string& cache_dir,
                               CostModelPredictorOptions options) {
  PredictorLoad load;
  auto start = std::chrono::steady_clock::now();
  if (!cache_dir.empty()) {
    load.key = calibration_key(paths, options);
    load.cache_file = (fs::path(cache_dir) / "lookup-predictor" / (load.key + ".json")).string();
  }
  load.key_s = seconds_since(start);
  start = std::chrono::steady_clock::now();
  if (!load.cache_file.empty()) {
    try {
      load.predictor = read_calibration(load.cache_file, options);
      load.from_cache = load.predictor != nullptr;
    } catch (const std::exception& e) {
      load.note =
          "cached calibration " + load.cache_file + " unreadable (" + e.what() + "): fitted again";
    }
  }
  if (!load.predictor) {
    load.predictor = CostModelPredictor::from_databases(paths, options);
    if (!load.cache_file.empty()) {
      try {
        write_calibration(load.cache_file, *load.predictor);
      } catch (const std::exception& e) {
        load.note = std::string("calibration not kept: ") + e.what();
      }
    }
  }
  load.load_s = seconds_since(start);
  return load;
}

std::string default_predictor_cache_dir() {
  if (const char* env = std::getenv("KTUNE_PREDICTOR_CACHE")) {
    const std::string dir = env;
    return dir == "-" ? "" : dir;
  }
  return default_compile_cache_dir();
}

}  // namespace ktune
