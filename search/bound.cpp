// Bound: names of the roofline bound classes.
#include "search/cost_model.hpp"

namespace ktune {

std::string_view to_string(Bound b) {
  switch (b) {
    case Bound::memory: return "memory";
    case Bound::compute: return "compute";
    case Bound::latency: return "latency";
  }
  return "unknown";
}

}  // namespace ktune
