// GrowingDeviceBuffer: a device allocation that is reallocated larger on
// demand and freed with its owner (GemmHarness's split-K workspace and its
// repacked operands).
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace ktune {

/// Device memory for `size()` elements of T, empty at first; freed by the
/// destructor, so not copyable.
template <class T>
class GrowingDeviceBuffer {
 public:
  GrowingDeviceBuffer() = default;
  ~GrowingDeviceBuffer() { reset(); }
  GrowingDeviceBuffer(const GrowingDeviceBuffer&) = delete;
  GrowingDeviceBuffer& operator=(const GrowingDeviceBuffer&) = delete;

  /// Makes room for at least `count` elements. A smaller buffer is freed
  /// before the larger one is allocated (peak memory stays one buffer); its
  /// contents are not kept. Returns cudaMalloc's error, the buffer then empty.
  cudaError_t grow_to(std::size_t count) {
    if (count <= size_) return cudaSuccess;
    reset();
    if (cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T));
        e != cudaSuccess) {
      data_ = nullptr;
      return e;
    }
    size_ = count;
    return cudaSuccess;
  }
  /// Frees the memory; the buffer is empty afterwards.
  void reset() {
    if (data_) cudaFree(data_);
    data_ = nullptr;
    size_ = 0;
  }

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace ktune
