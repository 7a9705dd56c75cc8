// Test support for user kernels: a temporary folder holding a small valid
// description and its source, which tests edit into bad ones.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "ktune_test_paths.hpp"

namespace ktune::test {

/// The repository's examples/user_kernels folder.
inline std::filesystem::path user_examples_dir() {
  return std::filesystem::path(KTUNE_TEST_DATA_DIR).parent_path().parent_path() / "examples" /
         "user_kernels";
}

/// A scale kernel (y = a x) with one template and one #define parameter.
inline nlohmann::json scale_description() {
  return nlohmann::json::parse(R"json({
    "name": "test_scale",
    "source": "scale.cu",
    "kernel": "scale",
    "parameters": [
      {"name": "BLOCK", "values": [32, 64, 128], "default": 64},
      {"name": "UNROLL", "values": [1, 2], "default": 1, "pass": "define"}
    ],
    "constraints": ["BLOCK * UNROLL < 256"],
    "sizes": {"n": 1000},
    "launch": {"grid": ["(n + BLOCK * UNROLL - 1) / (BLOCK * UNROLL)"], "block": ["BLOCK"]},
    "arguments": [
      {"name": "y", "buffer": "float32", "count": "n", "output": true},
      {"name": "x", "buffer": "float32", "count": "n", "fill": "index"},
      {"name": "a", "scalar": "float32", "value": "2"},
      {"name": "n", "scalar": "int32", "value": "n"}
    ],
    "verification": {"first_valid": true},
    "bytes": "8 * n"
  })json");
}

inline const char* kScaleSource = R"cu(
template <int BLOCK>
__global__ void scale(float* y, const float* x, float a, int n) {
#if UNROLL == 3
#error UNROLL 3 does not compile
#endif
  for (int u = 0; u < UNROLL; ++u) {
    int i = (blockIdx.x * UNROLL + u) * BLOCK + threadIdx.x;
    if (i < n) y[i] = a * x[i];
  }
}
)cu";

/// Writes `description` as scale.json (and scale.cu) into `dir`; returns the JSON's path.
inline std::string write_scale(const std::filesystem::path& dir, const nlohmann::json& description,
                               const std::string& source = kScaleSource) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "scale.cu") << source;
  std::ofstream(dir / "scale.json") << description.dump(2);
  return (dir / "scale.json").string();
}

}  // namespace ktune::test
