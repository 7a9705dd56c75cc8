// The C ABI's lookup: the request `ktune lookup --device D --json` builds
// (cli/lookup_command.cpp), answered as the same JSON. The device is
// given, never queried, so no GPU and no driver are needed.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "capi/capi_status.hpp"
#include "compile/compiler.hpp"
#include "db/lookup.hpp"
#include "kernels_templated/family.hpp"
#include "lookup/lookup_predictor.hpp"
#include "lookup/lookup_validity.hpp"

namespace ktune::capi {
namespace {

// The request's device: an arch ("sm_90"), or a GPU name, whose built-in spec
// (found by a short name such as "h200" too) names what measured it.
DeviceSpec resolve_device(const std::string& device, LookupRequest* req) {
  DeviceSpec spec;
  if (device.rfind("sm_", 0) == 0)
    req->arch = device;
  else
    req->device = device;
  if (auto b = find_builtin_device(device)) {
    spec = *b;
    if (!req->device.empty()) req->device = spec.name, req->arch = spec.arch();
  }
  return spec;
}

nlohmann::json answer_json(const LookupRequest& req, const LookupAnswer& a) {
  nlohmann::json j{{"found", true},
                   {"family", req.family},
                   {"problem", req.problem.to_json()},
                   {"problem_key", req.problem.key()},
                   {"device", req.device},
                   {"arch", req.arch},
                   {"source", to_string(a.source)},
                   {"config", a.config.to_json()},
                   {"config_key", a.config_key}};
  if (a.source == LookupSource::predicted) j["predicted_s"] = a.predicted_s;
  if (a.source != LookupSource::default_config && !a.measured_problem.empty()) {
    j["measured"] = result_to_json(a.result);
    j["measured_device"] = a.measured_device;
    j["measured_arch"] = a.measured_arch;
    j["measured_problem"] = a.measured_problem.to_json();
    j["distance"] = a.distance;
    j["family_hash"] = a.family_hash;
    j["database"] = a.database;
    j["provenance"] = {{"host", a.provenance.host},
                       {"tool_version", a.provenance.tool_version},
                       {"source", a.provenance.source},
                       {"measured_at", a.provenance.measured_at}};
  }
  return j;
}

ktune_status lookup(const std::vector<std::string>& paths, const std::string& family_name,
                    const std::string& problem, const std::string& device, char** json_out) {
  const KernelFamily& family = find_family(family_name);  // invalid_argument names the families
  LookupRequest req;
  req.family = family_name;
  req.problem = parse_problem(family, problem);
  req.shape_keys = family.shape_keys();
  req.shape_class = family.shape_class(req.problem);
  DeviceSpec spec = resolve_device(device, &req);

  std::vector<std::string> layers;
  for (const auto& p : paths)
    if (std::filesystem::exists(p)) layers.push_back(p);
  if (layers.empty()) throw DatabaseError("no tuning database: none of the given paths exists");
  Lookup lookup = Lookup::open_layers(layers);
  lookup.set_predictor(CostModelPredictor::from_databases(layers), PredictionRule{});
  complete_request(req, family, spec, lookup);
  auto a = lookup.best(req);
  if (!a)
    return fail(KTUNE_ERROR_NOT_FOUND, "no tuned or default configuration for " + family_name +
                                           " " + req.problem.key() + " on " + device);
  *json_out = copy_out(answer_json(req, *a).dump());
  return succeed();
}

}  // namespace
}  // namespace ktune::capi

extern "C" ktune_status ktune_lookup(const char* const* db_paths, int n_paths, const char* family,
                                     const char* problem, const char* device, char** json_out) {
  return ktune::capi::guard([&] {
    if (!family || !*family) throw std::invalid_argument("the family is empty");
    if (!problem || !*problem) throw std::invalid_argument("the problem is empty");
    if (!device || !*device)
      throw std::invalid_argument("the device is empty: give a GPU name or an arch, e.g. sm_90");
    if (!json_out) throw std::invalid_argument("json_out is null");
    std::vector<std::string> paths;
    for (int i = 0; i < n_paths && db_paths; ++i)
      if (db_paths[i] && *db_paths[i]) paths.emplace_back(db_paths[i]);
    return ktune::capi::lookup(paths, family, problem, device, json_out);
  });
}
