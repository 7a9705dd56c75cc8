// NVRTC compile and runtime load of a user description's reference kernel.
#include "kernels_user/gpu/reference_kernel.hpp"

#include <memory>
#include <stdexcept>

#include <nvrtc.h>

namespace ktune::user {
namespace {

void check_nvrtc(nvrtcResult r, nvrtcProgram prog, const std::string& what) {
  if (r == NVRTC_SUCCESS) return;
  std::string log;
  std::size_t size = 0;
  if (prog && nvrtcGetProgramLogSize(prog, &size) == NVRTC_SUCCESS && size > 1) {
    log.resize(size);
    nvrtcGetProgramLog(prog, log.data());
  }
  throw std::runtime_error("reference kernel: " + what + ": " + nvrtcGetErrorString(r) + "\n" +
                           log);
}

}  // namespace

ReferenceKernel::ReferenceKernel(const std::string& source, const std::string& kernel, int cc,
                                 const std::vector<std::string>& options) {
  nvrtcProgram prog = nullptr;
  check_nvrtc(nvrtcCreateProgram(&prog, source.c_str(), "reference.cu", 0, nullptr, nullptr),
              nullptr, "create");
  std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> guard(
      &prog, [](nvrtcProgram* p) { nvrtcDestroyProgram(p); });
  check_nvrtc(nvrtcAddNameExpression(prog, kernel.c_str()), prog, "name " + kernel);
  std::vector<std::string> opts = {"--gpu-architecture=sm_" + std::to_string(cc), "-std=c++17",
                                   "-default-device", "-I" KTUNE_CUDA_INCLUDE,
                                   "-I" KTUNE_CUDA_INCLUDE "/cccl"};
  opts.insert(opts.end(), options.begin(), options.end());
  std::vector<const char*> argv;
  for (const auto& o : opts) argv.push_back(o.c_str());
  check_nvrtc(nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data()), prog,
              "compile");
  std::size_t size = 0;
  check_nvrtc(nvrtcGetCUBINSize(prog, &size), prog, "cubin size");
  std::vector<char> cubin(size);
  check_nvrtc(nvrtcGetCUBIN(prog, cubin.data()), prog, "cubin");
  const char* lowered = nullptr;
  check_nvrtc(nvrtcGetLoweredName(prog, kernel.c_str(), &lowered), prog, "lowered name");
  if (cudaError_t e =
          cudaLibraryLoadData(&library_, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
      e != cudaSuccess)
    throw std::runtime_error(std::string("reference kernel: cudaLibraryLoadData: ") +
                             cudaGetErrorString(e));
  if (cudaError_t e = cudaLibraryGetKernel(&kernel_, library_, lowered); e != cudaSuccess)
    throw std::runtime_error(std::string("reference kernel: cudaLibraryGetKernel: ") +
                             cudaGetErrorString(e));
}

ReferenceKernel::~ReferenceKernel() {
  if (library_) cudaLibraryUnload(library_);
}

}  // namespace ktune::user
