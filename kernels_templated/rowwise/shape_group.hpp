// The shape groups of the row-wise families (reduce, softmax, rmsnorm): the
// row alignment and length classes, the group key the kernel splitter and the
// emitted library route by, and the same key as C++ text for generated headers.
#pragma once

#include <string>

#include "space/value_map.hpp"

namespace ktune::rowwise {

/// Largest power-of-two byte alignment of every row start (cols * element
/// bytes), capped at 16: what limits the vector width.
int row_alignment_bytes(const Problem& p);
/// Row-length class used to group shapes: tiny (< 256), short (< 4k),
/// medium (< 32k), long (< 256k), huge.
std::string row_length_class(long long cols);

/// The shape group of a normalized problem: dtype, reduce-axis position
/// (last | rows), row alignment in bytes and the class of the reduced length,
/// e.g. "bf16.last.a16.short".
std::string group_key(const Problem& p);

/// group_key as self-contained C++17 text, written from the same tables as
/// the functions above: `inline std::string group_key(std::string_view dtype,
/// std::string_view axis, long long rows, long long cols)`.
std::string group_key_cpp();

}  // namespace ktune::rowwise
