// Version text of this build.
#include "compile/version.hpp"

#include "ktune_revision.h"  // generated at build time: cmake/write_revision.cmake

#ifndef KTUNE_VERSION
#define KTUNE_VERSION "0.0.0"
#endif

namespace ktune {

std::string version_text() {
  return std::string("ktune ") + KTUNE_VERSION + " (rev " + KTUNE_REVISION + ")";
}

std::string tool_version() { return std::string(KTUNE_VERSION) + "+" + KTUNE_REVISION; }

}  // namespace ktune
