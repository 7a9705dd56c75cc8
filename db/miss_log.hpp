// MissLog: the lookup's log of problems answered without an exact measurement,
// one line each, written once however many processes append to it.
#pragma once

#include <sys/types.h>

#include <string>
#include <unordered_set>

namespace ktune {

/// An append-only file of distinct lines. Each append holds an exclusive
/// lock on the file while it reads what other processes added since its last
/// look and writes its line only if the file lacks it: processes that miss
/// the same problem at once log it once. Not thread-safe: the Lookup holding
/// it serialises its calls.
class MissLog {
 public:
  /// Opens `path` for reading and appending, creating it. Throws DatabaseError naming it.
  explicit MissLog(const std::string& path);
  ~MissLog();
  MissLog(const MissLog&) = delete;
  MissLog& operator=(const MissLog&) = delete;

  /// Appends `line` (ending in '\n') unless the file holds it already. A
  /// failed lock or write drops the line: the lookup's answer stands.
  void append_once(const std::string& line);

 private:
  /// Adds the whole lines past read_to_ to lines_.
  void read_new_lines();

  int fd_ = -1;
  off_t read_to_ = 0;  ///< bytes of the file whose lines are in lines_
  std::unordered_set<std::string> lines_;
};

}  // namespace ktune
