// Registry of kernel families: one line per family, in kFamilies below.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "kernels_templated/family.hpp"
#include "kernels_templated/faulty/faulty_family.hpp"
#include "kernels_templated/gemm/gemm_family.hpp"
#include "kernels_templated/problem_check.hpp"
#include "kernels_templated/reduce/reduce_family.hpp"
#include "kernels_templated/rmsnorm/rmsnorm_family.hpp"
#include "kernels_templated/runtime_registry.hpp"
#include "kernels_templated/softmax/softmax_family.hpp"

namespace ktune {
namespace {

// Adding a family: include its descriptor and add one line to families().
const std::vector<const KernelFamily*>& user_families() {
  static const std::vector<const KernelFamily*> all = {
      &reduce_family(),
      &softmax_family(),
      &rmsnorm_family(),
      &gemm_family(),
  };
  return all;
}

// Read at every call, not cached: a test may set or clear it while running.
bool test_families_on() {
  const char* v = std::getenv(kTestFamiliesEnv);
  return v && std::string(v) == "1";
}

// Families registered at run time (register_family), after the built-in ones.
std::vector<const KernelFamily*>& runtime_families() {
  static std::vector<const KernelFamily*> all;
  return all;
}

std::vector<const KernelFamily*> families() {
  std::vector<const KernelFamily*> all;
  if (test_families_on()) all.push_back(&faulty_family());
  const auto& users = user_families();
  all.insert(all.end(), users.begin(), users.end());
  all.insert(all.end(), runtime_families().begin(), runtime_families().end());
  return all;
}

}  // namespace

void register_family(const KernelFamily& family) {
  for (const KernelFamily* f : families())
    if (f->name() == family.name())
      throw std::invalid_argument("a kernel family named '" + std::string(family.name()) +
                                  "' is already known");
  runtime_families().push_back(&family);
}

const KernelFamily& find_family(std::string_view name) {
  for (const KernelFamily* f : families())
    if (f->name() == name) return *f;
  std::string known;
  for (const KernelFamily* f : families()) known += (known.empty() ? "" : ", ") + std::string(f->name());
  throw std::invalid_argument("unknown kernel family '" + std::string(name) + "' (known: " +
                              (known.empty() ? "none" : known) + ")");
}

std::vector<std::string> family_names() {
  std::vector<std::string> names;
  for (const KernelFamily* f : families()) names.emplace_back(f->name());
  return names;
}

void check_problem_values(const KernelFamily& family, const Problem& raw) {
  const std::vector<std::string> shape_keys = family.shape_keys();
  for (const auto& [key, value] : raw) {
    if (const double* d = std::get_if<double>(&value); d && !std::isfinite(*d))
      throw ProblemError(std::string(family.name()) + ": '" + key + "=" + to_text(value) +
                         "' is not a finite number");
    if (std::holds_alternative<bool>(value) &&
        std::find(shape_keys.begin(), shape_keys.end(), key) != shape_keys.end())
      throw ProblemError(std::string(family.name()) + ": '" + key + "=" + to_text(value) +
                         "' is not a size");
  }
}

Problem parse_problem(const KernelFamily& family, std::string_view text) {
  Problem raw;
  try {
    raw = ValueMap::parse(text);
  } catch (const std::invalid_argument& e) {
    throw ProblemError(std::string("malformed problem: ") + e.what() + " (expected " +
                       std::string(family.problem_help()) + ")");
  }
  check_problem_values(family, raw);
  return family.normalize(raw);
}

}  // namespace ktune
