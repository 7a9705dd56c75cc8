// Space JSON form (documented in docs/space.md): parameters with their kind
// and values, constraints as expressions, and the constants they read.
#include <nlohmann/json.hpp>

#include "space/space_impl.hpp"

namespace ktune {
namespace {

constexpr const char* kFormat = "ktune-space/1";

nlohmann::json parameter_to_json(const Parameter& p) {
  nlohmann::json j;
  j["name"] = p.name();
  j["kind"] = std::string(to_string(p.kind()));
  switch (p.kind()) {
    case ParamKind::int_range:
      j["min"] = std::get<std::int64_t>(p.values().front());
      j["max"] = std::get<std::int64_t>(p.values().back());
      j["step"] = p.size() > 1 ? std::get<std::int64_t>(p.values()[1]) - std::get<std::int64_t>(p.values()[0])
                               : std::int64_t{1};
      break;
    case ParamKind::pow2_range:
      j["min"] = std::get<std::int64_t>(p.values().front());
      j["max"] = std::get<std::int64_t>(p.values().back());
      break;
    case ParamKind::list:
    case ParamKind::categorical: {
      nlohmann::json values = nlohmann::json::array();
      for (const Value& v : p.values()) values.push_back(value_to_json(v));
      j["values"] = values;
      break;
    }
    case ParamKind::boolean: break;
  }
  j["default"] = value_to_json(p.default_value());
  j["description"] = p.description();
  return j;
}

Parameter parameter_from_json(const nlohmann::json& j, std::size_t position) {
  std::string where = "parameter " + std::to_string(position + 1);
  try {
    if (!j.is_object()) throw SpaceError(where + ": expected an object, got " + j.dump());
    if (!j.contains("name")) throw SpaceError(where + ": missing 'name'");
    const std::string name = j.at("name").get<std::string>();
    where = "parameter '" + name + "'";
    if (!j.contains("kind")) throw SpaceError(where + ": missing 'kind'");
    const std::string kind = j.at("kind").get<std::string>();
    const std::string description = j.value("description", std::string());
    auto need = [&](const char* key) -> const nlohmann::json& {
      if (!j.contains(key)) throw SpaceError(where + ": missing '" + key + "' (needed by kind " + kind + ")");
      return j.at(key);
    };
    if (kind == "int_range") {
      const auto lo = need("min").get<std::int64_t>();
      const auto hi = need("max").get<std::int64_t>();
      const auto step = j.value("step", std::int64_t{1});
      const auto def = j.contains("default") ? j.at("default").get<std::int64_t>() : lo;
      return Parameter::int_range(name, lo, hi, step, def, description);
    }
    if (kind == "pow2_range") {
      const auto lo = need("min").get<std::int64_t>();
      const auto hi = need("max").get<std::int64_t>();
      const auto def = j.contains("default") ? j.at("default").get<std::int64_t>() : lo;
      return Parameter::pow2_range(name, lo, hi, def, description);
    }
    if (kind == "list") {
      std::vector<Value> values;
      for (const auto& v : need("values")) values.push_back(value_from_json(v));
      if (values.empty()) throw SpaceError(where + ": empty 'values'");
      const Value def = j.contains("default") ? value_from_json(j.at("default")) : values.front();
      return Parameter::list(name, std::move(values), def, description);
    }
    if (kind == "categorical") {
      std::vector<std::string> values;
      for (const auto& v : need("values")) {
        if (!v.is_string()) throw SpaceError(where + ": categorical value " + v.dump() + " is not text");
        values.push_back(v.get<std::string>());
      }
      if (values.empty()) throw SpaceError(where + ": empty 'values'");
      const std::string def = j.contains("default") ? j.at("default").get<std::string>() : values.front();
      return Parameter::categorical(name, std::move(values), def, description);
    }
    if (kind == "boolean")
      return Parameter::boolean(name, j.value("default", false), description);
    throw SpaceError(where + ": unknown kind '" + kind +
                     "' (accepted: int_range, pow2_range, list, categorical, boolean)");
  } catch (const nlohmann::json::exception& e) {
    throw SpaceError(where + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    throw SpaceError(where + ": " + e.what());
  }
}

}  // namespace

nlohmann::json Space::to_json() const {
  nlohmann::json j;
  j["format"] = kFormat;
  j["constants"] = impl_->constants.to_json();
  nlohmann::json params = nlohmann::json::array();
  for (const auto& p : impl_->params) params.push_back(parameter_to_json(p));
  j["parameters"] = params;
  nlohmann::json constraints = nlohmann::json::array();
  for (const auto& c : impl_->constraints) {
    nlohmann::json cj;
    cj["description"] = c.description;
    if (!c.expression.empty()) {
      cj["expression"] = c.expression;
    } else {
      // A C++ callable cannot be written down: keep what a reader needs to
      // know it exists, and mark it so from_json skips it knowingly.
      cj["names"] = c.names;
      cj["round_trippable"] = false;
    }
    constraints.push_back(cj);
  }
  j["constraints"] = constraints;
  return j;
}

Space Space::from_json(const nlohmann::json& j, ValueMap constants) {
  if (!j.is_object()) throw SpaceError("space JSON: expected an object, got " + j.dump().substr(0, 80));
  if (j.contains("format") && j.at("format") != kFormat)
    throw SpaceError("space JSON: unknown format " + j.at("format").dump() + " (expected \"" +
                     kFormat + "\")");
  ValueMap merged;
  try {
    if (j.contains("constants")) merged = ValueMap::from_json(j.at("constants"));
  } catch (const std::invalid_argument& e) {
    throw SpaceError(std::string("space JSON: constants: ") + e.what());
  }
  for (const auto& [name, value] : constants) merged.set(name, value);  // the caller's win
  Space space(std::move(merged));
  if (!j.contains("parameters") || !j.at("parameters").is_array())
    throw SpaceError("space JSON: missing 'parameters' array");
  std::size_t position = 0;
  for (const auto& pj : j.at("parameters")) space.add(parameter_from_json(pj, position++));
  if (j.contains("constraints")) {
    if (!j.at("constraints").is_array()) throw SpaceError("space JSON: 'constraints' is not an array");
    std::size_t k = 0;
    for (const auto& cj : j.at("constraints")) {
      ++k;
      if (cj.is_string()) {  // shorthand: the expression alone
        space.require(cj.get<std::string>());
        continue;
      }
      if (!cj.is_object() || !cj.contains("expression") || !cj.at("expression").is_string()) {
        if (cj.is_object() && cj.value("round_trippable", true) == false) continue;  // C++ only
        throw SpaceError("space JSON: constraint " + std::to_string(k) + " has no 'expression'");
      }
      const std::string expression = cj.at("expression").get<std::string>();
      const std::string description = cj.value("description", expression);
      space.require(expression, description.empty() ? expression : description);
    }
  }
  return space;
}

}  // namespace ktune
