// The keys an emitted library's tables are matched by, computed one way by
// the emitter and by the library at run time: a kernel source's identity and
// a problem's shape group.
#pragma once

#include <string>

#include "kernels_templated/family.hpp"

namespace ktune::rt {

/// Everything the compiler is given for a source; equal keys compile to the
/// same kernels (the runtime's kernel cache and the emitted kernel table use it).
std::string kernel_source_key(const KernelSource& source);

/// The shape group, as the family defines it (KernelFamily::shape_group): for
/// row-wise families the splitter's key too (rowwise::group_key).
std::string emit_group_key(const KernelFamily& family, const Problem& normalized);

}  // namespace ktune::rt
