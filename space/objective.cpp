// Objective: names, the energy of a result, and the order of results under an objective.
#include "space/objective.hpp"

#include <stdexcept>
#include <string>

namespace ktune {

std::string_view to_string(Objective o) {
  switch (o) {
    case Objective::time:
      return "time";
    case Objective::energy:
      return "energy";
    case Objective::edp:
      return "edp";
  }
  return "time";
}

Objective objective_from_string(std::string_view text) {
  for (Objective o : {Objective::time, Objective::energy, Objective::edp})
    if (text == to_string(o)) return o;
  throw std::invalid_argument("unknown objective '" + std::string(text) +
                              "' (accepted: time, energy, edp)");
}

std::optional<double> energy_per_launch(const Result& r) {
  if (!r.metrics.is_object()) return std::nullopt;
  const auto it = r.metrics.find("energy_j");
  if (it == r.metrics.end() || !it->is_number()) return std::nullopt;
  const double joules = it->get<double>();
  if (!(joules > 0)) return std::nullopt;
  return joules;
}

std::optional<double> objective_value(const Result& r, Objective o) {
  if (!r.ok()) return std::nullopt;
  if (o == Objective::time) return r.time.median_s;
  const std::optional<double> joules = energy_per_launch(r);
  if (!joules) return std::nullopt;
  return o == Objective::energy ? *joules : *joules * r.time.median_s;
}

bool better_under(const Result& a, const Result& b, Objective o) {
  const std::optional<double> va = objective_value(a, o), vb = objective_value(b, o);
  if (va.has_value() != vb.has_value()) return va.has_value();
  if (!va) return false;
  if (*va != *vb) return *va < *vb;
  return a.time.median_s < b.time.median_s;
}

}  // namespace ktune
