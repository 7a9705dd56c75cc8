// Several processes writing one database at once lose nothing (fork-based).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

void run_writers(const std::string& path);

TEST(ConcurrentWriters, ForkedProcessesLoseNoResult) {
  TempDir dir;
  std::string path = dir.file("shared.db");
  { Store::open(path); }  // created once; every writer then opens it on its own
  run_writers(path);
}

TEST(ConcurrentWriters, ForkedProcessesCreatingTheFileTogetherLoseNoResult) {
  TempDir dir;
  run_writers(dir.file("born-shared.db"));  // nobody created it: they race to
}

void run_writers(const std::string& path) {

  constexpr int kWriters = 4, kBatches = 25, kPerBatch = 20;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        Store store = Store::open(path);
        for (int b = 0; b < kBatches; ++b) {
          std::vector<Result> batch;
          for (int i = 0; i < kPerBatch; ++i)
            batch.push_back(ok_result(tile_config(16 * (w + 1), b * kPerBatch + i), 1e-3 + i * 1e-6));
          // Writers share problems and devices: the inserts of ids race too.
          store.record(gemm_key(gemm_problem(128 * (1 + b % 3), 128, 128)), batch,
                       test_provenance("writer-" + std::to_string(w)));
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %d: %s\n", w, e.what());
        code = 1;
      }
      std::_Exit(code);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  Store store = Store::open_read_only(path);
  EXPECT_EQ(store.result_count(), kWriters * kBatches * kPerBatch);
  StoreStats s = store.stats();
  EXPECT_EQ(s.devices, 1);
  EXPECT_EQ(s.problems, 3);
}

}  // namespace
}  // namespace ktune
