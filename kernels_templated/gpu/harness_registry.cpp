// Registry of the families' GPU harnesses: one line per family.
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels_templated/harness.hpp"

namespace ktune {

std::unique_ptr<FamilyHarness> make_harness(std::string_view family) {
  using Factory = std::function<std::unique_ptr<FamilyHarness>()>;
  // Adding a family: include its harness header and add one line here.
  static const std::vector<std::pair<std::string_view, Factory>> factories = {
  };
  for (const auto& [name, factory] : factories)
    if (name == family) return factory();
  throw std::invalid_argument("no GPU harness for kernel family '" + std::string(family) + "'");
}

}  // namespace ktune
