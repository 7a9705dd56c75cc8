// test_faulty's GPU harness: inputs, launch, poisoning and verification of
// y = a*x + b. Real in every part, so the faults the kernel injects are met
// by the same checks as any family's.
#include "kernels_templated/faulty/gpu/faulty_harness.hpp"

#include "kernels_templated/faulty/faulty_family.hpp"

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace ktune {
namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw std::runtime_error(std::string("test_faulty harness: ") + what + ": " +
                             cudaGetErrorString(err));
}

constexpr std::uint32_t kPoison = 0xFFFFFFFFu;  // a quiet NaN no kernel computes

class FaultyHarness final : public FamilyHarness {
 public:
  ~FaultyHarness() override { release(); }

  void prepare(const Problem& problem, std::uint64_t seed) override {
    release();
    n_ = problem.integer("n");
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.f, 1.f);
    a_ = 0.5f + 0.5f * (uniform(rng) + 1.f);  // [0.5, 1.5]: never zero
    b_ = uniform(rng);
    std::vector<float> x(static_cast<std::size_t>(n_));
    for (auto& v : x) v = uniform(rng);
    reference_.resize(x.size());
    magnitude_.resize(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      reference_[i] = static_cast<double>(a_) * static_cast<double>(x[i]) + static_cast<double>(b_);
      magnitude_[i] = std::fabs(static_cast<double>(a_) * static_cast<double>(x[i])) +
                      std::fabs(static_cast<double>(b_));
    }
    check(cudaMalloc(reinterpret_cast<void**>(&x_), bytes()), "cudaMalloc x");
    check(cudaMalloc(reinterpret_cast<void**>(&y_), bytes()), "cudaMalloc y");
    check(cudaMemcpy(x_, x.data(), bytes(), cudaMemcpyHostToDevice), "copy x");
  }

  cudaError_t launch(const Config& c, std::span<const cudaKernel_t> kernels,
                     cudaStream_t stream) override {
    if (kernels.size() != 1) return cudaErrorInvalidValue;
    const long long threads = c.integer("threads");
    const long long per_block = threads * c.integer("items");
    const long long blocks = (n_ + per_block - 1) / per_block;
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
    const std::size_t smem = c.boolean("smem_stage") ? static_cast<std::size_t>(per_block) * 4 : 0;
    const float* x = x_;
    void* args[] = {&a_, &x, &b_, &y_, &n_};
    return cudaLaunchKernel(reinterpret_cast<const void*>(kernels[0]),
                            dim3(static_cast<unsigned>(blocks)),
                            dim3(static_cast<unsigned>(threads)), args, smem, stream);
  }

  void poison_outputs(cudaStream_t stream) override {
    check(cudaMemsetAsync(y_, 0xFF, bytes(), stream), "poison y");
  }

  Verification verify(const Config&, cudaStream_t stream) override {
    check(cudaStreamSynchronize(stream), "synchronize before verification");
    std::vector<float> y(static_cast<std::size_t>(n_));
    check(cudaMemcpy(y.data(), y_, bytes(), cudaMemcpyDeviceToHost), "copy y");
    Verification v;
    // y = a x + b as up to nine fp32 terms (drop_ktile's eight shares of a x,
    // and b): a sum's bound over |a x| + |b|; rows of kFaultyRowLength outputs.
    v.tolerances = {verify::sum_bound(verify::Precision::fp32, 9), 1e-5, 1e-4};
    verify::Checker checker(v.tolerances.element, kFaultyRowLength);
    for (std::size_t i = 0; i < y.size(); ++i) {
      std::uint32_t bits;
      std::memcpy(&bits, &y[i], 4);
      const auto index = static_cast<long long>(i);
      if (bits == kPoison)
        checker.add_unwritten(index);
      else
        checker.add(index, y[i], reference_[i], magnitude_[i]);
    }
    v.stats = checker.finish();
    v.detail = conclude(v);
    if (v.stats.first_bad >= 0) {
      const auto i = static_cast<std::size_t>(v.stats.first_bad);
      v.detail += (v.detail.empty() ? "" : "; ") + std::string("first mismatch at y[") +
                  std::to_string(i) + "]: got " + std::to_string(y[i]) + ", expected " +
                  std::to_string(reference_[i]);
    }
    return v;
  }

  std::pair<const void*, std::size_t> output_region() const override { return {y_, bytes()}; }

 private:
  std::size_t bytes() const { return static_cast<std::size_t>(n_) * sizeof(float); }
  void release() {
    // Errors are ignored on purpose: after a sticky fault the frees fail too.
    if (x_) cudaFree(x_);
    if (y_) cudaFree(y_);
    x_ = y_ = nullptr;
  }

  long long n_ = 0;
  float a_ = 1, b_ = 0;
  float* x_ = nullptr;
  float* y_ = nullptr;
  std::vector<double> reference_;
  std::vector<double> magnitude_;  ///< |a x| + |b|, what the element bound scales with
};

}  // namespace

std::unique_ptr<FamilyHarness> make_faulty_harness() { return std::make_unique<FaultyHarness>(); }

}  // namespace ktune
