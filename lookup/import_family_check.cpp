// FamilyImportCheck: imported records against the registered families, where
// their template version is this build's.
#include "lookup/import_family_check.hpp"

#include <stdexcept>
#include <utility>

#include "kernels_templated/family.hpp"
#include "kernels_templated/problem_check.hpp"

namespace ktune {

FamilyImportCheck::FamilyImportCheck(CurrentHash current) : current_(std::move(current)) {}

void FamilyImportCheck::operator()(const Measurement& m) {
  const KernelFamily* family = nullptr;
  try {
    family = &find_family(m.key.family);
  } catch (const std::invalid_argument&) {
    ++unregistered_[m.key.family];
    return;
  }
  try {
    check_problem_values(*family, m.key.problem);
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("'problem': ") + e.what());
  }
  const std::string current =
      current_(m.key.family, m.key.problem, m.key.device.name, m.key.device.arch());
  if (current.empty() || m.key.family_hash != current) return;  // another template version
  Problem problem;
  try {
    problem = family->normalize(m.key.problem);
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("'problem': ") + e.what());
  }
  try {
    family->space(problem, m.key.device).indices_of(m.result.config);
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("'result.config': ") + e.what());
  }
}

}  // namespace ktune
