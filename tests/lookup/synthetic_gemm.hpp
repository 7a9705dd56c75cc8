// Test support: synthetic gemm fixtures on the built-in H200 for the
// lookup's predictor and regret tests: mma.sync problems whose predicated
// tiles fit every size, and four tile variants of the family's default.
#pragma once

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "kernels_templated/family.hpp"
#include "space/device_spec.hpp"

namespace ktune::testing {

inline DeviceSpec h200() {
  auto d = find_builtin_device("h200");
  EXPECT_TRUE(d);
  return d.value_or(DeviceSpec{});
}

inline Problem problem(std::int64_t m, std::int64_t n = 1024, std::int64_t k = 1024) {
  // The mma.sync path (path=mma: on the H200 bf16 takes the wgmma path in
  // every layout), whose predicated tiles fit every size here.
  return parse_problem(find_family("gemm"), "m=" + std::to_string(m) + ",n=" + std::to_string(n) +
                                                ",k=" + std::to_string(k) +
                                                ",dtype=bf16,layout=nn,path=mma");
}

/// The family's general configuration with other tile sizes (all predicated).
inline Config variant(std::int64_t block_m, std::int64_t warp_m, std::int64_t block_n,
                      std::int64_t warp_n) {
  Config c = find_family("gemm").default_config(problem(1000), h200());
  c.set("BLOCK_M", block_m);
  c.set("WARP_M", warp_m);
  c.set("BLOCK_N", block_n);
  c.set("WARP_N", warp_n);
  return c;
}

inline const Config kP = variant(128, 64, 128, 32), kQ = variant(64, 32, 128, 64),
                    kR = variant(128, 64, 64, 32), kS = variant(64, 32, 64, 32);

}  // namespace ktune::testing
