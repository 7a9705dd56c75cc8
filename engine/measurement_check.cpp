// check_against_family: an imported measurement against the registered kernel families.
#include "engine/measurement_check.hpp"

#include <stdexcept>
#include <string>

#include "kernels_templated/family.hpp"
#include "kernels_templated/problem_check.hpp"

namespace ktune {

void check_against_family(const Measurement& m) {
  const KernelFamily* family = nullptr;
  try {
    family = &find_family(m.key.family);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("'family': ") + e.what());
  }
  Problem problem;
  try {
    check_problem_values(*family, m.key.problem);
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
