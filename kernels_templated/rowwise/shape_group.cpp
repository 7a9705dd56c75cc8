// The row-wise shape groups (see shape_group.hpp). The C++ text is built from
// the tables the compiled functions read, so the two cannot disagree on a
// threshold; tests/engine/splitter_test.cpp compiles the text and checks it
// against group_key on the class boundaries.
#include "kernels_templated/rowwise/shape_group.hpp"

#include <iterator>

#include "kernels_templated/rowwise/launch_plan.hpp"

namespace ktune::rowwise {
namespace {

/// The widest access, in bytes: no alignment above it is told apart.
constexpr int kMaxRowAlignment = 16;

/// The row-length classes, shortest first: a length below `below` is of that
/// class; the last class takes every longer one.
struct LengthClass {
  long long below;
  const char* name;
};
constexpr LengthClass kLengthClasses[] = {
    {256, "tiny"}, {4096, "short"}, {32768, "medium"}, {262144, "long"}, {0, "huge"}};
constexpr std::size_t kBoundedClasses = std::size(kLengthClasses) - 1;

}  // namespace

int row_alignment_bytes(const Problem& p) {
  long long bytes = p.integer("cols") * dtype_bytes(p.text("dtype"));
  int align = 1;
  while (align < kMaxRowAlignment && bytes % (align * 2) == 0) align *= 2;
  return align;
}

std::string row_length_class(long long cols) {
  for (std::size_t i = 0; i < kBoundedClasses; ++i)
    if (cols < kLengthClasses[i].below) return kLengthClasses[i].name;
  return kLengthClasses[kBoundedClasses].name;
}

std::string group_key(const Problem& p) {
  const std::string axis = p.text_or("axis", "last");
  const long long reduced = axis == "rows" ? p.integer("rows") : p.integer("cols");
  return p.text("dtype") + "." + axis + ".a" + std::to_string(row_alignment_bytes(p)) + "." +
         row_length_class(reduced);
}

std::string group_key_cpp() {
  // An element type the table does not hold gets 0 bytes: a group no route names.
  std::string bytes;
  for (const Dtype& t : kDtypes)
    bytes += "dtype == \"" + std::string(t.name) + "\" ? " + std::to_string(t.bytes) + " : ";
  std::string length;
  for (std::size_t i = 0; i < kBoundedClasses; ++i)
    length += "n < " + std::to_string(kLengthClasses[i].below) + " ? \"" + kLengthClasses[i].name +
              "\" : ";
  return "inline std::string group_key(std::string_view dtype, std::string_view axis, long long "
         "rows,\n"
         "                             long long cols) {\n"
         "  const long long row_bytes = cols * (" +
         bytes +
         "0);\n"
         "  int align = 1;\n"
         "  while (align < " +
         std::to_string(kMaxRowAlignment) +
         " && row_bytes % (align * 2) == 0) align *= 2;\n"
         "  const long long n = axis == \"rows\" ? rows : cols;\n"
         "  const char* length = " +
         length + "\"" + kLengthClasses[kBoundedClasses].name +
         "\";\n"
         "  return std::string(dtype) + \".\" + std::string(axis) + \".a\" + std::to_string(align) "
         "+ \".\" + length;\n"
         "}";
}

}  // namespace ktune::rowwise
