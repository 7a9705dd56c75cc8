// cached_predictor: the lookup predictor's calibration kept per database
// content, so that a `ktune lookup` process reads it instead of fitting it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lookup/lookup_predictor.hpp"

namespace ktune {

/// A predictor and where it came from, with what each step cost.
struct PredictorLoad {
  std::shared_ptr<CostModelPredictor> predictor;
  bool from_cache = false;
  std::string cache_file;  ///< the file read or written; empty without a cache folder
  std::string note;        ///< why no cache was read or written; empty when all went well
  std::string key;         ///< the calibration's key (see cached_predictor)
  double key_s = 0;        ///< seconds to compute the key (the databases' fingerprints)
  double load_s = 0;       ///< seconds to read the calibration, or to fit (and write) it
};

/// The predictor for the databases `paths` (layers, in order), calibrated
/// once per content: read from `cache_dir`/lookup-predictor/KEY.json where a
/// calibration with the same key is there, else fitted and written there
/// (to a temporary file renamed into place, so a reader never sees half a
/// file). The key hashes each database's content_fingerprint, the options,
/// and this build (its version and its binary's size and time), so a changed
/// measurement or a rebuilt ktune fits again. An unreadable or malformed
/// cache file is fitted again and replaced; a folder that cannot be written
/// leaves a note and the fitted predictor. Empty `cache_dir`: always fits.
/// Throws DatabaseError for a database that cannot be read.
PredictorLoad cached_predictor(const std::vector<std::string>& paths, const std::string& cache_dir,
                               CostModelPredictorOptions options = {});

/// $KTUNE_PREDICTOR_CACHE ("" or "-": none), else the compile cache's folder
/// (default_compile_cache_dir: $XDG_CACHE_HOME/ktune, else ~/.cache/ktune).
std::string default_predictor_cache_dir();

}  // namespace ktune
