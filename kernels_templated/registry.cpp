// Registry of kernel families: the lines of families.def, then the families
// registered at run time.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <stdexcept>
#include <string>

#include "kernels_templated/family.hpp"
#include "kernels_templated/problem_check.hpp"
#include "kernels_templated/rowwise/rowwise_family.hpp"
#include "kernels_templated/runtime_registry.hpp"
#include "space/name_list.hpp"

namespace ktune {

// What each line of families.def names, defined in the family's folder.
#define KTUNE_FAMILY(id, visibility) const KernelFamily& id##_descriptor();
#define KTUNE_ROWWISE_FAMILY(id, visibility) const rowwise::RowwiseSpec& id##_rowwise_spec();
#include "kernels_templated/families.def"
#undef KTUNE_FAMILY
#undef KTUNE_ROWWISE_FAMILY

namespace {

enum class Visibility { shipped, test };

struct BuiltIn {
  const KernelFamily* family;
  Visibility visibility;
};

const std::vector<BuiltIn>& built_in_families() {
  static const std::vector<BuiltIn> all = [] {
    // A deque keeps the row-wise descriptors where they were built.
    static std::deque<rowwise::RowwiseFamily> rowwise_families;
    std::vector<BuiltIn> list;
#define KTUNE_FAMILY(id, visibility) list.push_back({&id##_descriptor(), Visibility::visibility});
#define KTUNE_ROWWISE_FAMILY(id, visibility) \
  list.push_back({&rowwise_families.emplace_back(id##_rowwise_spec()), Visibility::visibility});
#include "kernels_templated/families.def"
#undef KTUNE_FAMILY
#undef KTUNE_ROWWISE_FAMILY
    return list;
  }();
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
  const bool tests = test_families_on();
  for (const BuiltIn& b : built_in_families())
    if (b.visibility == Visibility::shipped || tests) all.push_back(b.family);
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
  throw std::invalid_argument("unknown kernel family '" + std::string(name) +
                              "' (known: " + family_names_text() + ")");
}

std::vector<std::string> family_names() {
  std::vector<std::string> names;
  for (const KernelFamily* f : families()) names.emplace_back(f->name());
  return names;
}

std::string family_names_text() { return name_list(family_names()); }

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
