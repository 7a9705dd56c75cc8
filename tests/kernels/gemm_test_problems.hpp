// What the gemm descriptor tests share: a built-in device by name and a gemm
// problem from its text, parsed as the CLI parses it.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "kernels_templated/family.hpp"
#include "kernels_templated/gemm/gemm_family.hpp"

namespace ktune::gemm_test {

inline DeviceSpec device(const char* name) {
  auto d = find_builtin_device(name);
  EXPECT_TRUE(d.has_value()) << name;
  return *d;
}

inline Problem problem(const std::string& text) { return parse_problem(gemm_family(), text); }
inline GemmProblem typed(const std::string& text) { return GemmProblem::from(problem(text)); }

}  // namespace ktune::gemm_test
