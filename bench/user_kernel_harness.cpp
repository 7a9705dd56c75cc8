// The hand-written harness that ktune's user-kernel path is compared with
// (issue 50 step 7, bench/user_kernel_overhead.sh): what a kernel engineer
// writes to tune examples/user_kernels/transpose by hand. Each configuration
// (TILE, BLOCK_ROWS, PAD) is compiled with NVRTC, loaded, launched three times
// to warm up and 100 times between CUDA events, without verification, L2
// flush or process isolation; its median and the wall time it cost are
// printed as one line, flushed.
// Usage: bench_user_kernel_harness SOURCE.cu ROWS COLS
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "user_kernel_harness: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

/// The cubin of transpose<tile, rows, pad> for the current device, and its lowered name.
std::pair<std::string, std::string> compile(const std::string& source, const std::string& name) {
  nvrtcProgram prog;
  nvrtcCreateProgram(&prog, source.c_str(), "transpose.cu", 0, nullptr, nullptr);
  nvrtcAddNameExpression(prog, name.c_str());
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
  const std::string arch = "-arch=sm_" + std::to_string(major * 10 + minor);
  const char* options[] = {arch.c_str(), "-std=c++17"};
  if (nvrtcCompileProgram(prog, 2, options) != NVRTC_SUCCESS) {
    std::size_t size = 0;
    nvrtcGetProgramLogSize(prog, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(prog, log.data());
    std::fprintf(stderr, "user_kernel_harness: %s does not compile:\n%s\n", name.c_str(),
                 log.c_str());
    std::exit(1);
  }
  const char* lowered = nullptr;
  nvrtcGetLoweredName(prog, name.c_str(), &lowered);
  const std::string lowered_name = lowered;
  std::size_t size = 0;
  nvrtcGetCUBINSize(prog, &size);
  std::string cubin(size, '\0');
  nvrtcGetCUBIN(prog, cubin.data());
  nvrtcDestroyProgram(&prog);
  return {cubin, lowered_name};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: bench_user_kernel_harness SOURCE.cu ROWS COLS\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "user_kernel_harness: cannot read %s\n", argv[1]);
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::string source = text.str();
  int rows = std::atoi(argv[2]), cols = std::atoi(argv[3]);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("user_kernel_harness: skipped, no CUDA device\n");
    return 0;
  }
  void *out = nullptr, *input = nullptr;
  const std::size_t bytes = static_cast<std::size_t>(rows) * cols * sizeof(float);
  check(cudaMalloc(&out, bytes), "allocating out");
  check(cudaMalloc(&input, bytes), "allocating in");
  check(cudaMemset(input, 0, bytes), "clearing in");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "stream");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  // The example's space: its three parameters under its three constraints.
  for (int tile : {16, 32, 64})
    for (int block_rows : {1, 2, 4, 8, 16, 32})
      for (bool pad : {false, true}) {
        if (tile % block_rows != 0 || tile * block_rows > 1024 || tile * (tile + 1) * 4 > 48 * 1024)
          continue;
        const auto t0 = std::chrono::steady_clock::now();
        const std::string name = "transpose<" + std::to_string(tile) + ", " +
                                 std::to_string(block_rows) + ", " + (pad ? "true" : "false") + ">";
        const auto [cubin, lowered] = compile(source, name);
        cudaLibrary_t library;
        check(cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
              "loading the cubin");
        cudaKernel_t kernel;
        check(cudaLibraryGetKernel(&kernel, library, lowered.c_str()), "finding the kernel");
        const auto compiled = std::chrono::steady_clock::now();
        const dim3 grid((cols + tile - 1) / tile, (rows + tile - 1) / tile);
        const dim3 block(tile, block_rows);
        void* args[] = {&out, &input, &rows, &cols};
        auto launch = [&] {
          check(
              cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, args, 0, stream),
              "launch");
        };
        for (int i = 0; i < 3; ++i) launch();
        std::vector<float> ms(100);
        for (float& m : ms) {
          check(cudaEventRecord(start, stream), "record");
          launch();
          check(cudaEventRecord(stop, stream), "record");
          check(cudaEventSynchronize(stop), "synchronize");
          check(cudaEventElapsedTime(&m, start, stop), "elapsed");
        }
        std::nth_element(ms.begin(), ms.begin() + 50, ms.end());
        const auto done = std::chrono::steady_clock::now();
        std::printf("BLOCK_ROWS=%d,PAD=%s,TILE=%d median_us %.3f compile_ms %.1f wall_ms %.1f\n",
                    block_rows, pad ? "true" : "false", tile, ms[50] * 1e3,
                    std::chrono::duration<double, std::milli>(compiled - t0).count(),
                    std::chrono::duration<double, std::milli>(done - t0).count());
        std::fflush(stdout);
        cudaLibraryUnload(library);
      }
  cudaFree(out);
  cudaFree(input);
  return 0;
}
