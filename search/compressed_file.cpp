// read_possibly_gzipped: plain files read directly, .gz ones through gzip -dc.
#include "search/compressed_file.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

extern char** environ;

namespace ktune {
namespace {

std::invalid_argument failure(const std::filesystem::path& path, const std::string& why) {
  return std::invalid_argument(path.string() + ": " + why);
}

/// gzip -dc PATH's standard output, run without a shell (the path is one argument).
std::string gunzip(const std::filesystem::path& path) {
  int fds[2];
  if (::pipe(fds) != 0)
    throw failure(path, std::string("cannot decompress: pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::string arg0 = "gzip", arg1 = "-dc", arg2 = "--", arg3 = path.string();
  char* argv[] = {arg0.data(), arg1.data(), arg2.data(), arg3.data(), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "gzip", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    throw failure(path, std::string("cannot run gzip to decompress it: ") + std::strerror(spawned));
  }
  std::string text;
  char buffer[1 << 16];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw failure(path, "not a valid gzip file (gzip -dc failed)");
  return text;
}

}  // namespace

std::string read_possibly_gzipped(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw failure(path, "cannot open recorded space file");
  if (path.extension() == ".gz") return gunzip(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace ktune
