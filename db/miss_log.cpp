// MissLog: distinct lines appended under an exclusive file lock.
#include "db/miss_log.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "db/store.hpp"

namespace ktune {

MissLog::MissLog(const std::string& path)
    : fd_(::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) {
  if (fd_ < 0)
    throw DatabaseError("cannot open the miss log '" + path +
                        "' for appending: " + std::strerror(errno));
  read_new_lines();
}

MissLog::~MissLog() {
  if (fd_ >= 0) ::close(fd_);
}

void MissLog::read_new_lines() {
  std::string text;
  char buf[65536];
  for (off_t at = read_to_;;) {
    const ssize_t n = ::pread(fd_, buf, sizeof buf, at);
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    at += n;
  }
  // A line without its newline yet is read again next time, whole.
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    lines_.insert(text.substr(start, end + 1 - start));
  read_to_ += static_cast<off_t>(start);
}

void MissLog::append_once(const std::string& line) {
  if (lines_.count(line)) return;
  if (::flock(fd_, LOCK_EX) != 0) return;
  read_new_lines();
  // One write per line: O_APPEND places it whole at the end.
  if (!lines_.count(line) &&
      ::write(fd_, line.data(), line.size()) == static_cast<ssize_t>(line.size()))
    lines_.insert(line);  // read again with the next look, where it counts once
  ::flock(fd_, LOCK_UN);
}

}  // namespace ktune
