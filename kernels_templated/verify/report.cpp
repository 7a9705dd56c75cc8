// The verification record as JSON (metrics["verification"]).
#include "kernels_templated/verify/report.hpp"

namespace ktune::verify {

void Report::set_stage(const std::string& name, bool passed) {
  for (auto& [n, p] : stages)
    if (n == name) {
      p = passed;
      return;
    }
  stages.emplace_back(name, passed);
}

nlohmann::json to_json(const CheckStats& s) {
  nlohmann::json j = {{"checked", s.checked},        {"off", s.off},
                      {"non_finite", s.non_finite},  {"unwritten", s.unwritten},
                      {"undefined", s.undefined},    {"max_abs_error", s.max_abs},
                      {"max_rel_error", s.max_rel},  {"rel_l2_error", s.rel_l2()},
                      {"worst_index", s.worst_index}};
  // JSON has no infinity: a missed infinite reference shows as null.
  j["worst_ratio"] =
      is_finite_value(s.worst_ratio) ? nlohmann::json(s.worst_ratio) : nlohmann::json();
  if (s.worst_row >= 0) {
    j["worst_row"] = s.worst_row;
    j["worst_row_rel_l2"] = s.worst_row_rel_l2;
  }
  return j;
}

nlohmann::json to_json(const Tolerances& t) {
  auto finite = [](double x) { return is_finite_value(x) ? nlohmann::json(x) : nlohmann::json(); };
  return {{"atol", finite(t.element.atol)},
          {"rtol", finite(t.element.rtol)},
          {"mag_scale", finite(t.element.mag_scale)},
          {"rel_l2", finite(t.rel_l2)},
          {"row_rel_l2", finite(t.row_rel_l2)}};
}

nlohmann::json to_json(const Report& r) {
  nlohmann::json stages = nlohmann::json::object();
  for (const auto& [name, passed] : r.stages) stages[name] = passed;
  nlohmann::json j = {{"stages", stages},
                      {"tolerance", to_json(r.tolerances)},
                      {"numerical", to_json(r.numerical)},
                      {"seeds", r.seeds},
                      {"nondeterminism_expected", r.nondeterminism_expected}};
  if (r.edge) j["edge"] = to_json(*r.edge);
  if (r.deterministic) j["deterministic"] = *r.deterministic;
  return j;
}

}  // namespace ktune::verify
