// CompileQueue: NVRTC compiles of a GPU test's sources on every core, in order,
// in the background, so the test runs and reports each configuration as soon
// as its cubin is ready, and a run cut by a time limit has reported what it ran.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compile/compiler.hpp"

namespace ktune {

/// The compiler of the GPU tests: the on-disk cache of default_compile_cache_dir()
/// ($KTUNE_CACHE_DIR where set), so a carried cache that scripts/gpu-precompile
/// filled without a GPU saves the lent GPU's minutes.
inline Compiler gpu_test_compiler(std::string arch = "sm_90a") {
  CompilerOptions options;
  options.arch = std::move(arch);
  options.cache_dir = default_compile_cache_dir();
  return Compiler(options);
}

/// KTUNE_GPU_TEST_PRECOMPILE=1 on a machine without a GPU: the tests that
/// support it compile what they would run (filling the cache) and then skip.
inline bool precompile_only() {
  const char* v = std::getenv("KTUNE_GPU_TEST_PRECOMPILE");
  return v != nullptr && std::string(v) == "1";
}

class CompileQueue {
 public:
  /// Starts compiling at once, lowest index first, on one thread per core.
  CompileQueue(const Compiler& compiler, std::vector<KernelSource> sources)
      : compiler_(compiler),
        sources_(std::move(sources)),
        outputs_(sources_.size()),
        ready_(sources_.size(), 0) {
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned t = 0; t < threads && t < sources_.size(); ++t)
      workers_.emplace_back([this] { work(); });
  }
  /// Stops handing out sources (a test that ends early waits only for the
  /// compiles in flight) and joins the workers.
  ~CompileQueue() {
    next_.store(sources_.size());
    for (auto& w : workers_) w.join();
  }
  CompileQueue(const CompileQueue&) = delete;
  CompileQueue& operator=(const CompileQueue&) = delete;

  /// Blocks until source `i` is compiled.
  const CompileOutput& wait(std::size_t i) {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return ready_[i] != 0; });
    return outputs_[i];
  }
  std::size_t size() const { return sources_.size(); }

 private:
  void work() {
    for (std::size_t i = next_++; i < sources_.size(); i = next_++) {
      CompileOutput out = compiler_.compile(sources_[i]);
      {
        std::lock_guard lock(mutex_);
        outputs_[i] = std::move(out);
        ready_[i] = 1;
      }
      done_.notify_all();
    }
  }

  const Compiler& compiler_;
  std::vector<KernelSource> sources_;
  std::vector<CompileOutput> outputs_;
  std::vector<char> ready_;
  std::atomic<std::size_t> next_{0};
  std::mutex mutex_;
  std::condition_variable done_;
  std::vector<std::thread> workers_;
};

}  // namespace ktune
