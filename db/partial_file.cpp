// PartialFile: write beside the target, fsync, publish by rename or link.
#include "db/partial_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace ktune {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPartialMark = ".ktune-partial-";
constexpr const char* kSideFiles[] = {"-journal", "-wal", "-shm"};

std::string this_host() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "host";
  return name;
}

std::string folder_of(const std::string& target) {
  fs::path parent = fs::path(target).parent_path();
  return parent.empty() ? "." : parent.string();
}

std::string system_error(const std::string& what, const std::string& path) {
  return what + " '" + path + "': " + std::strerror(errno);
}

void fsync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(system_error("cannot open", path));
  const int rc = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  errno = saved;
  if (rc != 0) throw std::runtime_error(system_error("cannot flush", path));
}

void remove_with_side_files(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
  for (const char* side : kSideFiles) fs::remove(path + side, ec);
}

// The process that wrote `name` (TARGET.ktune-partial-HOST-PID-N) if it ran on
// this host, else 0.
pid_t writer_on_this_host(const std::string& name, const std::string& prefix,
                          const std::string& host) {
  if (name.compare(0, prefix.size(), prefix) != 0) return 0;
  const std::string rest = name.substr(prefix.size());
  const auto last = rest.rfind('-');
  if (last == std::string::npos || last == 0) return 0;
  const auto before = rest.rfind('-', last - 1);
  if (before == std::string::npos || rest.substr(0, before) != host) return 0;
  try {
    return static_cast<pid_t>(std::stol(rest.substr(before + 1, last - before - 1)));
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

void remove_abandoned_partials(const std::string& target) {
  const std::string prefix = fs::path(target).filename().string() + kPartialMark;
  const std::string host = this_host();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder_of(target), ec)) {
    const std::string name = entry.path().filename().string();
    bool side = false;
    for (const char* s : kSideFiles) side |= name.size() > std::strlen(s) && name.ends_with(s);
    if (side) continue;  // removed with their file
    const pid_t pid = writer_on_this_host(name, prefix, host);
    if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH)
      remove_with_side_files(entry.path().string());
  }
}

bool is_partial_of_another_process(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  const auto mark = name.find(kPartialMark);
  if (mark == std::string::npos) return false;
  const std::string own = this_host() + "-" + std::to_string(::getpid()) + "-";
  return name.compare(mark + std::strlen(kPartialMark), own.size(), own) != 0;
}

PartialFile::PartialFile(std::string target) : target_(std::move(target)) {
  static std::atomic<int> counter{0};
  remove_abandoned_partials(target_);
  partial_ = target_ + kPartialMark + this_host() + "-" + std::to_string(::getpid()) + "-" +
             std::to_string(counter++);
  remove_with_side_files(partial_);
}

PartialFile::~PartialFile() {
  if (!published_) remove_with_side_files(partial_);
}

void PartialFile::sync_partial() const {
  // A database must be closed (its log folded in) before it is published:
  // its -wal or -journal would not follow it to the target's name.
  for (const char* side : {"-wal", "-journal"}) {
    std::error_code ec;
    if (fs::file_size(partial_ + side, ec) > 0 && !ec)
      throw std::runtime_error("'" + partial_ + "' is not complete: '" + partial_ + side +
                               "' is still in use");
  }
  fsync_path(partial_, O_RDONLY);
}

void PartialFile::sync_folder() const { fsync_path(folder_of(target_), O_RDONLY | O_DIRECTORY); }

void PartialFile::publish_replacing() {
  sync_partial();
  if (::rename(partial_.c_str(), target_.c_str()) != 0)
    throw std::runtime_error(system_error("cannot rename '" + partial_ + "' to", target_));
  published_ = true;
  remove_with_side_files(partial_);
  sync_folder();
}

void PartialFile::publish_new() {
  sync_partial();
  int rc = ::renameat2(AT_FDCWD, partial_.c_str(), AT_FDCWD, target_.c_str(), RENAME_NOREPLACE);
  if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
    // A file system without renameat2's flags: a hard link fails the same
    // way when the target exists.
    rc = ::link(partial_.c_str(), target_.c_str());
  }
  if (rc != 0) {
    if (errno == EEXIST)
      throw std::runtime_error("'" + target_ +
                               "' was created by another process meanwhile; nothing written to it "
                               "(run again to add to it)");
    throw std::runtime_error(system_error("cannot publish '" + partial_ + "' as", target_));
  }
  published_ = true;
  remove_with_side_files(partial_);  // the link's first name, if linked
  sync_folder();
}

void write_file_whole(const std::string& target, const std::function<void(std::ostream&)>& write) {
  std::error_code ec;
  const fs::file_status status = fs::status(target, ec);  // of what a link points to
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    // A device or a pipe (/dev/stdout, /dev/null): written in place, as a
    // rename would replace the device itself.
    std::ofstream out(target, std::ios::binary);
    if (!out) throw std::runtime_error("cannot write '" + target + "'");
    write(out);
    out.close();
    if (!out) throw std::runtime_error("writing '" + target + "' failed");
    return;
  }
  // A link to a file: the file it points to is replaced, the link stays.
  PartialFile partial(
      fs::is_symlink(fs::symlink_status(target, ec)) ? fs::canonical(target).string() : target);
  std::ofstream out(partial.path(), std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write '" + partial.path() + "'");
  write(out);
  out.close();
  if (!out) throw std::runtime_error("writing '" + partial.path() + "' failed");
  partial.publish_replacing();
}

}  // namespace ktune
