// Whether two cubins hold the same machine code: what `ktune db rehash
// --compare-cubins` asks of a configuration compiled against two template texts.
#pragma once

#include <string>
#include <vector>

namespace ktune {

/// True when the two ELF cubins are the same program: the same sections in the
/// same order with the same types, flags, sizes and bytes, and the same symbol
/// table, once the names are read with NVRTC's per-compilation module id taken
/// out. That id (`_INTERNAL_<hex>_<n>_<file>_cu_<hash>[_<number>]` and
/// `_GLOBAL__N__...` in the names of internal-linkage objects) depends on the
/// program's name, its include folders and the compiling process, so it
/// differs between two compilations of the same code; nothing else may.
/// Anything that is not a well-formed 64-bit ELF file compares unequal.
/// `why`, when given, receives the first difference.
bool same_machine_code(const std::vector<char>& a, const std::vector<char>& b,
                       std::string* why = nullptr);

/// `name` with every NVRTC module id reduced to its kind, "_INTERNAL_" or
/// "_GLOBAL__N__", and its length prefix dropped (see above).
std::string without_module_ids(const std::string& name);

}  // namespace ktune
