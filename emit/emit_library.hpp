// emit_library: a self-contained CUDA source tree from a tuning database:
// the kernel sources the splitter's dispatch needs (explicit instantiations
// by address, up to eight sources of one preamble a .cu), the router tables
// (exact shapes, shape groups, the general fallback, the family default),
// and a CMakeLists.txt that nvcc builds into a static library served
// through ktune::Library.
#pragma once

#include <string>
#include <vector>

namespace ktune {

struct EmitLibraryOptions {
  std::string database;               ///< path of the tuning database (read-only)
  std::string device;                 ///< arch ("sm_90") or GPU name the results were measured on
  std::vector<std::string> families;  ///< e.g. {"gemm", "rmsnorm"}
  std::string out_dir;  ///< created; files in it are overwritten, kernels/ and include/ replaced
  /// Where the templates come from (those the kernel sources include, found by
  /// following their #include lines, are copied into include/); empty: Compiler::kernel_dir().
  std::string kernel_dir;
};

struct EmitLibrarySummary {
  int kernels = 0;  ///< distinct kernel sources (in fewer .cu files)
  int routes = 0;
  std::string template_hashes;     ///< "family=hash,..."
  std::vector<std::string> notes;  ///< per shape class: routes adopted, groups rejected and why
};

/// Throws std::invalid_argument for bad input (unknown family or device, no
/// results for a family, a database that cannot be opened) and
/// std::runtime_error when the tree cannot be written.
EmitLibrarySummary emit_library(const EmitLibraryOptions& options);

}  // namespace ktune
