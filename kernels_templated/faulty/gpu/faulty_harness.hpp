// test_faulty's GPU harness: seeded random x, fp64 host reference, NaN poison.
#pragma once

#include <memory>

#include "kernels_templated/harness.hpp"

namespace ktune {

std::unique_ptr<FamilyHarness> make_faulty_harness();

}  // namespace ktune
