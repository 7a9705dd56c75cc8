// Version of this ktune build (release and source revision), for --version
// and the provenance stored with every result.
#pragma once

#include <string>

namespace ktune {

/// "ktune 0.1.0 (rev abc1234)"; the revision is read at configure time.
std::string version_text();
/// "0.1.0+abc1234": stored as tool_version with every result.
std::string tool_version();

}  // namespace ktune
