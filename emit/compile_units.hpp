// compile_units: an emitted library's kernel sources as the .cu files nvcc
// builds, several sources a file where their text allows it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "kernels_templated/family.hpp"

namespace ktune {

/// One kernel source of an emitted library.
struct EmittedSource {
  std::string family, config;
  std::string hash;     ///< the family's template hash, checked when the library loads
  KernelSource source;  ///< what NVRTC would compile for the configuration
};

/// nvcc spends about two seconds on a file whatever it holds (the host pass
/// over the templates, the tools it starts): on the shipped database's 173
/// sources, one a file took 2.6 s a source and eight a file 0.68 s (2 cores,
/// CUDA 13), while eight still leaves files enough to keep a build's cores
/// busy.
constexpr std::size_t kSourcesPerUnit = 8;

/// The .cu texts for `sources`: those of one preamble (their -D options as
/// #defines, then their text less its leading // comment lines) share files,
/// in order of first appearance, up to `per_unit` a file; sources of
/// different preambles never share one (a macro or declaration would leak).
/// Source i defines `ktune_emitted_kernel_<i>`, the router's name for it.
std::vector<std::string> compile_units(const std::vector<EmittedSource>& sources,
                                       std::size_t per_unit = kSourcesPerUnit);

}  // namespace ktune
