// test_faulty: the engine's test family (y = a*x + b with deliberate faults).
#pragma once

#include "kernels_templated/family.hpp"

namespace ktune {

/// Knob `mode` = normal | oob_write (illegal address) | hang (never returns) |
/// wrong (silently wrong values); the other knobs (threads, items, smem_stage)
/// change real launch geometry. Registered in kernels_templated/registry.cpp.
const KernelFamily& faulty_family();

/// Mode values, in the order of the kernel's enum.
inline constexpr const char* kFaultyModes[] = {"normal", "oob_write", "hang", "wrong"};

}  // namespace ktune
