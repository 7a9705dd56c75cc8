// The softmax family's GPU harness (a RowwiseHarness, rowwise/gpu/).
#pragma once

#include <memory>

#include "kernels_templated/harness.hpp"

namespace ktune {

/// A new harness for the softmax family, registered in gpu/harness_registry.cpp.
std::unique_ptr<FamilyHarness> make_softmax_harness();

}  // namespace ktune
