// StreamGate: holds a CUDA stream at a host function until released, so that
// a batch of launches is queued whole before the GPU starts on it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include <cuda_runtime_api.h>

namespace ktune {

/// Queued on construction; the launches queued after it wait until release()
/// (or destruction), so the GPU never waits for the CPU between them. The
/// host function must not outlive the gate: callers synchronise the stream
/// (or know it passed the gate) before the gate is destroyed.
class StreamGate {
 public:
  explicit StreamGate(cudaStream_t stream) { cudaLaunchHostFunc(stream, &StreamGate::wait, this); }
  ~StreamGate() { release(); }
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;
  void release() {
    {
      std::lock_guard lock(mutex_);
      open_ = true;
    }
    cv_.notify_all();
  }

 private:
  static void CUDART_CB wait(void* self) {
    auto* gate = static_cast<StreamGate*>(self);
    std::unique_lock lock(gate->mutex_);
    // Bounded: a gate is never held longer than the queueing of one batch.
    gate->cv_.wait_for(lock, std::chrono::seconds(30), [gate] { return gate->open_; });
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false;
};

}  // namespace ktune
