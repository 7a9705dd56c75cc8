// UserFamily: a KernelFamily built from a kernel description, so a user's
// kernel gets the space, searchers, NVRTC pipeline and database of the
// built-in families. Its version is the hash of its sources and description.
#pragma once

#include "kernels_templated/family.hpp"
#include "kernels_user/description.hpp"

namespace ktune::user {

class UserFamily final : public KernelFamily {
 public:
  explicit UserFamily(KernelDescription d) : d_(std::move(d)) {}
  const KernelDescription& spec() const { return d_; }

  std::string_view name() const override { return d_.name; }
  std::string_view description() const override { return d_.description; }
  /// Absolute paths: the sources, the reference kernel's file and the description.
  std::vector<std::string> template_files() const override;
  /// Every key a size of the description, each a positive integer; missing
  /// ones take their defaults. Throws ProblemError naming the key.
  Problem normalize(const Problem& p) const override;
  std::string_view problem_help() const override { return help_(); }
  std::vector<std::string> shape_keys() const override { return d_.sizes; }
  std::string shape_class(const Problem&) const override { return d_.name; }
  /// Throws ProblemError when the device is below the required compute capability.
  Space space(const Problem& p, const DeviceSpec& d) const override;
  Config default_config(const Problem& p, const DeviceSpec& d) const override;
  double flops(const Problem& p) const override;
  double min_bytes(const Problem& p) const override;
  WorkEstimate estimate(const Problem& p, const Config& c, const DeviceSpec& d) const override;
  KernelSource source(const Problem& p, const Config& c) const override;

  /// What the harness compiles for a reference_kernel verification: its
  /// file, its (plain) name, and the options of the default configuration
  /// (its #defines: a file whose tuned kernel reads them must compile too).
  KernelSource reference_source(const Problem& p, const DeviceSpec& d) const;

  /// The kernel's name expression for `c`: "kernel<32, cub::X>" with template parameters.
  std::string name_expression(const Config& c) const;

  /// The launch of `c` (grid, block, dynamic shared memory) for problem `p` on
  /// `d`; throws DescriptionError when its expressions do not evaluate.
  LaunchDims launch(const Problem& p, const Config& c, const DeviceSpec& d) const;

 private:
  const std::string& help_() const;

  KernelDescription d_;
  mutable std::string help_text_;
};

/// Reads a file's text; throws DescriptionError naming it.
std::string read_text(const std::string& path);

}  // namespace ktune::user
