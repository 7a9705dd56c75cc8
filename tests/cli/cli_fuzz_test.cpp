// No input crashes the CLI: `ktune space` and `ktune lookup` over every family
// with random problems (zeros, ones, primes, huge sizes, misaligned leading
// dimensions) and random --require expressions. Any exit but 0, 1 or 2 (a
// signal, an uncaught exception) fails.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernels_templated/family.hpp"
#include "tests/ktune_process.hpp"

namespace ktune {
namespace {

using ktune::test::quote;
using ktune::test::shell;

const std::string kShippedDb = std::string(KTUNE_TEST_DATA_DIR) + "/../../tuning_db/ktune.db";

template <class T>
const T& pick(std::mt19937_64& rng, const std::vector<T>& items) {
  return items[rng() % items.size()];
}

std::string random_size(std::mt19937_64& rng) {
  static const std::vector<std::string> sizes = {"0",
                                                 "1",
                                                 "2",
                                                 "3",
                                                 "7",
                                                 "127",
                                                 "4093",
                                                 "4096",
                                                 "65537",
                                                 "-1",
                                                 "2147483647",
                                                 "2147483648",
                                                 "9223372036854775807",
                                                 "1e9",
                                                 "abc",
                                                 ""};
  if (rng() % 3 == 0) return std::to_string(1 + rng() % 70000);
  return pick(rng, sizes);
}

std::string random_problem(std::mt19937_64& rng, const std::string& family) {
  std::vector<std::string> keys;
  if (family == "gemm") {
    keys = {"m=" + random_size(rng), "n=" + random_size(rng), "k=" + random_size(rng)};
    keys.push_back("dtype=" +
                   pick(rng, std::vector<std::string>{"fp32", "tf32", "bf16", "fp16", "int8"}));
    keys.push_back("layout=" + pick(rng, std::vector<std::string>{"nn", "nt", "tn", "tt", "xx"}));
    if (rng() % 2) keys.push_back("lda=" + random_size(rng));
    if (rng() % 3 == 0) keys.push_back("ldb=" + random_size(rng));
    if (rng() % 4 == 0)
      keys.push_back("path=" + pick(rng, std::vector<std::string>{"auto", "mma", "wgmma"}));
  } else {
    keys = {"rows=" + random_size(rng), "cols=" + random_size(rng)};
    keys.push_back("dtype=" + pick(rng, std::vector<std::string>{"fp32", "bf16", "fp16", "fp64"}));
    if (rng() % 3 == 0)
      keys.push_back("axis=" + pick(rng, std::vector<std::string>{"last", "rows", "up"}));
  }
  if (rng() % 10 == 0) keys.push_back("bogus=1");
  std::string out;
  for (const auto& k : keys)
    if (rng() % 12 != 0) out += (out.empty() ? "" : ",") + k;  // sometimes a key is missing
  return out;
}

// Expressions over the family's parameters, constants and nonsense: zero
// divisors, unknown names, unbalanced text.
std::string random_require(std::mt19937_64& rng, const std::vector<std::string>& names) {
  static const std::vector<std::string> ops = {
      " + ", " - ", " * ", " / ", " % ", " == ", " != ", " < ", " >= ", " && ", " || "};
  static const std::vector<std::string> atoms = {
      "0", "1", "-1", "128", "9223372036854775807", "true", "false", "'xor'", "unknown_name",
      "(", ")", "!"};
  std::string e;
  const int terms = 1 + static_cast<int>(rng() % 5);
  for (int i = 0; i < terms; ++i) {
    if (i) e += pick(rng, ops);
    e += rng() % 2 && !names.empty() ? pick(rng, names) : pick(rng, atoms);
  }
  return e;
}

// Each family gets 12 random invocations (half `space`, half `lookup`), run
// four at a time: a process start costs most of each.
std::vector<std::string> random_commands() {
  std::mt19937_64 rng(36006);
  const std::vector<std::string> devices = {"sm_90",       "h200",  "sm_80",
                                            "NVIDIA H200", "sm_75", "nonsense"};
  std::vector<std::string> commands;
  for (const std::string& family : family_names()) {
    // Names a --require may read: the parameters of one space of the family.
    std::vector<std::string> names;
    try {
      const KernelFamily& f = find_family(family);
      const Problem p =
          f.normalize(family == "gemm" ? ValueMap::parse("m=512,n=512,k=512")
                                       : ValueMap::parse("rows=512,cols=512,dtype=fp32"));
      for (const auto& param : f.space(p, *find_builtin_device("sm_90")).parameters())
        names.push_back(param.name());
    } catch (const std::exception&) {
      // a family without those keys: nonsense names only
    }
    for (int i = 0; i < 12; ++i) {
      const std::string problem = random_problem(rng, family);
      if (i % 2 == 0) {
        std::string cmd = ktune::test::ktune_path() + " space --kernel " + family + " --problem " +
                          quote(problem) + " --device " + quote(pick(rng, devices)) + " --sample 2";
        if (rng() % 4 != 0) cmd += " --require " + quote(random_require(rng, names));
        commands.push_back(cmd);
      } else {
        commands.push_back(ktune::test::ktune_path() + " lookup --kernel " + family +
                           " --problem " + quote(problem) + " --device " +
                           quote(pick(rng, devices)) + " --db /nonexistent.db --system-db " +
                           quote(kShippedDb) + (rng() % 2 ? " --json" : ""));
      }
    }
  }
  // Found crashing before (SIGFPE in the register estimate of a block with no thread).
  commands.push_back(
      ktune::test::ktune_path() +
      " space --kernel gemm --problem m=4000,n=4096,k=4096,dtype=bf16,layout=nn --device h200 "
      "--require 'BLOCK_M == 128 && PREDICATED == false && GROUP_M == 4 && MIN_BLOCKS == 1'");
  commands.push_back(ktune::test::ktune_path() +
                     " space --kernel gemm --problem m=64,n=64,k=64,dtype=fp32 --sample 3 "
                     "--require 'WARP_M > BLOCK_M'");
  return commands;
}

TEST(CliFuzz, SpaceAndLookupNeverCrashOnRandomInput) {
  const std::vector<std::string> commands = random_commands();
  std::vector<ktune::test::ProcessRun> runs(commands.size());
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t)
    workers.emplace_back([&] {
      for (std::size_t i = next++; i < commands.size(); i = next++) runs[i] = shell(commands[i]);
    });
  for (auto& w : workers) w.join();
  int failures = 0;
  for (std::size_t i = 0; i < commands.size(); ++i)
    if ((runs[i].code < 0 || runs[i].code > 2) && ++failures <= 10)
      ADD_FAILURE() << "exit " << runs[i].code << ": " << commands[i] << "\n" << runs[i].output;
  EXPECT_EQ(failures, 0) << "of " << commands.size() << " runs";
}

}  // namespace
}  // namespace ktune
