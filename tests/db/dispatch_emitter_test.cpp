// Dispatch emitter: generate a header, compile a program with the system C++
// compiler, run it, and check its routing (exact, bucket, default).
#include <gtest/gtest.h>

#include <cstdlib>

#include "db/dispatch_emitter.hpp"
#include "db/store.hpp"
#include "db_test_support.hpp"

namespace ktune {
namespace {

using namespace ktune::testing;

TEST(DispatchEmitter, GeneratedHeaderCompilesAndRoutes) {
  Store store = Store::open(":memory:");
  Config x = tile_config(128, 128), y = tile_config(64, 64), z = tile_config(256, 128);
  store.record(gemm_key(gemm_problem(1024, 1024, 1024)), std::vector<Result>{ok_result(x, 1e-3), ok_result(y, 2e-3)},
               test_provenance());
  store.record(gemm_key(gemm_problem(4096, 4096, 4096)), std::vector<Result>{ok_result(z, 5e-2)}, test_provenance());
  store.record(gemm_key(gemm_problem(100, 100, 100)), std::vector<Result>{ok_result(y, 1e-5)}, test_provenance());
  // Another arch's results must not leak into an sm_90 header.
  store.record(gemm_key(gemm_problem(2048, 2048, 2048), synthetic_device("Synthetic GPU C", 8, 0)),
               std::vector<Result>{ok_result(tile_config(32, 32), 1e-3)}, test_provenance());

  DispatchOptions options;
  options.family = "gemm";
  options.device = "sm_90";
  options.default_config = tile_config(64, 64, 2);
  std::string header = emit_dispatch_header(store, options);

  TempDir dir;
  write_bytes(dir.file("gemm_dispatch.hpp"), header);
  write_bytes(dir.file("main.cpp"), R"cpp(
#include <cstdio>
#include "gemm_dispatch.hpp"
int main() {
  namespace d = ktune_dispatch::gemm_sm_90;
  // parameters follow kShapeKeys: m, n, k
  auto show = [](d::Choice c) { std::printf("%s|%s\n", c.how, c.config ? c.config : "null"); };
  show(d::select("dtype=bf16,layout=nn", 1024, 1024, 1024));  // exact
  show(d::select("dtype=bf16,layout=nn", 4096, 4096, 4096));  // exact
  show(d::select("dtype=bf16,layout=nn", 1500, 1100, 1900));  // bucket of 1024^3
  show(d::select("dtype=bf16,layout=nn", 2048, 2048, 2048));  // no bucket: default
  show(d::select("dtype=fp16,layout=nn", 1024, 1024, 1024));  // other class: default
  std::printf("%s,%s,%s\n", d::kShapeKeys[0], d::kShapeKeys[1], d::kShapeKeys[2]);
  return 0;
}
)cpp");
  const char* cxx = std::getenv("CXX");
  std::string compiler = cxx && *cxx ? cxx : "c++";
  std::string build = compiler + " -std=c++17 -Wall -Werror -o " + dir.file("route") + " " + dir.file("main.cpp") +
                      " 2> " + dir.file("compile.log");
  ASSERT_EQ(std::system(build.c_str()), 0) << read_bytes(dir.file("compile.log")) << "\n" << header;
  std::string run = dir.file("route") + " > " + dir.file("out.txt");
  ASSERT_EQ(std::system(run.c_str()), 0);
  std::string expected = "exact|" + x.key() + "\n" + "exact|" + z.key() + "\n" + "bucket|" + x.key() + "\n" +
                         "default|" + tile_config(64, 64, 2).key() + "\n" + "default|" +
                         tile_config(64, 64, 2).key() + "\n" + "m,n,k\n";
  EXPECT_EQ(read_bytes(dir.file("out.txt")), expected) << header;
}

TEST(DispatchEmitter, RefusesWithoutShapeKeys) {
  Store store = Store::open(":memory:");
  RunKey key = gemm_key(gemm_problem(8, 8, 8));
  key.shape_keys.clear();
  store.record(key, std::vector<Result>{ok_result(tile_config(8, 8), 1e-6)}, test_provenance());
  EXPECT_THROW(emit_dispatch_header(store, {"gemm", "sm_90", std::nullopt, {}, "", {}, {}}), std::invalid_argument);
  // Given explicitly, they work.
  EXPECT_NE(emit_dispatch_header(store, {"gemm", "sm_90", std::nullopt, {"m", "n", "k"}, "", {}, {}}).find("select"),
            std::string::npos);
}

}  // namespace
}  // namespace ktune
