// Merges into a new output are atomic: of forked merges racing to create one
// file one publishes it and the others fail with nothing written (or, started
// after it, add to it in place), and a merge killed midway leaves no file that
// ktune refuses. PartialFile publishes whole or not at all.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include "db/merge.hpp"
#include "db/partial_file.hpp"
#include "db/schema.hpp"
#include "db/store.hpp"
#include "db/store_impl.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;
namespace fs = std::filesystem;

// A database of `rows` synthetic results, all under the source label `source`.
void make_input(const std::string& path, const std::string& source, int rows) {
  Store store = Store::open(path);
  constexpr int kPerProblem = 500;
  for (int first = 0; first < rows; first += kPerProblem) {
    std::vector<Result> batch;
    for (int i = first; i < std::min(rows, first + kPerProblem); ++i)
      batch.push_back(ok_result(tile_config(16 + i % kPerProblem, 8), 1e-3 + i * 1e-7));
    store.record(gemm_key(gemm_problem(64 * (1 + first / kPerProblem), 128, 256)), batch,
                 test_provenance(source));
  }
}

std::map<std::string, std::int64_t> rows_by_source(const std::string& path) {
  std::map<std::string, std::int64_t> out;
  Store store = Store::open_read_only(path);
  SQLite::Statement q(store.impl().db, "SELECT source, count(*) FROM results GROUP BY source");
  while (q.executeStep()) out[q.getColumn(0).getString()] = q.getColumn(1).getInt64();
  return out;
}

std::vector<std::string> partial_files(const TempDir& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir.path()))
    if (e.path().filename().string().find(".ktune-partial-") != std::string::npos)
      out.push_back(e.path().string());
  return out;
}

TEST(AtomicMerge, ForkedMergesIntoOneNewPathKeepExactlyWhatTheWinnersWrote) {
  constexpr int kMergers = 4, kRows = 1500;
  TempDir dir;
  const std::string shared = dir.file("shared.db"), output = dir.file("merged.db");
  make_input(shared, "shared", kRows);
  std::vector<std::string> inputs;
  for (int m = 0; m < kMergers; ++m) {
    inputs.push_back(dir.file("team" + std::to_string(m) + ".db"));
    make_input(inputs.back(), "team" + std::to_string(m), kRows);
  }
  int start[2];
  ASSERT_EQ(::pipe(start), 0);
  std::vector<pid_t> children;
  for (int m = 0; m < kMergers; ++m) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(start[1]);
      char c;
      (void)::read(start[0], &c, 1);  // every merger starts when the pipe closes
      int code = 0;
      try {
        merge_databases({inputs[m], shared}, output);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "merger %d: %s\n", m, e.what());
        code = 1;
      }
      std::_Exit(code);
    }
    children.push_back(pid);
  }
  ::close(start[0]);
  ::close(start[1]);
  std::vector<int> winners;
  for (int m = 0; m < kMergers; ++m) {
    int status = 0;
    ASSERT_EQ(::waitpid(children[m], &status, 0), children[m]);
    ASSERT_TRUE(WIFEXITED(status));
    if (WEXITSTATUS(status) == 0) winners.push_back(m);
  }
  // Of the merges that found the path free, one published; the others failed
  // with nothing written. A merge that started after the publication found the
  // file and added to it in place (a transaction per input), which also
  // succeeds. So the file holds exactly what the successful merges wrote.
  ASSERT_GE(winners.size(), 1u) << "merges reporting success";
  std::map<std::string, std::int64_t> expected = {{"shared", kRows}};
  for (int w : winners) expected["team" + std::to_string(w)] = kRows;
  EXPECT_EQ(rows_by_source(output), expected);
  EXPECT_TRUE(partial_files(dir).empty());
}

TEST(AtomicMerge, AMergeKilledMidwayLeavesNoFileThatIsRefused) {
  constexpr int kRows = 20000;
  TempDir dir;
  const std::string a = dir.file("a.db"), b = dir.file("b.db"), output = dir.file("merged.db");
  make_input(a, "a", kRows);
  make_input(b, "b", kRows);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    try {
      merge_databases({a, b}, output);
    } catch (...) {
      std::_Exit(1);
    }
    std::_Exit(0);
  }
  // Killed as soon as anything of the output shows in the folder: the copy
  // of the first input has begun.
  int status = 0;
  bool exited = false;
  while (!exited) {
    bool writing = false;
    for (const auto& e : fs::directory_iterator(dir.path())) {
      const std::string name = e.path().filename().string();
      std::error_code ec;
      writing |= name.rfind("merged.db", 0) == 0 && fs::file_size(e.path(), ec) > 0 && !ec;
    }
    if (writing) {
      ::kill(pid, SIGKILL);
      break;
    }
    exited = ::waitpid(pid, &status, WNOHANG) == pid;
  }
  if (!exited) {
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  }
  if (fs::exists(output)) {
    // Published, so complete: it opens and holds both inputs.
    EXPECT_NO_THROW(inspect_file(output));
    EXPECT_EQ(Store::open_read_only(output).result_count(), 2 * kRows);
  }
  // The next merge into the path succeeds and clears what the killed one left.
  merge_databases({a, b}, output);
  EXPECT_EQ(Store::open_read_only(output).result_count(), 2 * kRows);
  EXPECT_TRUE(partial_files(dir).empty());
}

TEST(PartialFile, IsPublishedWholeOrNotAtAll) {
  TempDir dir;
  const std::string target = dir.file("export.jsonl");
  write_bytes(target, "previous\n");
  {
    PartialFile partial(target);
    write_bytes(partial.path(), "half of a new");
  }  // never published: the previous file stays, the partial one goes
  EXPECT_EQ(read_bytes(target), "previous\n");
  EXPECT_TRUE(partial_files(dir).empty());
  {
    PartialFile partial(target);
    write_bytes(partial.path(), "new\n");
    partial.publish_replacing();
  }
  EXPECT_EQ(read_bytes(target), "new\n");
  PartialFile second(target);
  write_bytes(second.path(), "late\n");
  EXPECT_THROW(second.publish_new(), std::runtime_error);  // the path is taken
  EXPECT_EQ(read_bytes(target), "new\n");
}

TEST(PartialFile, AWriteThatThrowsLeavesThePreviousFile) {
  TempDir dir;
  const std::string target = dir.file("export.csv");
  write_bytes(target, "previous\n");
  EXPECT_THROW(write_file_whole(target,
                                [](std::ostream& out) {
                                  out << "half of a new";
                                  throw std::runtime_error("a row cannot be read");
                                }),
               std::runtime_error);
  EXPECT_EQ(read_bytes(target), "previous\n");
  EXPECT_TRUE(partial_files(dir).empty());
  write_file_whole(target, [](std::ostream& out) { out << "new\n"; });
  EXPECT_EQ(read_bytes(target), "new\n");
}

TEST(PartialFile, APipeIsWrittenInPlaceAndALinkKeepsPointingToItsFile) {
  TempDir dir;
  const std::string pipe = dir.file("pipe");
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  const int held = ::open(pipe.c_str(), O_RDWR);  // a reader, so that writing does not block
  ASSERT_GE(held, 0);
  write_file_whole(pipe, [](std::ostream& out) { out << "through\n"; });
  EXPECT_TRUE(fs::is_fifo(pipe));  // not replaced by a regular file
  char got[16] = {};
  EXPECT_EQ(::read(held, got, sizeof got), 8);
  EXPECT_STREQ(got, "through\n");
  ::close(held);

  const std::string file = dir.file("exports/today.jsonl"), link = dir.file("latest.jsonl");
  fs::create_directories(dir.file("exports"));
  write_bytes(file, "old\n");
  fs::create_symlink(file, link);
  write_file_whole(link, [](std::ostream& out) { out << "new\n"; });
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_bytes(file), "new\n");
}

TEST(PartialFile, RemovesWhatADeadWriterLeft) {
  TempDir dir;
  const std::string target = dir.file("merged.db");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    PartialFile partial(target);
    write_bytes(partial.path(), "killed while writing");
    std::_Exit(0);  // no destructor runs, as under SIGKILL
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_EQ(partial_files(dir).size(), 1u);
  remove_abandoned_partials(target);
  EXPECT_TRUE(partial_files(dir).empty());
}

}  // namespace
}  // namespace ktune
