// GPU test of the shared timing method (measure/timing.hpp): a launch whose
// first call synchronises the device (as a launcher growing its workspace
// does when it frees the old one) must not wait for the stream gate that
// holds the timed rounds.
#include <chrono>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "measure/device_query.hpp"
#include "measure/timing.hpp"

using namespace ktune;

namespace {

TEST(TimingGpu, AFirstLaunchThatSynchronisesTheDeviceIsNotHeldByTheGate) {
  const DeviceQuery q = query_devices();
  if (q.devices.empty()) GTEST_SKIP() << "no GPU: " << q.none_reason;
  void* target = nullptr;
  ASSERT_EQ(cudaMalloc(&target, 1 << 20), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  bool first = true;
  const LaunchFn launch = [&](cudaStream_t s) {
    if (first) {
      first = false;
      void* grown = nullptr;
      if (cudaError_t e = cudaMalloc(&grown, 4 << 20); e != cudaSuccess) return e;
      if (cudaError_t e = cudaFree(grown); e != cudaSuccess) return e;  // synchronises the device
    }
    return cudaMemsetAsync(target, 0, 1 << 20, s);
  };
  const WaitFn wait = [stream](double) { return cudaStreamSynchronize(stream); };
  const auto t0 = std::chrono::steady_clock::now();
  const TimedLaunches t = time_launches(std::span<const LaunchFn>(&launch, 1), stream,
                                        TimingOptions{}, nullptr, wait, 10.0);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(t.error, cudaSuccess) << t.failed_phase;
  EXPECT_GT(t.stats.at(0).repetitions, 0);
  // Held by the gate, the first launch would wait out the gate's 30 s bound.
  EXPECT_LT(seconds, 20.0);
  cudaStreamDestroy(stream);
  cudaFree(target);
}

}  // namespace
