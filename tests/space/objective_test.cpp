// Objectives (space/objective.hpp): names, the energy a result carries, and
// the order of results under time, energy and EDP.
#include "space/objective.hpp"

#include <gtest/gtest.h>

namespace ktune {
namespace {

Result ok(double seconds, std::optional<double> joules) {
  Result r;
  r.status = Status::ok;
  r.time.median_s = seconds;
  if (joules) r.metrics["energy_j"] = *joules;
  return r;
}

TEST(Objective, NamesRoundTripAndUnknownNamesAreRejected) {
  for (Objective o : {Objective::time, Objective::energy, Objective::edp})
    EXPECT_EQ(objective_from_string(to_string(o)), o);
  try {
    objective_from_string("power");
    FAIL() << "an unknown objective must be rejected";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'power'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("time, energy, edp"), std::string::npos) << e.what();
  }
}

TEST(Objective, EnergyIsAPositiveNumberOrNothing) {
  EXPECT_EQ(energy_per_launch(ok(1e-3, 0.25)), 0.25);
  EXPECT_FALSE(energy_per_launch(ok(1e-3, std::nullopt)));
  EXPECT_FALSE(energy_per_launch(ok(1e-3, 0.0)));  // a zero is no measurement
  Result text = ok(1e-3, std::nullopt);
  text.metrics["energy_j"] = "unavailable";
  EXPECT_FALSE(energy_per_launch(text));
}

TEST(Objective, ValuesAndOrder) {
  const Result fast_hungry = ok(1e-3, 0.5), slow_frugal = ok(2e-3, 0.2), no_energy = ok(5e-4, {});
  Result failed = ok(1e-4, 0.01);
  failed.status = Status::wrong_result;
  EXPECT_DOUBLE_EQ(*objective_value(slow_frugal, Objective::edp), 4e-4);
  EXPECT_FALSE(objective_value(failed, Objective::time));
  EXPECT_FALSE(objective_value(no_energy, Objective::energy));

  EXPECT_TRUE(better_under(no_energy, fast_hungry, Objective::time));
  EXPECT_TRUE(better_under(fast_hungry, slow_frugal, Objective::time));
  EXPECT_TRUE(better_under(slow_frugal, fast_hungry, Objective::energy));
  EXPECT_TRUE(better_under(slow_frugal, fast_hungry, Objective::edp));  // 4e-4 < 5e-4
  // Without energy a result ranks after every one that has it, never first.
  EXPECT_TRUE(better_under(fast_hungry, no_energy, Objective::energy));
  EXPECT_FALSE(better_under(no_energy, fast_hungry, Objective::energy));
  EXPECT_TRUE(better_under(fast_hungry, failed, Objective::time));
}

}  // namespace
}  // namespace ktune
