// Which of two measured answers the lookup prefers, and which a request that
// asks for determinism may take. Internal to db/.
#pragma once

#include "db/lookup.hpp"

namespace ktune::lookup_detail {

/// The order of answers under an objective: its value (candidates always
/// have one), then the order of result_order.hpp.
bool answers_before(const LookupAnswer& a, const LookupAnswer& b, Objective o);

/// Whether verification ran the configuration twice on the same input and
/// found the same bits (metrics.verification.deterministic; absent: not checked).
bool proven_deterministic(const Result& r);

}  // namespace ktune::lookup_detail
