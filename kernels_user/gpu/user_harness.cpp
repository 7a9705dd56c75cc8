// UserHarness: prepare, launch, poison and verify a user kernel's arguments.
#include "kernels_user/gpu/user_harness.hpp"

#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "kernels_templated/gpu/device_properties.hpp"
#include "kernels_user/buffer_data.hpp"
#include "kernels_user/gpu/reference_kernel.hpp"
#include "kernels_user/user_family.hpp"
#include "space/expression.hpp"

namespace ktune::user {
namespace {

void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) throw std::runtime_error(what + ": " + cudaGetErrorString(e));
}

/// A scalar argument's value, stored as its dtype for the launch.
struct ScalarSlot {
  alignas(8) unsigned char bytes[8] = {};
};

ScalarSlot scalar_value(const Argument& a, const ValueMap& names) {
  const std::optional<Value> v = Expression::compile(a.expression, names).evaluate();
  if (!v) throw DescriptionError("argument " + a.name + ": '" + a.expression + "' divides by zero");
  const double x = as_number(*v);
  ScalarSlot s;
  auto put = [&s](auto t) { std::memcpy(s.bytes, &t, sizeof t); };
  if (a.dtype == "float32")
    put(static_cast<float>(x));
  else if (a.dtype == "float64")
    put(x);
  else if (a.dtype == "int32")
    put(static_cast<std::int32_t>(std::get<std::int64_t>(*v)));
  else if (a.dtype == "int64")
    put(std::get<std::int64_t>(*v));
  else
    put(static_cast<std::uint32_t>(std::get<std::int64_t>(*v)));
  return s;
}

DeviceSpec live_device(int& ordinal) {
  check(cudaGetDevice(&ordinal), "cudaGetDevice");
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, ordinal), "cudaGetDeviceProperties");
  return spec_of_device(p);
}

class UserHarness final : public FamilyHarness {
 public:
  explicit UserHarness(const UserFamily& family) : family_(family), d_(family.spec()) {}
  ~UserHarness() override { release(); }

  void prepare(const Problem& problem, std::uint64_t) override {
    release();
    sizes_ = family_.normalize(problem);
    device_ = live_device(ordinal_);
    const ValueMap constants = space_constants(d_, sizes_, device_);
    for (const Argument& a : d_.arguments) {
      Buffer b;
      if (a.is_buffer) {
        const std::int64_t count =
            evaluate_integer(a.count, constants, "argument " + a.name + ".count");
        if (count < 1)
          throw DescriptionError("argument " + a.name + ": count " + std::to_string(count) +
                                 " < 1");
        b.host = fill_buffer(a, count);
        check(cudaMalloc(&b.device, b.host.size()), "cudaMalloc " + a.name);
        check(cudaMemcpy(b.device, b.host.data(), b.host.size(), cudaMemcpyHostToDevice),
              "copy " + a.name);
      }
      buffers_.push_back(std::move(b));
    }
    reference_.assign(d_.arguments.size(), {});
    if (d_.verification.by == VerifyBy::reference_file) read_reference_file();
    if (d_.verification.by == VerifyBy::reference_kernel) run_reference_kernel();
  }

  cudaError_t launch(const Config& config, std::span<const cudaKernel_t> kernels,
                     cudaStream_t stream) override {
    if (kernels.size() != 1) return cudaErrorInvalidValue;
    // The timing loop launches one configuration many times: its expressions
    // are evaluated once, not between the timed launches.
    const std::string key = config.key();
    if (key != cached_key_) {
      try {
        cached_ = plan(d_.launch, expression_names(d_, sizes_, device_, config), false);
      } catch (const DescriptionError&) {
        cached_key_.clear();
        return cudaErrorInvalidConfiguration;  // its launch shape does not evaluate
      }
      cached_key_ = key;
    }
    return launch_planned(kernels[0], cached_, stream);
  }

  void poison_outputs(cudaStream_t stream) override {
    for (std::size_t i = 0; i < d_.arguments.size(); ++i)
      if (d_.arguments[i].output)
        check(cudaMemsetAsync(buffers_[i].device, 0xFF, buffers_[i].host.size(), stream), "poison");
  }

  ktune::Verification verify(const Config&, cudaStream_t stream) override {
    check(cudaStreamSynchronize(stream), "synchronize before verification");
    ktune::Verification v;
    v.passed = true;
    const bool take_reference = d_.verification.by == VerifyBy::first_valid && !have_reference_;
    std::vector<std::vector<unsigned char>> candidate(d_.arguments.size());
    bool first_output = true;
    std::string failed;
    for (std::size_t i = 0; i < d_.arguments.size(); ++i) {
      const Argument& a = d_.arguments[i];
      if (!a.output) continue;
      std::vector<unsigned char> out(buffers_[i].host.size());
      check(cudaMemcpy(out.data(), buffers_[i].device, out.size(), cudaMemcpyDeviceToHost),
            "copy " + a.name);
      if (take_reference) {
        // A reference must be whole: a configuration leaving elements unwritten is not one.
        if (const std::int64_t unwritten = count_unwritten(a, out); unwritten > 0) {
          v.passed = false;
          v.unwritten += unwritten;
          v.detail = a.name + ": " + std::to_string(unwritten) + " elements never written";
          return v;
        }
        candidate[i] = std::move(out);
        continue;
      }
      // Each output is judged under its own bounds; the summary merges them.
      const verify::CheckStats c = compare_buffer(a, out, reference_[i]);
      if (const std::string why = verify::failure_reason(c, tolerances_of(a));
          !why.empty() && failed.empty())
        failed = a.name + ": " + why + " (first bad element " + std::to_string(c.first_bad) + ")";
      if (first_output) {
        v.stats = c;
        v.tolerances = tolerances_of(a);
        first_output = false;
      } else {
        v.stats.merge(c);
      }
    }
    if (take_reference) {
      reference_ = std::move(candidate);
      have_reference_ = true;
      v.passed = true;
      v.detail = "the reference: the first configuration verified in this worker";
      return v;
    }
    conclude(v);
    if (!failed.empty()) {
      v.passed = false;
      v.detail = failed;
    }
    return v;
  }

 private:
  struct Buffer {
    std::vector<unsigned char> host;  ///< the filled input (outputs: their initial contents)
    void* device = nullptr;
  };

  /// One launch with every expression evaluated.
  struct Planned {
    LaunchDims dims;
    std::vector<ScalarSlot> scalars;  ///< per argument (buffers: unused)
    std::vector<void*> pointers;      ///< per argument (scalars: unused)
  };

  Planned plan(const LaunchShape& shape, const ValueMap& names, bool into_reference) const {
    Planned p{evaluate_launch(shape, names), std::vector<ScalarSlot>(d_.arguments.size()),
              std::vector<void*>(d_.arguments.size())};
    for (std::size_t i = 0; i < d_.arguments.size(); ++i) {
      const Argument& a = d_.arguments[i];
      if (a.is_buffer)
        p.pointers[i] = into_reference && a.output ? reference_device_[i] : buffers_[i].device;
      else
        p.scalars[i] = scalar_value(a, names);
    }
    return p;
  }

  cudaError_t launch_planned(cudaKernel_t kernel, Planned& p, cudaStream_t stream) const {
    std::vector<void*> args(d_.arguments.size());
    for (std::size_t i = 0; i < args.size(); ++i)
      args[i] = d_.arguments[i].is_buffer ? static_cast<void*>(&p.pointers[i])
                                          : static_cast<void*>(p.scalars[i].bytes);
    if (p.dims.shared_memory > 48 * 1024)
      if (cudaError_t e =
              cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(p.dims.shared_memory), ordinal_);
          e != cudaSuccess)
        return e;
    auto u = [](std::int64_t x) { return static_cast<unsigned>(x); };
    const LaunchDims& d = p.dims;
    return cudaLaunchKernel(reinterpret_cast<const void*>(kernel),
                            dim3(u(d.grid[0]), u(d.grid[1]), u(d.grid[2])),
                            dim3(u(d.block[0]), u(d.block[1]), u(d.block[2])), args.data(),
                            static_cast<std::size_t>(d.shared_memory), stream);
  }

  void read_reference_file() {
    std::ifstream in(d_.verification.file, std::ios::binary);
    if (!in)
      throw DescriptionError("verification.reference_file: cannot read '" + d_.verification.file +
                             "'");
    for (std::size_t i = 0; i < d_.arguments.size(); ++i) {
      if (!d_.arguments[i].output) continue;
      reference_[i].resize(buffers_[i].host.size());
      in.read(reinterpret_cast<char*>(reference_[i].data()),
              static_cast<std::streamsize>(reference_[i].size()));
      if (!in)
        throw DescriptionError("verification.reference_file: '" + d_.verification.file +
                               "' is shorter than the outputs it must hold");
    }
    have_reference_ = true;
  }

  void run_reference_kernel() {
    const Verification& v = d_.verification;
    const KernelSource src = family_.reference_source(sizes_, device_);
    const ReferenceKernel ref(src.source, src.kernels.front(),
                              device_.cc_major * 10 + device_.cc_minor, src.options);
    // Launched with the default configuration's values, as it was compiled.
    const ValueMap names =
        expression_names(d_, sizes_, device_, family_.default_config(sizes_, device_));
    reference_device_.assign(d_.arguments.size(), nullptr);
    for (std::size_t i = 0; i < d_.arguments.size(); ++i)
      if (d_.arguments[i].output) {
        check(cudaMalloc(&reference_device_[i], buffers_[i].host.size()), "cudaMalloc reference");
        check(cudaMemcpy(reference_device_[i], buffers_[i].host.data(), buffers_[i].host.size(),
                         cudaMemcpyHostToDevice),
              "copy reference");
      }
    Planned reference = plan(v.launch ? *v.launch : d_.launch, names, true);
    check(launch_planned(ref.kernel(), reference, nullptr), "reference launch");
    check(cudaDeviceSynchronize(), "reference kernel");
    for (std::size_t i = 0; i < d_.arguments.size(); ++i)
      if (d_.arguments[i].output) {
        reference_[i].resize(buffers_[i].host.size());
        check(cudaMemcpy(reference_[i].data(), reference_device_[i], reference_[i].size(),
                         cudaMemcpyDeviceToHost),
              "copy reference");
        cudaFree(reference_device_[i]);
        reference_device_[i] = nullptr;
      }
    have_reference_ = true;
  }

  void release() {
    for (Buffer& b : buffers_)
      if (b.device) cudaFree(b.device);
    for (void* p : reference_device_)
      if (p) cudaFree(p);
    buffers_.clear();
    reference_device_.clear();
    have_reference_ = false;
    cached_key_.clear();
  }

  const UserFamily& family_;
  const KernelDescription& d_;
  Problem sizes_;
  DeviceSpec device_;
  int ordinal_ = 0;
  std::vector<Buffer> buffers_;                        ///< one per argument (scalars: empty)
  std::vector<std::vector<unsigned char>> reference_;  ///< per output argument
  std::vector<void*> reference_device_;                ///< the reference kernel's outputs
  bool have_reference_ = false;
  std::string cached_key_;  ///< the configuration `cached_` was planned for
  Planned cached_;
};

}  // namespace

std::unique_ptr<FamilyHarness> make_user_harness(const UserFamily& family) {
  return std::make_unique<UserHarness>(family);
}

}  // namespace ktune::user
