// Fakes for the runtime's CPU tests: a compiler that counts (and can wait or
// fail), a loader that hands out fake kernel handles, a launcher that
// records; and a Runtime built from them on the built-in H200's spec.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/runtime_impl.hpp"

namespace ktune::testing_rt {

struct CompilerCounts {
  std::atomic<int> compiles{0};
  std::atomic<int> in_flight{0};
  std::atomic<int> max_in_flight{0};
};

class FakeCompiler final : public rt::CubinCompiler {
 public:
  FakeCompiler(std::shared_ptr<CompilerCounts> counts, std::chrono::milliseconds delay = {},
               bool fail = false)
      : counts_(std::move(counts)), delay_(delay), fail_(fail) {}
  CompileOutput compile(const KernelSource& source) override {
    const int now = ++counts_->in_flight;
    for (int seen = counts_->max_in_flight;
         now > seen && !counts_->max_in_flight.compare_exchange_weak(seen, now);) {
    }
    ++counts_->compiles;
    std::this_thread::sleep_for(delay_);
    --counts_->in_flight;
    CompileOutput out;
    out.ok = !fail_;
    if (fail_) out.log = "fake NVRTC: error: no instance of " + source.kernels.front();
    for (const std::string& k : source.kernels) out.kernels.push_back({k, k});
    out.cubin = {'c', 'u', 'b', 'i', 'n'};
    return out;
  }

 private:
  std::shared_ptr<CompilerCounts> counts_;
  std::chrono::milliseconds delay_;
  bool fail_;
};

/// Hands out one distinct fake handle per kernel (never dereferenced).
class FakeLoader final : public rt::CubinLoader {
 public:
  CallStatus load(const CompileOutput& compiled,
                  std::shared_ptr<const rt::KernelSet>* out) override {
    auto set = std::make_shared<rt::KernelSet>();
    static std::atomic<std::uintptr_t> next{0x1000};
    for (std::size_t i = 0; i < compiled.kernels.size(); ++i)
      set->kernels.push_back(reinterpret_cast<cudaKernel_t>(next.fetch_add(16)));
    *out = std::move(set);
    return CallStatus::success();
  }
};

struct Launch {
  const KernelFamily* family;
  std::string config;
  std::size_t kernels = 0;
  cudaStream_t stream = nullptr;
};

struct LaunchLog {
  std::mutex mutex;
  std::vector<Launch> launches;
};

class FakeLauncher final : public rt::Launcher {
 public:
  explicit FakeLauncher(std::shared_ptr<LaunchLog> log, std::string error = {})
      : log_(std::move(log)), error_(std::move(error)) {}
  CallStatus launch(const rt::Prepared& p, const rt::CallTensors&, cudaStream_t stream) override {
    if (!error_.empty()) return CallStatus::error(error_);
    std::lock_guard lock(log_->mutex);
    log_->launches.push_back({p.family, p.config.key(), p.kernels->kernels.size(), stream});
    return CallStatus::success();
  }

 private:
  std::shared_ptr<LaunchLog> log_;
  std::string error_;
};

inline DeviceSpec h200() { return *find_builtin_device("h200"); }

inline std::unique_ptr<Runtime> fake_runtime(std::unique_ptr<rt::CubinCompiler> compiler,
                                             std::shared_ptr<LaunchLog> log,
                                             std::shared_ptr<const Lookup> lookup = nullptr,
                                             std::unique_ptr<rt::CubinLoader> loader = nullptr) {
  return std::make_unique<Runtime>(
      std::make_unique<Runtime::Impl>(h200(), std::move(lookup), std::move(compiler),
                                      loader ? std::move(loader) : std::make_unique<FakeLoader>(),
                                      std::make_unique<FakeLauncher>(std::move(log))));
}

/// Hands out one fake kernel handle for any source and configuration (the
/// router filters what is compiled; never dereferenced).
class AnySupplier final : public rt::KernelSupplier {
 public:
  CallStatus kernels(const KernelFamily&, const Problem&, const Config&,
                     std::shared_ptr<const rt::KernelSet>* out) override {
    auto set = std::make_shared<rt::KernelSet>();
    set->kernels.push_back(reinterpret_cast<cudaKernel_t>(std::uintptr_t{0x100}));
    *out = std::move(set);
    return CallStatus::success();
  }
};

/// Distinct non-null device-pointer stand-ins (the fakes never dereference them).
inline void* fake_ptr(int i) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(0x10000 * (i + 1)));
}

}  // namespace ktune::testing_rt
