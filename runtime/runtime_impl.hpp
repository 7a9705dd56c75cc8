// Runtime::Impl: a dispatcher over a database chooser and a compiling
// supplier. Tests build one from fake compilers, loaders and launchers.
#pragma once

#include <memory>

#include "db/lookup.hpp"
#include "runtime/dispatcher.hpp"
#include "runtime/kernel_cache.hpp"
#include "runtime/ktune_runtime.hpp"

namespace ktune {

/// Candidates from a Lookup (nullptr: no database, the family default runs),
/// served only from results of the template text in `kernel_dir` (the text
/// the runtime compiles; empty: the lookup's newest-measured hash), and only
/// from this GPU's own measurements when `own_device_only`.
class LookupChooser final : public rt::ConfigChooser {
 public:
  LookupChooser(std::shared_ptr<const Lookup> lookup, std::string kernel_dir,
                bool own_device_only = false)
      : lookup_(std::move(lookup)),
        kernel_dir_(std::move(kernel_dir)),
        own_device_only_(own_device_only) {}
  /// The lookup's answer (if any), then the defaults.
  std::vector<rt::Choice> candidates(const KernelFamily& family, const Problem& normalized,
                                     const Space& space, const DeviceSpec& device) const override;

 private:
  std::shared_ptr<const Lookup> lookup_;
  std::string kernel_dir_;
  bool own_device_only_ = false;
};

struct Runtime::Impl {
  /// `kernel_dir`: the templates compiled, whose results the lookup serves
  /// (empty: the newest-measured hash).
  Impl(DeviceSpec device, std::shared_ptr<const Lookup> lookup,
       std::unique_ptr<rt::CubinCompiler> compiler, std::unique_ptr<rt::CubinLoader> loader,
       std::unique_ptr<rt::Launcher> launcher, std::string kernel_dir = {},
       bool own_device_only = false);

  rt::CompilingSupplier* supplier;  ///< owned by the dispatcher
  rt::Dispatcher dispatcher;
};

}  // namespace ktune
