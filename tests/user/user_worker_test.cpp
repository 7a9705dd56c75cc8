// A user kernel reaches the isolated worker: the parent loads the
// description, the `ktune worker` it starts finds the family through
// KTUNE_USER_KERNELS and keys results by the same version hash.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "compile/compiler.hpp"
#include "engine/isolated_evaluator.hpp"
#include "engine/worker_protocol.hpp"
#include "kernels_user/description.hpp"
#include "kernels_user/user_kernels.hpp"
#include "tests/db/db_test_support.hpp"
#include "tests/user/user_test_support.hpp"

namespace ktune::user {
namespace {

TEST(UserKernelWorker, TheWorkerLoadsTheParentsDescription) {
  const std::filesystem::path ktune = std::filesystem::path(KTUNE_BINARY_DIR) / "bin" / "ktune";
  ASSERT_TRUE(std::filesystem::exists(ktune));
  testing::TempDir dir;
  auto d = test::scale_description();
  d["name"] = "test_scale_worker";
  const KernelFamily& family = load_user_kernel(test::write_scale(dir.path(), d));
  EXPECT_EQ(&load_user_kernel(dir.file("scale.json")), &family) << "loaded once";
  EXPECT_NE(std::string(std::getenv(kUserKernelsEnv)).find(dir.file("scale.json")),
            std::string::npos);

  IsolatedEvaluatorOptions o;
  o.worker_binary = ktune.string();
  o.worker_env = {std::string(kWorkerFakeEnv) + "=1"};  // no GPU: synthetic results
  const Problem problem = family.normalize({});
  IsolatedEvaluator ev(family, problem, o);
  EXPECT_EQ(ev.family_hash(), family_source_hash(family, problem, ev.device()));
  const std::vector<Config> configs = {family.default_config(problem, ev.device())};
  const auto results = ev.evaluate(configs);
  ASSERT_EQ(results.size(), 1u);
}

TEST(UserKernelWorker, ASecondFamilyOfTheSameNameIsRefused) {
  testing::TempDir a, b;
  auto d = test::scale_description();
  d["name"] = "test_scale_twice";
  load_user_kernel(test::write_scale(a.path(), d));
  EXPECT_THROW(load_user_kernel(test::write_scale(b.path(), d)), DescriptionError);
}

}  // namespace
}  // namespace ktune::user
