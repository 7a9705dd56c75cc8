// T1 -> kernel description, field by field.
#include "kernels_user/t1_format.hpp"

#include <map>
#include <regex>

#include "kernels_user/description.hpp"

namespace ktune::user {
namespace {

using nlohmann::json;

struct T1Reader {
  std::string file;

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw DescriptionError("T1 file " + file + ": " + field + ": " + what);
  }

  const json& need(const json& j, const std::string& key, const std::string& field) const {
    if (!j.is_object() || !j.contains(key)) fail(field + "." + key, "missing");
    return j.at(key);
  }

  std::string text(const json& j, const std::string& field) const {
    if (!j.is_string()) fail(field, "must be a string");
    return j.get<std::string>();
  }

  /// "[1, 2, 4]" or "['a', 'b']" (a Python list) as a JSON array.
  json values(const json& j, const std::string& field) const {
    std::string t = text(j, field);
    std::replace(t.begin(), t.end(), '\'', '"');
    json v = json::parse(t, nullptr, false);
    if (!v.is_array() || v.empty())
      fail(field, "'" + j.get<std::string>() + "' is not a list of values");
    return v;
  }

  /// Python's boolean words as the expression language's operators.
  static std::string expression(std::string e) {
    e = std::regex_replace(e, std::regex(R"(\band\b)"), "&&");
    e = std::regex_replace(e, std::regex(R"(\bor\b)"), "||");
    e = std::regex_replace(e, std::regex(R"(\bnot\b)"), "!");
    e = std::regex_replace(e, std::regex(R"(\bTrue\b)"), "true");
    return std::regex_replace(e, std::regex(R"(\bFalse\b)"), "false");
  }

  std::string dtype(const json& j, const std::string& field) const {
    static const std::map<std::string, std::string> known = {{"float", "float32"},
                                                             {"double", "float64"},
                                                             {"int32", "int32"},
                                                             {"uint32", "uint32"},
                                                             {"int64", "int64"}};
    const std::string t = text(j, field);
    const auto it = known.find(t);
    if (it == known.end())
      fail(field, "type '" + t + "' has no ktune dtype (float, double, int32, uint32, int64)");
    return it->second;
  }

  json argument(const json& a, std::size_t i) const {
    const std::string field = "KernelSpecification.Arguments[" + std::to_string(i) + "]";
    const std::string name =
        a.contains("Name") ? text(a["Name"], field + ".Name") : "arg" + std::to_string(i);
    const std::string memory = text(need(a, "MemoryType", field), field + ".MemoryType");
    const std::string type = dtype(need(a, "Type", field), field + ".Type");
    const json fill_json = a.contains("FillValue") ? a["FillValue"] : json(1);
    if (!fill_json.is_number()) fail(field + ".FillValue", "must be a number");
    const double fill_value = fill_json.get<double>();
    // A scalar's value keeps its JSON form: 1000 stays an integer.
    if (memory == "Scalar") return {{"name", name}, {"scalar", type}, {"value", fill_json.dump()}};
    if (memory != "Vector")
      fail(field + ".MemoryType", "'" + memory + "' does not map (Scalar or Vector)");
    json out = {{"name", name},
                {"buffer", type},
                {"count", std::to_string(need(a, "Size", field).get<long long>())}};
    const std::string fill = a.value("FillType", std::string("Random"));
    if (fill == "Constant")
      out["fill"] = {{"constant", fill_value}};
    else if (fill == "Random")
      out["fill"] = {
          {"random",
           {{"seed", a.value("RandomSeed", std::uint64_t{1})}, {"range", {0.0, fill_value}}}}};
    else
      fail(field + ".FillType", "'" + fill + "' does not map (Constant or Random)");
    const std::string access = a.value("AccessType", std::string("ReadOnly"));
    if (access != "ReadOnly") out["output"] = true;
    return out;
  }
};

}  // namespace

bool is_t1(const json& j) {
  return j.is_object() && j.contains("ConfigurationSpace") && j.contains("KernelSpecification");
}

json t1_to_description(const json& t1, const std::string& file) {
  const T1Reader r{file};
  const json& space = t1.at("ConfigurationSpace");
  const json& kernel = t1.at("KernelSpecification");
  const std::string language =
      r.text(r.need(kernel, "Language", "KernelSpecification"), "KernelSpecification.Language");
  if (language != "CUDA")
    r.fail("KernelSpecification.Language", "'" + language + "': ktune tunes CUDA only");

  json d = {{"name", r.text(r.need(kernel, "KernelName", "KernelSpecification"),
                            "KernelSpecification.KernelName")},
            {"source", r.text(r.need(kernel, "KernelFile", "KernelSpecification"),
                              "KernelSpecification.KernelFile")},
            {"sizes", {{"t1", 1}}},
            {"verification", {{"first_valid", true}}}};
  d["kernel"] = d["name"];
  d["parameters"] = json::array();
  const json& params = r.need(space, "TuningParameters", "ConfigurationSpace");
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string field = "ConfigurationSpace.TuningParameters[" + std::to_string(i) + "]";
    const json& p = params[i];
    json values = r.values(r.need(p, "Values", field), field + ".Values");
    json out = {{"name", r.text(r.need(p, "Name", field), field + ".Name")},
                {"values", values},
                {"pass", "define"}};
    if (p.value("Type", std::string()) == "bool")
      out = {{"name", out["name"]}, {"kind", "boolean"}, {"pass", "define"}};
    d["parameters"].push_back(out);
  }
  d["constraints"] = json::array();
  if (space.contains("Conditions"))
    for (std::size_t i = 0; i < space["Conditions"].size(); ++i) {
      const std::string field = "ConfigurationSpace.Conditions[" + std::to_string(i) + "]";
      d["constraints"].push_back(T1Reader::expression(
          r.text(r.need(space["Conditions"][i], "Expression", field), field + ".Expression")));
    }

  const bool cuda_grid = kernel.value("GlobalSizeType", std::string("OpenCL")) == "CUDA";
  const json& global = r.need(kernel, "GlobalSize", "KernelSpecification");
  const json& local = r.need(kernel, "LocalSize", "KernelSpecification");
  json grid = json::array(), block = json::array();
  for (const char* axis : {"X", "Y", "Z"}) {
    if (!global.contains(axis) && !local.contains(axis)) continue;
    const std::string g =
        global.contains(axis)
            ? r.text(global[axis], "KernelSpecification.GlobalSize." + std::string(axis))
            : "1";
    const std::string l =
        local.contains(axis)
            ? r.text(local[axis], "KernelSpecification.LocalSize." + std::string(axis))
            : "1";
    block.push_back(T1Reader::expression(l));
    grid.push_back(cuda_grid ? T1Reader::expression(g)
                             : "((" + T1Reader::expression(g) + ") + (" + T1Reader::expression(l) +
                                   ") - 1) / (" + T1Reader::expression(l) + ")");
  }
  d["launch"] = {{"grid", grid}, {"block", block}};
  if (kernel.contains("SharedMemory")) d["launch"]["shared_memory"] = kernel["SharedMemory"];
  d["arguments"] = json::array();
  if (kernel.contains("Arguments"))
    for (std::size_t i = 0; i < kernel["Arguments"].size(); ++i)
      d["arguments"].push_back(r.argument(kernel["Arguments"][i], i));
  if (kernel.contains("CompilerOptions")) d["nvrtc_options"] = kernel["CompilerOptions"];
  return d;
}

}  // namespace ktune::user
