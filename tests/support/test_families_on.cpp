// Linked into every test binary: registers the engine's test families
// (test_faulty) for the tests and for the ktune processes they start.
#include <cstdlib>

#include "kernels_templated/family.hpp"

namespace {

// setenv before main: the tests' own find_family calls and every `ktune`
// subprocess (which inherits the environment) see the test families.
const bool test_families_registered = [] { return setenv(ktune::kTestFamiliesEnv, "1", 1) == 0; }();

}  // namespace
