// The checks of `ktune db import` that need this build's kernel families: a
// record of a registered family at this build's template version must fit
// that family; records nothing here can judge pass as ktune stored them.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "db/current_hash.hpp"
#include "db/store.hpp"

namespace ktune {

/// The validator `ktune db import` passes to parse_measurements
/// (ImportOptions::validate). A record of a family this build registers,
/// stored under the template hash this build has for its problem and GPU
/// (`current`, per kernel path), must have a problem the family accepts and a
/// configuration of the family's space on that GPU (constraints aside: failed
/// configurations are records too). Other records name parameters that no
/// space of this build describes, and pass unchanged:
///  - another template version of a registered family (older recordings
///    replayed, stale rows): its parameters are those of its own templates;
///  - a kernel this build does not register (a replayed Kernel Tuner cache or
///    T4 file, a user kernel tuned with --spec): counted per family, so that
///    the import can say which names it could not check (a misspelt family
///    shows up there).
class FamilyImportCheck {
 public:
  explicit FamilyImportCheck(CurrentHash current);

  /// Throws std::invalid_argument naming the field ('problem' or 'result.config').
  void operator()(const Measurement& m);

  /// Records seen per family this build does not register.
  const std::map<std::string, std::int64_t>& unregistered() const { return unregistered_; }

 private:
  CurrentHash current_;
  std::map<std::string, std::int64_t> unregistered_;
};

}  // namespace ktune
