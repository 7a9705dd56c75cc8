// Where ktune keeps what it can recompute (compiled kernels, the lookup
// predictor's calibration, databases' integrity verdicts): one rule for every
// process of a run.
#pragma once

#include <string>

namespace ktune {

/// $KTUNE_CACHE_DIR, else $XDG_CACHE_HOME/ktune, else $HOME/.cache/ktune,
/// else a folder under the system's temporary directory.
std::string default_cache_dir();

}  // namespace ktune
