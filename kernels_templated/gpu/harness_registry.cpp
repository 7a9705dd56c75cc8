// Registry of the families' GPU harnesses: the lines of families.def, then
// the harnesses registered at run time.
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels_templated/family.hpp"
#include "kernels_templated/harness.hpp"
#include "kernels_templated/rowwise/gpu/rowwise_harness.hpp"
#include "kernels_templated/runtime_registry.hpp"

namespace ktune {

// What each line of families.def names, defined in the family's folder.
#define KTUNE_FAMILY(id, visibility)     \
  const KernelFamily& id##_descriptor(); \
  std::unique_ptr<FamilyHarness> make_##id##_harness();
#define KTUNE_ROWWISE_FAMILY(id, visibility)       \
  const rowwise::RowwiseSpec& id##_rowwise_spec(); \
  cudaError_t id##_rowwise_reference(const rowwise::ReferenceCall& call);
#include "kernels_templated/families.def"
#undef KTUNE_FAMILY
#undef KTUNE_ROWWISE_FAMILY

namespace {

using Factory = std::function<std::unique_ptr<FamilyHarness>()>;

// Harnesses of families registered at run time (register_harness).
std::vector<std::pair<std::string, Factory>>& runtime_factories() {
  static std::vector<std::pair<std::string, Factory>> all;
  return all;
}

}  // namespace

void register_harness(std::string family, Factory factory) {
  runtime_factories().emplace_back(std::move(family), std::move(factory));
}

std::unique_ptr<FamilyHarness> make_harness(std::string_view family) {
  static const std::vector<std::pair<std::string_view, Factory>> factories = {
#define KTUNE_FAMILY(id, visibility) {id##_descriptor().name(), make_##id##_harness},
#define KTUNE_ROWWISE_FAMILY(id, visibility)                                   \
  {id##_rowwise_spec().name(), [] {                                            \
     return std::make_unique<rowwise::RowwiseHarness>(id##_rowwise_spec(),     \
                                                      id##_rowwise_reference); \
   }},
#include "kernels_templated/families.def"
#undef KTUNE_FAMILY
#undef KTUNE_ROWWISE_FAMILY
  };
  for (const auto& [name, factory] : factories)
    if (name == family) return factory();
  for (const auto& [name, factory] : runtime_factories())
    if (name == family) return factory();
  throw std::invalid_argument("no GPU harness for kernel family '" + std::string(family) + "'");
}

}  // namespace ktune
