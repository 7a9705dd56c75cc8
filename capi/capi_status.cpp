// The thread-local last error of the C ABI and its string hand-off.
#include "capi/capi_status.hpp"

#include <cstdlib>
#include <cstring>

namespace ktune::capi {
namespace {
thread_local std::string last_error;
}

ktune_status fail(ktune_status status, const std::string& message) {
  last_error = message;
  return status;
}

ktune_status succeed() {
  last_error.clear();
  return KTUNE_OK;
}

char* copy_out(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (!out) throw std::bad_alloc();
  std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

}  // namespace ktune::capi

extern "C" {

int ktune_c_api_version(void) { return KTUNE_C_API_VERSION; }
const char* ktune_last_error(void) { return ktune::capi::last_error.c_str(); }
void ktune_free(char* text) { std::free(text); }
}
