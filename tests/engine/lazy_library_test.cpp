// LazyLibrary (cuda_libs/): a library opened at first use forwards calls, and
// a missing library or function is one clear error, not a crash.
#include <gtest/gtest.h>

#include <cmath>

#include "cuda_libs/lazy_library.hpp"

namespace ktune {
namespace {

/// Stands in for libm's cos, as a forwarder stands in for a CUDA function.
double forwarded_cos(double x);
LazyLibrary libm("libm", "libm.so.6", "");
double forwarded_cos(double x) { return forward_call<&forwarded_cos>(libm, "cos", x); }

std::string error_of(LazyLibrary& library, const char* name) {
  try {
    library.symbol(name);
  } catch (const LibraryUnavailable& e) {
    return e.what();
  }
  return "no error";
}

TEST(LazyLibrary, ForwardsToTheLibraryOpenedOnFirstUse) {
  EXPECT_EQ(forwarded_cos(0.0), 1.0);
  EXPECT_EQ(forwarded_cos(M_PI), std::cos(M_PI));
}

TEST(LazyLibrary, AMissingLibraryIsOneLineNamingItEachTime) {
  LazyLibrary missing("NVRTC", "libktune-missing-test.so.13", "/nonexistent-toolkit/lib");
  const std::string error = error_of(missing, "nvrtcVersion");
  EXPECT_EQ(error.rfind("cannot load NVRTC (libktune-missing-test.so.13): ", 0), 0u) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  // Not remembered as loaded: the next call fails the same way.
  EXPECT_EQ(error_of(missing, "nvrtcVersion"), error);
}

TEST(LazyLibrary, AMissingFunctionNamesTheLibraryAndTheFunction) {
  const std::string error = error_of(libm, "ktune_no_such_function");
  EXPECT_EQ(error.rfind("libm (libm.so.6) has no function ktune_no_such_function: ", 0), 0u)
      << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

}  // namespace
}  // namespace ktune
