// included_templates: the template headers that kernel sources need, found
// by following their #include lines as the compiler resolves them.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ktune {

/// The files under `kernel_dir` that `sources` include, directly or through
/// one another. A name resolves as NVRTC and nvcc resolve it with the include
/// root `kernel_dir`'s parent (the -I of Compiler's options): a quoted name
/// first beside the header that includes it, then (quoted or angled) under
/// the root. Names that resolve to nothing under `kernel_dir` (CUDA and C++
/// headers, ktune's runtime headers) are the compiler's own. An #include in a
/// comment or in a branch the preprocessor skips is followed too: a header
/// too many is harmless, one too few fails the build. Sorted, each once.
std::vector<std::filesystem::path> included_templates(const std::filesystem::path& kernel_dir,
                                                      const std::vector<std::string>& sources);

}  // namespace ktune
