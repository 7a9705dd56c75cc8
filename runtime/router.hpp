// RouterChooser: an emitted library's routes as the dispatcher's chooser:
// for a problem, its exact route, then its group's, then the general
// fallback, then the family default, keeping only configurations whose
// kernels for this problem are compiled in (the dispatcher then runs the
// first the family's space accepts).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/dispatcher.hpp"
#include "runtime/ktune_library.hpp"

namespace ktune {

class RouterChooser final : public rt::ConfigChooser {
 public:
  explicit RouterChooser(const EmittedTables& tables);
  /// Throws std::runtime_error when no compiled route matches.
  std::vector<rt::Choice> candidates(const KernelFamily& family, const Problem& normalized,
                                     const Space& space, const DeviceSpec& device) const override;
  /// The compiled kernels of a source hash, or null.
  const EmittedKernel* find(const std::string& hash) const;

 private:
  const EmittedTables& tables_;
  std::unordered_map<std::string, const EmittedKernel*> compiled_;
};

}  // namespace ktune
