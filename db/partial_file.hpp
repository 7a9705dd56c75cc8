// PartialFile: an output written under a temporary name beside its target and
// published in one step (merges, exports), so no reader ever sees half of it.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

namespace ktune {

/// A file written at path() ("TARGET.ktune-partial-HOST-PID-N", in the
/// target's folder, so that publishing is a rename within one file system),
/// then published whole: fsync, one rename or link, fsync of the folder. A
/// process killed while writing leaves only the partial name, never a
/// half-written target; the next PartialFile for that target on this host
/// removes it (remove_abandoned_partials). Errors throw std::runtime_error
/// naming the file.
class PartialFile {
 public:
  explicit PartialFile(std::string target);
  /// Removes the partial file and any SQLite side files of it unless published.
  ~PartialFile();
  PartialFile(const PartialFile&) = delete;
  PartialFile& operator=(const PartialFile&) = delete;

  const std::string& path() const { return partial_; }
  const std::string& target() const { return target_; }

  /// Publishes over the target, replacing any file there (an export).
  void publish_replacing();
  /// Publishes only if no file is at the target: of several processes
  /// publishing one new target, exactly one succeeds and the others throw
  /// (a merge into a new output). Needs hard links or renameat2(RENAME_NOREPLACE).
  void publish_new();

 private:
  void sync_partial() const;
  void sync_folder() const;

  std::string target_, partial_;
  bool published_ = false;
};

/// Writes `target` whole: `write` fills a partial file beside it, which then
/// replaces the target (publish_replacing). If `write` throws or the process
/// dies, the previous file (or none) stays, never half of a new one. A target
/// that is a device or a pipe is written in place; a link to a file, the file.
void write_file_whole(const std::string& target, const std::function<void(std::ostream&)>& write);

/// Removes the partial files of `target` left by processes of this host that
/// no longer run (killed mid-write), with their SQLite side files.
void remove_abandoned_partials(const std::string& target);

/// Whether `path` names a partial file (TARGET.ktune-partial-HOST-PID-N) that
/// another process is writing or left behind when it was killed: unfinished
/// whatever its bytes, so never read as a database.
bool is_partial_of_another_process(const std::string& path);

}  // namespace ktune
