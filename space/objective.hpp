// Objective: what a tuning run or a lookup minimises (time, energy per launch,
// or their product), and how a result scores under it.
#pragma once

#include <optional>
#include <string_view>

#include "space/result.hpp"

namespace ktune {

enum class Objective {
  time,    ///< median time per launch
  energy,  ///< board energy per launch, metrics.energy_j (NVML's total energy counter)
  edp,     ///< energy x median time (energy-delay product)
};

std::string_view to_string(Objective o);
/// "time", "energy" or "edp"; throws std::invalid_argument naming the text and the accepted names.
Objective objective_from_string(std::string_view text);

/// metrics.energy_j when it is a positive number: joules per launch. Nothing
/// otherwise (no counter, or a result measured before energy was recorded).
std::optional<double> energy_per_launch(const Result& r);

/// The value an ok result scores under `o` (lower is better); nothing for a
/// failed result, or when `o` needs energy and the result carries none.
std::optional<double> objective_value(const Result& r, Objective o);

/// Whether `a` ranks strictly before `b` under `o`: a result with a value
/// beats one without (a failure, or no energy), then the lower value, then
/// (for equal values) the lower median time.
bool better_under(const Result& a, const Result& b, Objective o);

}  // namespace ktune
