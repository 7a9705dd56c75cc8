// Reading a kernel description: JSON fields to KernelDescription, each error
// naming the field. The expression and space checks are in description_checks.cpp.
#include "kernels_user/description.hpp"

#include <filesystem>
#include <fstream>
#include <set>

#include "kernels_user/t1_format.hpp"
#include "space/name_list.hpp"

namespace ktune::user {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// Throws DescriptionError "<file>: <field>: <what>".
struct Reader {
  std::string file;
  fs::path dir;

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw DescriptionError("kernel description " + file + ": " +
                           (field.empty() ? "" : field + ": ") + what);
  }

  void only_keys(const json& j, const std::string& field,
                 const std::set<std::string>& known) const {
    for (const auto& [key, value] : j.items())
      if (!known.count(key)) {
        fail(field.empty() ? key : field + "." + key,
             "unknown field (known: " + name_list(known) + ")");
      }
  }

  const json& need(const json& j, const std::string& key, const std::string& field) const {
    if (!j.contains(key)) fail(field.empty() ? key : field + "." + key, "missing");
    return j.at(key);
  }

  std::string text(const json& j, const std::string& field) const {
    if (!j.is_string() || j.get<std::string>().empty()) fail(field, "must be a non-empty string");
    return j.get<std::string>();
  }

  /// An expression field: a string, or an integer written as a number.
  std::string expression(const json& j, const std::string& field) const {
    if (j.is_number_integer()) return std::to_string(j.get<std::int64_t>());
    if (j.is_number()) return j.dump();
    return text(j, field);
  }

  double number(const json& j, const std::string& field) const {
    if (!j.is_number()) fail(field, "must be a number");
    return j.get<double>();
  }

  std::string readable_file(const json& j, const std::string& field) const {
    const fs::path p = dir / text(j, field);
    std::ifstream in(p);
    if (!in) fail(field, "cannot read '" + p.string() + "'");
    return fs::weakly_canonical(p).string();
  }

  LaunchShape launch(const json& j, const std::string& field) const {
    if (!j.is_object()) fail(field, "must be an object with grid, block and shared_memory");
    only_keys(j, field, {"grid", "block", "shared_memory"});
    LaunchShape l;
    for (const char* key : {"grid", "block"}) {
      const json& dims = need(j, key, field);
      const std::string f = field + "." + key;
      if (!dims.is_array() || dims.empty() || dims.size() > 3)
        fail(f, "must be an array of 1 to 3 expressions (x, y, z)");
      auto& out = std::string(key) == "grid" ? l.grid : l.block;
      for (std::size_t i = 0; i < dims.size(); ++i)
        out[i] = expression(dims[i], f + "[" + std::to_string(i) + "]");
    }
    if (j.contains("shared_memory"))
      l.shared_memory = expression(j["shared_memory"], field + ".shared_memory");
    return l;
  }

  std::string dtype(const json& j, const std::string& field) const {
    static const std::set<std::string> known = {"float32", "float64", "int32", "int64", "uint32"};
    const std::string t = text(j, field);
    if (!known.count(t))
      fail(field, "unknown dtype '" + t + "' (known: float32, float64, int32, int64, uint32)");
    return t;
  }

  void fill(const json& j, Argument& a, const std::string& field, std::size_t position) const {
    a.seed = position + 1;
    if (j.is_string() && j.get<std::string>() == "index") {
      a.fill = Fill::index;
      return;
    }
    if (!j.is_object() || j.size() != 1)
      fail(field,
           "must be \"index\", {\"constant\": X} or {\"random\": {\"seed\": S, \"range\": [LO, "
           "HI]}}");
    if (j.contains("constant")) {
      a.fill = Fill::constant;
      a.value = number(j["constant"], field + ".constant");
    } else if (j.contains("random")) {
      const json& r = j["random"];
      if (!r.is_object()) fail(field + ".random", "must be an object with seed and range");
      only_keys(r, field + ".random", {"seed", "range"});
      if (r.contains("seed")) {
        if (!r["seed"].is_number_unsigned())
          fail(field + ".random.seed", "must be a non-negative integer");
        a.seed = r["seed"].get<std::uint64_t>();
      }
      if (r.contains("range")) {
        const json& range = r["range"];
        if (!range.is_array() || range.size() != 2)
          fail(field + ".random.range", "must be [LO, HI]");
        a.lo = number(range[0], field + ".random.range[0]");
        a.hi = number(range[1], field + ".random.range[1]");
        if (!(a.lo < a.hi)) fail(field + ".random.range", "LO must be below HI");
      }
    } else {
      fail(field, "unknown fill (known: random, constant, index)");
    }
  }

  Argument argument(const json& j, std::size_t position) const {
    const std::string field = "arguments[" + std::to_string(position) + "]";
    if (!j.is_object()) fail(field, "must be an object");
    Argument a;
    a.name = text(need(j, "name", field), field + ".name");
    if (j.contains("buffer") == j.contains("scalar"))
      fail(field, "give either \"buffer\": DTYPE or \"scalar\": DTYPE");
    a.is_buffer = j.contains("buffer");
    if (a.is_buffer) {
      only_keys(j, field, {"name", "buffer", "count", "fill", "output", "atol", "rtol"});
      a.dtype = dtype(j["buffer"], field + ".buffer");
      a.count = expression(need(j, "count", field), field + ".count");
      if (j.contains("fill")) fill(j["fill"], a, field + ".fill", position);
      if (j.contains("output")) {
        if (!j["output"].is_boolean()) fail(field + ".output", "must be true or false");
        a.output = j["output"].get<bool>();
      }
      if (j.contains("atol")) a.atol = number(j["atol"], field + ".atol");
      if (j.contains("rtol")) a.rtol = number(j["rtol"], field + ".rtol");
      if (a.atol < 0 || a.rtol < 0) fail(field, "atol and rtol must be >= 0");
    } else {
      only_keys(j, field, {"name", "scalar", "value"});
      a.dtype = dtype(j["scalar"], field + ".scalar");
      a.expression = expression(need(j, "value", field), field + ".value");
    }
    return a;
  }

  Verification verification(const json& j) const {
    const std::string field = "verification";
    Verification v;
    if (!j.is_object() || j.size() != 1)
      fail(field,
           "must be {\"reference_kernel\": {...}}, {\"reference_file\": FILE} or {\"first_valid\": "
           "true}");
    if (j.contains("first_valid")) {
      if (j["first_valid"] != true) fail(field + ".first_valid", "must be true");
      v.by = VerifyBy::first_valid;
    } else if (j.contains("reference_file")) {
      v.by = VerifyBy::reference_file;
      v.file = readable_file(j["reference_file"], field + ".reference_file");
    } else if (j.contains("reference_kernel")) {
      const json& r = j["reference_kernel"];
      const std::string f = field + ".reference_kernel";
      if (!r.is_object()) fail(f, "must be an object with name, and optionally source and launch");
      only_keys(r, f, {"name", "source", "launch"});
      v.by = VerifyBy::reference_kernel;
      v.kernel = text(need(r, "name", f), f + ".name");
      if (r.contains("source")) v.source = readable_file(r["source"], f + ".source");
      if (r.contains("launch")) v.launch = launch(r["launch"], f + ".launch");
    } else {
      fail(field, "unknown way (known: reference_kernel, reference_file, first_valid)");
    }
    return v;
  }
};

json parse_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw DescriptionError("cannot read kernel description '" + path + "'");
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw DescriptionError("kernel description " + path + ": not JSON: " + e.what());
  }
}

}  // namespace

void check_description(KernelDescription& d);  // description_checks.cpp

KernelDescription load_description(const std::string& path) {
  json j = parse_file(path);
  if (is_t1(j)) j = t1_to_description(j, path);
  const Reader r{path, fs::absolute(path).parent_path()};
  if (!j.is_object()) r.fail("", "must be a JSON object");
  r.only_keys(j, "",
              {"$schema", "name", "description", "source", "kernel", "parameters", "constraints",
               "sizes", "launch", "arguments", "verification", "flops", "bytes",
               "compute_capability", "nvrtc_options"});
  KernelDescription d;
  d.path = fs::weakly_canonical(fs::absolute(path)).string();
  d.name = r.text(r.need(j, "name", ""), "name");
  if (j.contains("description")) d.description = r.text(j["description"], "description");
  const json& source = r.need(j, "source", "");
  if (source.is_array()) {
    if (source.empty()) r.fail("source", "must name at least one file");
    for (std::size_t i = 0; i < source.size(); ++i)
      d.sources.push_back(r.readable_file(source[i], "source[" + std::to_string(i) + "]"));
  } else {
    d.sources.push_back(r.readable_file(source, "source"));
  }
  d.kernel = r.text(r.need(j, "kernel", ""), "kernel");

  const json& params = r.need(j, "parameters", "");
  if (!params.is_array() || params.empty()) r.fail("parameters", "must be a non-empty array");
  d.space = {{"parameters", json::array()}, {"constraints", json::array()}};
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string field = "parameters[" + std::to_string(i) + "]";
    json p = params[i];
    if (!p.is_object()) r.fail(field, "must be an object");
    const std::string name = r.text(r.need(p, "name", field), field + ".name");
    PassAs pass = PassAs::template_argument;
    if (p.contains("pass")) {
      const std::string how = r.text(p["pass"], field + ".pass");
      if (how == "define")
        pass = PassAs::define;
      else if (how != "template")
        r.fail(field + ".pass", "must be \"template\" or \"define\", not '" + how + "'");
      p.erase("pass");
    }
    if (!p.contains("kind"))
      p["kind"] = p.contains("values") && p["values"].is_array() && !p["values"].empty() &&
                          p["values"][0].is_string()
                      ? "categorical"
                      : "list";
    d.passing.emplace_back(name, pass);
    d.space["parameters"].push_back(p);
  }
  if (j.contains("constraints")) {
    if (!j["constraints"].is_array()) r.fail("constraints", "must be an array of expressions");
    for (std::size_t i = 0; i < j["constraints"].size(); ++i)
      d.space["constraints"].push_back(
          r.text(j["constraints"][i], "constraints[" + std::to_string(i) + "]"));
  }

  const json& sizes = r.need(j, "sizes", "");
  if (!sizes.is_object() || sizes.empty())
    r.fail("sizes", "must be an object of size names, each with a default integer or null");
  for (const auto& [name, value] : sizes.items()) {
    d.sizes.push_back(name);
    if (value.is_number_integer() && value.get<std::int64_t>() > 0)
      d.size_defaults.set(name, value.get<std::int64_t>());
    else if (!value.is_null())
      r.fail("sizes." + name, "default must be a positive integer or null");
  }
  d.launch = r.launch(r.need(j, "launch", ""), "launch");
  const json& args = r.need(j, "arguments", "");
  if (!args.is_array() || args.empty()) r.fail("arguments", "must be a non-empty array");
  for (std::size_t i = 0; i < args.size(); ++i) d.arguments.push_back(r.argument(args[i], i));
  d.verification = j.contains("verification") ? r.verification(j["verification"]) : Verification{};
  if (j.contains("flops")) d.flops = r.expression(j["flops"], "flops");
  if (j.contains("bytes")) d.bytes = r.expression(j["bytes"], "bytes");
  if (j.contains("compute_capability")) {
    const double cc = r.number(j["compute_capability"], "compute_capability");
    d.min_cc = static_cast<int>(cc * 10 + 0.5);
  }
  if (j.contains("nvrtc_options")) {
    if (!j["nvrtc_options"].is_array()) r.fail("nvrtc_options", "must be an array of strings");
    for (std::size_t i = 0; i < j["nvrtc_options"].size(); ++i)
      d.extra_options.push_back(
          r.text(j["nvrtc_options"][i], "nvrtc_options[" + std::to_string(i) + "]"));
  }
  check_description(d);
  return d;
}

}  // namespace ktune::user
