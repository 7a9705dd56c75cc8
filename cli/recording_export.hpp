// Recording export: turns what a tuning database holds for one (family,
// problem, device) into a recorded space that the replay evaluator and the
// strategy benchmark read.
#pragma once

#include <string>

#include "db/current_hash.hpp"
#include "db/store.hpp"
#include "search/recorded_space.hpp"

namespace ktune {

struct RecordingSelection {
  std::string family;
  Problem problem;     ///< normalized
  std::string device;  ///< GPU name or arch; empty when the DB holds one device for the problem
  std::string family_hash;  ///< only measurements of this template version
  /// When family_hash is empty: only measurements whose hash is current for
  /// their device (per kernel path); unset too: every version.
  CurrentHash current{};
};

/// The latest measurement of every configuration stored for the selection,
/// as a RecordedSpace whose space is exactly the recorded configurations.
/// Throws std::invalid_argument when nothing matches or when several devices
/// match and none was chosen (the message lists them).
RecordedSpace recording_from_store(const Store& store, const RecordingSelection& selection);

}  // namespace ktune
