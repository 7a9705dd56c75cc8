// test_faulty: the engine's test family (y = a*x + b with deliberate faults).
#pragma once

#include "kernels_templated/family.hpp"

namespace ktune {

/// Knob `mode` = normal | oob_write (illegal address) | hang (never returns) |
/// wrong (silently wrong values) | drop_ktile (block 1 leaves out one of the
/// eight k-tiles its products are summed over) | wrong_row (row 5, of 1024
/// outputs, computed from the next row's inputs) | nan_one (y[n/2] is NaN),
/// the patterns verification must catch; the other knobs (threads, items, smem_stage)
/// change real launch geometry. Registered in kernels_templated/families.def.
const KernelFamily& faulty_descriptor();

/// Mode values, in the order of the kernel's enum.
inline constexpr const char* kFaultyModes[] = {"normal",     "oob_write", "hang",   "wrong",
                                               "drop_ktile", "wrong_row", "nan_one"};

/// Outputs per row as the verification of test_faulty counts them (wrong_row).
inline constexpr long long kFaultyRowLength = 1024;

}  // namespace ktune
