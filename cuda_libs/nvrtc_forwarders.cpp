// The NVRTC functions ktune calls, each forwarded to the library opened on
// first use (lazy_library.hpp): commands that compile nothing never load it.
#include <nvrtc.h>

#include "cuda_libs/lazy_library.hpp"

namespace {

ktune::LazyLibrary& nvrtc() {
  static ktune::LazyLibrary library("NVRTC", KTUNE_NVRTC_FILE, KTUNE_CUDA_LIBRARY_DIR);
  return library;
}

}  // namespace

using ktune::forward_call;

const char* nvrtcGetErrorString(nvrtcResult result) {
  return forward_call<&nvrtcGetErrorString>(nvrtc(), "nvrtcGetErrorString", result);
}

nvrtcResult nvrtcVersion(int* major, int* minor) {
  return forward_call<&nvrtcVersion>(nvrtc(), "nvrtcVersion", major, minor);
}

nvrtcResult nvrtcCreateProgram(nvrtcProgram* program, const char* source, const char* name,
                               int header_count, const char* const* headers,
                               const char* const* include_names) {
  return forward_call<&nvrtcCreateProgram>(nvrtc(), "nvrtcCreateProgram", program, source, name,
                                           header_count, headers, include_names);
}

nvrtcResult nvrtcDestroyProgram(nvrtcProgram* program) {
  return forward_call<&nvrtcDestroyProgram>(nvrtc(), "nvrtcDestroyProgram", program);
}

nvrtcResult nvrtcCompileProgram(nvrtcProgram program, int option_count,
                                const char* const* options) {
  return forward_call<&nvrtcCompileProgram>(nvrtc(), "nvrtcCompileProgram", program, option_count,
                                            options);
}

nvrtcResult nvrtcGetCUBINSize(nvrtcProgram program, size_t* bytes) {
  return forward_call<&nvrtcGetCUBINSize>(nvrtc(), "nvrtcGetCUBINSize", program, bytes);
}

nvrtcResult nvrtcGetCUBIN(nvrtcProgram program, char* cubin) {
  return forward_call<&nvrtcGetCUBIN>(nvrtc(), "nvrtcGetCUBIN", program, cubin);
}

nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram program, size_t* bytes) {
  return forward_call<&nvrtcGetProgramLogSize>(nvrtc(), "nvrtcGetProgramLogSize", program, bytes);
}

nvrtcResult nvrtcGetProgramLog(nvrtcProgram program, char* log) {
  return forward_call<&nvrtcGetProgramLog>(nvrtc(), "nvrtcGetProgramLog", program, log);
}

nvrtcResult nvrtcAddNameExpression(nvrtcProgram program, const char* const name_expression) {
  return forward_call<&nvrtcAddNameExpression>(nvrtc(), "nvrtcAddNameExpression", program,
                                               name_expression);
}

nvrtcResult nvrtcGetLoweredName(nvrtcProgram program, const char* const name_expression,
                                const char** lowered_name) {
  return forward_call<&nvrtcGetLoweredName>(nvrtc(), "nvrtcGetLoweredName", program,
                                            name_expression, lowered_name);
}
