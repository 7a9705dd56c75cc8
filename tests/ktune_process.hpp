// Test support: runs the built `ktune` binary (or any shell command) as a
// process and captures its exit code and output, for the CLI tests.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>
#include "ktune_test_paths.hpp"

namespace ktune::test {

struct ProcessRun {
  int code = -1;       ///< exit status; -1 when the process did not exit normally
  std::string output;  ///< stdout and stderr together
};

/// Single-quotes text for /bin/sh.
inline std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Runs a shell command with stdin from /dev/null, stderr merged into stdout.
inline ProcessRun shell(const std::string& command) {
  ProcessRun run;
  std::FILE* pipe = popen((command + " 2>&1 </dev/null").c_str(), "r");
  if (!pipe) return run;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) run.output.append(buf.data(), n);
  int status = pclose(pipe);
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

/// The ktune binary of this build tree (KTUNE_BINARY_DIR is set by tests/CMakeLists.txt).
inline std::string ktune_path() { return std::string(KTUNE_BINARY_DIR) + "/bin/ktune"; }

/// Runs `ktune ARGS` (ARGS already quoted where needed).
inline ProcessRun ktune(const std::string& args) { return shell(quote(ktune_path()) + " " + args); }

}  // namespace ktune::test
