// Validity first, against the shipped database: for 10,000 random problems
// (every gemm dtype and layout, sizes 1..65536, loose leading dimensions, and
// the row-wise families) every lookup answer lies in the family's space for
// that problem and device, asked by GPU name and by arch alone; and so does
// every answer of the dispatch header emitted from it (compiled and run).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <unistd.h>

#include "compile/family_hash.hpp"
#include "db/dispatch_emitter.hpp"
#include "db/lookup.hpp"
#include "db/query.hpp"
#include "db/store.hpp"
#include "kernels_templated/family.hpp"
#include "lookup/lookup_predictor.hpp"
#include "lookup/lookup_validity.hpp"
#include "tests/lookup/shipped_database.hpp"

namespace ktune {
namespace {

using testing::kShippedDb;

// Log-uniform in [1, 65536], with the round sizes the database measured common.
std::int64_t random_size(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> exponent(0.0, 16.0);
  std::int64_t v = static_cast<std::int64_t>(std::floor(std::exp2(exponent(rng))));
  if (rng() % 3 == 0) v = std::int64_t{1} << (rng() % 17);  // powers of two: exact and bucket hits
  return std::clamp<std::int64_t>(v, 1, 65536);
}

// A leading dimension at or above the tight one: tight half the time, else a
// few elements (misaligned) or a round number more.
std::int64_t random_ld(std::mt19937_64& rng, std::int64_t tight) {
  switch (rng() % 4) {
    case 0:
      return tight + 1 + static_cast<std::int64_t>(rng() % 7);
    case 1:
      return tight + 64;
    default:
      return tight;
  }
}

Problem random_gemm(std::mt19937_64& rng) {
  static const char* dtypes[] = {"fp32", "tf32", "bf16", "fp16"};
  static const char* layouts[] = {"nn", "nt", "tn", "tt"};
  const std::int64_t m = random_size(rng), n = random_size(rng), k = random_size(rng);
  const std::string layout = layouts[rng() % 4];
  Problem p;
  p.set("m", m);
  p.set("n", n);
  p.set("k", k);
  p.set("dtype", std::string(dtypes[rng() % 4]));
  p.set("layout", layout);
  p.set("lda", random_ld(rng, layout[0] == 't' ? m : k));
  p.set("ldb", random_ld(rng, layout[1] == 't' ? k : n));
  p.set("ldc", random_ld(rng, n));
  return p;
}

// Around the measured problems (bf16, layouts nt and nn, LLM sizes): exact
// shapes, scaled ones in round or odd steps, so that exact, nearest and
// bucket answers are common and unpredicated tiles meet sizes they do not divide.
Problem near_measured_gemm(std::mt19937_64& rng) {
  static const std::int64_t sizes[] = {128, 512, 2048, 4096, 8192, 11008, 14336};
  auto size = [&] {
    const double base = static_cast<double>(sizes[rng() % 7]);
    switch (rng() % 4) {
      case 0:
        return static_cast<std::int64_t>(base);
      case 1:
        return static_cast<std::int64_t>(base) + 1 + static_cast<std::int64_t>(rng() % 63);
      default: {
        std::uniform_real_distribution<double> scale(-1.0, 1.0);
        const std::int64_t step = rng() % 2 ? 8 : 128;
        return std::max(step,
                        static_cast<std::int64_t>(base * std::exp2(scale(rng))) / step * step);
      }
    }
  };
  const std::int64_t m = size(), n = size(), k = size();
  Problem p;
  p.set("m", m);
  p.set("n", n);
  p.set("k", k);
  p.set("dtype", std::string("bf16"));
  p.set("layout", std::string(rng() % 4 ? "nt" : "nn"));
  return p;
}

Problem random_rowwise(std::mt19937_64& rng, const std::string& family) {
  static const char* dtypes[] = {"fp32", "bf16", "fp16"};
  Problem p;
  p.set("rows", random_size(rng));
  p.set("cols", random_size(rng));
  p.set("dtype", std::string(dtypes[rng() % 3]));
  if (family == "reduce") p.set("axis", std::string(rng() % 2 ? "last" : "rows"));
  return p;
}

TEST(LookupValidity, EveryAnswerForTenThousandRandomProblemsLiesInTheSpace) {
  ASSERT_TRUE(std::filesystem::exists(kShippedDb)) << kShippedDb;
  Lookup lookup = Lookup::open(kShippedDb);
  // As `ktune lookup` serves: far shapes are predicted (docs/lookup.md).
  lookup.set_predictor(CostModelPredictor::from_databases({kShippedDb}));
  const DeviceSpec h200 = *find_builtin_device("NVIDIA H200");
  std::mt19937_64 rng(20261205);
  const std::vector<std::string> rowwise = {"reduce", "softmax", "rmsnorm"};
  int measured_answers = 0, predicted = 0, failures = 0;
  for (int i = 0; i < 10000 && failures < 10; ++i) {
    const std::string name = i % 5 == 4 ? rowwise[rng() % 3] : "gemm";
    const KernelFamily& family = find_family(name);
    const Problem problem = family.normalize(name != "gemm" ? random_rowwise(rng, name)
                                             : i % 2        ? near_measured_gemm(rng)
                                                            : random_gemm(rng));
    const Space space = family.space(problem, h200);
    LookupRequest req;
    req.family = name;
    req.problem = problem;
    req.shape_keys = family.shape_keys();
    req.shape_class = family.shape_class(problem);
    req.default_config = family.default_config(problem, h200);
    req.fits = [&space](const Config& c) { return space.is_valid(c); };
    if (i % 2)
      req.device = h200.name;
    else
      req.arch = h200.arch();
    auto a = lookup.best(req);
    ASSERT_TRUE(a) << problem.key();
    if (a->source != LookupSource::default_config) ++measured_answers;
    if (a->source == LookupSource::predicted) ++predicted;
    std::string why;
    if (!space.is_valid(a->config, &why)) {
      ++failures;
      ADD_FAILURE() << name << " " << problem.key() << ": " << to_string(a->source) << " answer "
                    << a->config_key << " is not in the space: " << why;
    }
  }
  // The check means something only if the database answered many of them.
  EXPECT_GT(measured_answers, 2000);
  EXPECT_GT(predicted, 1000);
}

TEST(LookupValidity, EveryAnswerOfTheEmittedHeaderLiesInTheSpace) {
  ASSERT_TRUE(std::filesystem::exists(kShippedDb)) << kShippedDb;
  const KernelFamily& gemm = find_family("gemm");
  const DeviceSpec h200 = *find_builtin_device("NVIDIA H200");
  DispatchOptions options;
  options.family = "gemm";
  options.device = "sm_90";
  options.shape_keys = gemm.shape_keys();
  options.condition = dispatch_conditions(gemm);
  // Every kernel path's rows, as `ktune db emit-dispatch` serves them.
  options.current = [resolve = current_hash_resolver()](
                        const std::string& family, const Problem& problem,
                        const std::string& device, const std::string& arch) {
    try {
      return resolve(family, problem, device, arch);
    } catch (const std::runtime_error&) {
      return std::string();
    }
  };
  const std::string header = emit_dispatch_header(Store::open_read_only(kShippedDb), options);

  // A program that routes "class m n k" lines through the header's select().
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ktune_header_validity_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "dispatch.hpp") << header;
  std::ofstream(dir / "main.cpp")
      << "#include <iostream>\n#include <string>\n#include \"dispatch.hpp\"\n"
         "int main() {\n  std::string c;\n  double m, n, k;\n"
         "  while (std::cin >> c >> m >> n >> k) {\n"
         "    auto ch = ktune_dispatch::gemm_sm_90::select(c.c_str(), m, n, k);\n"
         "    std::cout << (ch.config ? ch.config : \"-\") << ' ' << ch.how << '\\n';\n"
         "  }\n}\n";
  const char* cxx = std::getenv("CXX");
  const std::string compile = std::string(cxx && *cxx ? cxx : "c++") + " -std=c++17 -O1 -o " +
                              (dir / "route").string() + " " + (dir / "main.cpp").string() +
                              " 2> " + (dir / "compile.log").string();
  ASSERT_EQ(std::system(compile.c_str()), 0) << header;

  std::mt19937_64 rng(20261206);
  std::vector<Problem> problems;
  for (int i = 0; i < 8000; ++i)
    problems.push_back(gemm.normalize(i % 2 ? near_measured_gemm(rng) : random_gemm(rng)));
  // Each measured problem and shapes of its bucket (same floor(log2) of m, n
  // and k, in steps of 1, 8 or 128): where the header's rows and their
  // conditions are put to work.
  for (const BestRow& row : best_per_problem(Store::open_read_only(kShippedDb),
                                             {"gemm", "sm_90", "", options.current, 1})) {
    problems.push_back(gemm.normalize(row.problem));
    for (int v = 0; v < 40; ++v) {
      Problem p = row.problem;
      const std::int64_t step = v % 3 == 0 ? 1 : v % 3 == 1 ? 8 : 128;
      for (const char* key : {"m", "n", "k"}) {
        const std::int64_t low = std::int64_t{1} << std::ilogb(static_cast<double>(p.integer(key)));
        p.set(key, std::max(step, (low + static_cast<std::int64_t>(rng() % low)) / step * step));
      }
      p.erase("lda");
      p.erase("ldb");
      p.erase("ldc");
      problems.push_back(gemm.normalize(p));
    }
  }
  {
    std::ofstream in(dir / "problems.txt");
    for (const Problem& p : problems) {
      in << gemm.shape_class(p) << " " << p.integer("m") << " " << p.integer("n") << " "
         << p.integer("k") << "\n";
    }
  }
  const std::string run = (dir / "route").string() + " < " + (dir / "problems.txt").string() +
                          " > " + (dir / "choices.txt").string();
  ASSERT_EQ(std::system(run.c_str()), 0);
  std::ifstream out(dir / "choices.txt");
  int tuned = 0, failures = 0;
  for (const Problem& p : problems) {
    std::string key, how;
    ASSERT_TRUE(out >> key >> how) << p.key();
    if (key == "-") continue;  // no row fits: the application's own default
    ++tuned;
    std::string why;
    if (!gemm.space(p, h200).is_valid(ValueMap::parse(key), &why) && ++failures <= 10)
      ADD_FAILURE() << p.key() << ": " << how << " answer " << key
                    << " is not in the space: " << why;
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(tuned, 300);  // exact and bucket rows do serve
  if (!HasFailure()) std::filesystem::remove_all(dir);
}

// Compiles `body` (C++17, <cmath> included) with main() reading "m n k" lines
// and printing one line of 0/1 per problem from `row(m, n, k)`; returns the lines.
std::vector<std::string> run_program(const std::string& body,
                                     const std::vector<std::array<std::int64_t, 3>>& mnk) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("ktune_conditions_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "main.cpp")
      << "#include <cmath>\n#include <iostream>\n#include <string>\n"
      << body
      << "int main() {\n  double m, n, k;\n"
         "  while (std::cin >> m >> n >> k) std::cout << row(m, n, k) << '\\n';\n}\n";
  {
    std::ofstream in(dir / "in.txt");
    for (const auto& p : mnk) in << p[0] << " " << p[1] << " " << p[2] << "\n";
  }
  const char* cxx = std::getenv("CXX");
  const std::string compile = std::string(cxx && *cxx ? cxx : "c++") + " -std=c++17 -O1 -o " +
                              (dir / "run").string() + " " + (dir / "main.cpp").string() + " 2> " +
                              (dir / "compile.log").string();
  std::vector<std::string> lines;
  if (std::system(compile.c_str()) != 0) return lines;
  const std::string run = (dir / "run").string() + " < " + (dir / "in.txt").string() + " > " +
                          (dir / "out.txt").string();
  if (std::system(run.c_str()) != 0) return lines;
  std::ifstream out(dir / "out.txt");
  for (std::string line; std::getline(out, line);) lines.push_back(line);
  std::filesystem::remove_all(dir);
  return lines;
}

// Property: within a 16-byte-aligned class, gemm's dispatch condition of a
// configuration holds for a problem exactly when the problem's space accepts it.
TEST(LookupValidity, GemmDispatchConditionsHoldExactlyWhereTheSpaceAccepts) {
  const KernelFamily& gemm = find_family("gemm");
  const DeviceSpec h200 = *find_builtin_device("NVIDIA H200");
  std::mt19937_64 rng(4301);
  for (const char* base_text :
       {"m=4096,n=4096,k=4096,dtype=bf16,layout=nn", "m=2048,n=1024,k=4096,dtype=bf16,layout=nt",
        "m=1024,n=1024,k=1024,dtype=fp32,layout=tn"}) {
    const Problem base = parse_problem(gemm, base_text);
    const std::string cls = gemm.shape_class(base);
    std::vector<Config> configs = gemm.space(base, h200).sample(40, rng());
    // Problems of the same class: sizes that keep every leading dimension 16-byte aligned.
    std::vector<std::array<std::int64_t, 3>> mnk;
    std::vector<Problem> problems;
    while (problems.size() < 150) {
      auto size = [&] {
        return std::int64_t{8} * static_cast<std::int64_t>(1 + rng() % (rng() % 2 ? 64 : 2048));
      };
      Problem p = base;
      p.set("m", size());
      p.set("n", size());
      p.set("k", rng() % 4 ? size() : std::int64_t{8} << (rng() % 10));
      p.erase("lda");
      p.erase("ldb");
      p.erase("ldc");
      p = gemm.normalize(p);
      if (gemm.shape_class(p) != cls) continue;
      problems.push_back(p);
      mnk.push_back({p.integer("m"), p.integer("n"), p.integer("k")});
    }
    std::string body = "std::string row(double m, double n, double k) {\n  std::string out;\n";
    for (const Config& c : configs)
      body += "  out += (" + gemm.dispatch_condition(base, c) + ") ? '1' : '0';\n";
    body += "  return out;\n}\n";
    const auto lines = run_program(body, mnk);
    ASSERT_EQ(lines.size(), problems.size()) << body;
    int disagreements = 0;
    for (std::size_t i = 0; i < problems.size(); ++i) {
      const Space space = gemm.space(problems[i], h200);
      for (std::size_t j = 0; j < configs.size(); ++j) {
        const bool valid = space.is_valid(configs[j]);
        if (valid != (lines[i][j] == '1') && ++disagreements <= 5)
          ADD_FAILURE() << problems[i].key() << " " << configs[j].key() << ": space " << valid
                        << ", condition " << gemm.dispatch_condition(base, configs[j]);
      }
    }
    EXPECT_EQ(disagreements, 0) << base_text;
  }
}

TEST(LookupValidity, TheSpaceValidatorRefusesANeighboursUnpredicatedTile) {
  const KernelFamily& gemm = find_family("gemm");
  const DeviceSpec h200 = *find_builtin_device("NVIDIA H200");
  const Problem p = parse_problem(gemm, "m=4000,n=4096,k=4096,dtype=bf16,layout=nn");
  Config c = gemm.default_config(p, h200);
  auto fits = space_validator(gemm, p, h200);
  EXPECT_TRUE(fits(c));
  c.set("PREDICATED", false);  // 128 does not divide 4000
  EXPECT_FALSE(fits(c));
}

}  // namespace
}  // namespace ktune
