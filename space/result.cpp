// Result: status names and the JSON form of one evaluation outcome.
#include "space/result.hpp"

#include <array>
#include <stdexcept>

namespace ktune {
namespace {

constexpr std::array<std::pair<Status, std::string_view>, 6> kStatusNames{{
    {Status::ok, "ok"},
    {Status::wrong_result, "wrong_result"},
    {Status::compile_error, "compile_error"},
    {Status::launch_error, "launch_error"},
    {Status::timeout, "timeout"},
    {Status::invalid_config, "invalid_config"},
}};

}  // namespace

std::string_view to_string(Status s) {
  for (const auto& [status, name] : kStatusNames)
    if (status == s) return name;
  return "unknown";
}

Status status_from_string(std::string_view text) {
  std::string accepted;
  for (const auto& [status, name] : kStatusNames) {
    if (name == text) return status;
    accepted += accepted.empty() ? "" : ", ";
    accepted += name;
  }
  throw std::invalid_argument("unknown status '" + std::string(text) + "' (accepted: " +
                              accepted + ")");
}

nlohmann::json result_to_json(const Result& r) {
  nlohmann::json j{
      {"config", r.config.to_json()},
      {"status", to_string(r.status)},
      {"time",
       {{"median_s", r.time.median_s},
        {"min_s", r.time.min_s},
        {"max_s", r.time.max_s},
        {"spread", r.time.spread},
        {"repetitions", r.time.repetitions}}},
      {"tflops", r.tflops},
      {"gbps", r.gbps},
      {"error", r.error},
      {"max_abs_error", r.max_abs_error},
      {"message", r.message},
      {"metrics", r.metrics},
  };
  j["deterministic"] = r.deterministic ? nlohmann::json(*r.deterministic) : nlohmann::json();
  return j;
}

Result result_from_json(const nlohmann::json& j) {
  Result r;
  try {
    r.config = ValueMap::from_json(j.at("config"));
    r.status = status_from_string(j.at("status").get<std::string>());
    if (j.contains("time")) {
      const auto& t = j.at("time");
      r.time.median_s = t.value("median_s", 0.0);
      r.time.min_s = t.value("min_s", 0.0);
      r.time.max_s = t.value("max_s", 0.0);
      r.time.spread = t.value("spread", 0.0);
      r.time.repetitions = t.value("repetitions", 0);
    }
    r.tflops = j.value("tflops", 0.0);
    r.gbps = j.value("gbps", 0.0);
    r.error = j.value("error", 0.0);
    r.max_abs_error = j.value("max_abs_error", 0.0);
    if (j.contains("deterministic") && !j.at("deterministic").is_null())
      r.deterministic = j.at("deterministic").get<bool>();
    r.message = j.value("message", std::string());
    r.metrics = j.value("metrics", nlohmann::json::object());
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("malformed result: ") + e.what());
  }
  if (r.status == Status::ok && !(r.time.median_s > 0))
    throw std::invalid_argument("malformed result: status ok without a positive median time");
  return r;
}

}  // namespace ktune
