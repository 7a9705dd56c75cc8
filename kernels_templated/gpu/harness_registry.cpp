// Registry of the families' GPU harnesses: one line per family.
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels_templated/faulty/gpu/faulty_harness.hpp"
#include "kernels_templated/gemm/gpu/gemm_harness.hpp"
#include "kernels_templated/harness.hpp"
#include "kernels_templated/reduce/gpu/reduce_harness.hpp"
#include "kernels_templated/rmsnorm/gpu/rmsnorm_harness.hpp"
#include "kernels_templated/runtime_registry.hpp"
#include "kernels_templated/softmax/gpu/softmax_harness.hpp"

namespace ktune {

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
  // Adding a family: include its harness header and add one line here.
  static const std::vector<std::pair<std::string_view, Factory>> factories = {
      {"gemm", [] { return std::make_unique<GemmHarness>(); }},
      {"test_faulty", make_faulty_harness},
      {"reduce", make_reduce_harness},
      {"softmax", make_softmax_harness},
      {"rmsnorm", make_rmsnorm_harness},
  };
  for (const auto& [name, factory] : factories)
    if (name == family) return factory();
  for (const auto& [name, factory] : runtime_factories())
    if (name == family) return factory();
  throw std::invalid_argument("no GPU harness for kernel family '" + std::string(family) + "'");
}

}  // namespace ktune
