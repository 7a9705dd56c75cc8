// Families defined at run time (user kernels read from a description,
// kernels_user/): registered here, then found by find_family and make_harness
// like the built-in ones.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace ktune {

class KernelFamily;
class FamilyHarness;

/// Adds a family: find_family and family_names know it from then on. The
/// family must outlive its use. Throws std::invalid_argument when a family of
/// that name is already known.
void register_family(const KernelFamily& family);

/// Adds the GPU harness factory of a family registered with register_family.
void register_harness(std::string family, std::function<std::unique_ptr<FamilyHarness>()> factory);

}  // namespace ktune
