// The check an imported measurement passes beyond db/'s own: that it names a
// family, problem and configuration this build's kernel families accept.
#pragma once

#include "db/store.hpp"

namespace ktune {

/// What db/ cannot check of an imported record: its family is one this build
/// registers, its problem is one the family accepts, and its configuration
/// names the parameters of the family's space for that problem and GPU, each
/// with a value of its list (constraints aside: failed configurations are
/// records too). Throws std::invalid_argument naming the field (an
/// ImportOptions::validate for `ktune db import` and the C ABI).
void check_against_family(const Measurement& m);

}  // namespace ktune
