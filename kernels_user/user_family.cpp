// UserFamily: problem checks, space, sources and work estimates of a user kernel.
#include "kernels_user/user_family.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "space/expression.hpp"

namespace ktune::user {
namespace {

double evaluate_number(const std::string& expression, const ValueMap& names) {
  const std::optional<Value> v = Expression::compile(expression, names).evaluate();
  return v ? as_number(*v) : 0.0;
}

std::string template_argument(const Value& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return to_text(v);  // integers, reals, and texts as C++ (an enumerator, a type)
}

}  // namespace

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DescriptionError("cannot read kernel source '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> UserFamily::template_files() const {
  std::vector<std::string> files = d_.sources;
  if (!d_.verification.source.empty()) files.push_back(d_.verification.source);
  if (!d_.verification.file.empty()) files.push_back(d_.verification.file);
  files.push_back(d_.path);
  return files;
}

const std::string& UserFamily::help_() const {
  if (help_text_.empty()) {
    for (const auto& s : d_.sizes) {
      help_text_ += (help_text_.empty() ? "" : ",") + s + ">=1";
      if (d_.size_defaults.contains(s))
        help_text_ += " (default " + to_text(d_.size_defaults.at(s)) + ")";
    }
  }
  return help_text_;
}

Problem UserFamily::normalize(const Problem& p) const {
  Problem out;
  for (const auto& [key, value] : p) {
    if (std::find(d_.sizes.begin(), d_.sizes.end(), key) == d_.sizes.end())
      throw ProblemError("unknown problem key '" + key + "' for " + d_.name +
                         " (sizes: " + help_() + ")");
    const auto* i = std::get_if<std::int64_t>(&value);
    if (!i || *i < 1) throw ProblemError("problem key '" + key + "' must be an integer >= 1");
    out.set(key, value);
  }
  for (const auto& s : d_.sizes) {
    if (out.contains(s)) continue;
    if (!d_.size_defaults.contains(s))
      throw ProblemError("problem of " + d_.name + " misses size '" + s + "' (sizes: " + help_() +
                         ")");
    out.set(s, d_.size_defaults.at(s));
  }
  return out;
}

Space UserFamily::space(const Problem& p, const DeviceSpec& d) const {
  const int cc = d.cc_major * 10 + d.cc_minor;
  if (d_.min_cc > 0 && cc > 0 && cc < d_.min_cc)
    throw ProblemError(d_.name + " needs compute capability " + std::to_string(d_.min_cc / 10) +
                       "." + std::to_string(d_.min_cc % 10) + "; " + d.name + " has " +
                       std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor));
  return build_space(d_, normalize(p), d);
}

Config UserFamily::default_config(const Problem& p, const DeviceSpec& d) const {
  return space(p, d).default_config();
}

double UserFamily::flops(const Problem& p) const {
  return evaluate_number(d_.flops,
                         space_constants(d_, normalize(p), *find_builtin_device("sm_90")));
}

double UserFamily::min_bytes(const Problem& p) const {
  return evaluate_number(d_.bytes,
                         space_constants(d_, normalize(p), *find_builtin_device("sm_90")));
}

WorkEstimate UserFamily::estimate(const Problem& p, const Config& c, const DeviceSpec& d) const {
  const Problem n = normalize(p);
  WorkEstimate w;
  w.flops = flops(n);
  w.executed_flops = w.flops;
  w.min_bytes = min_bytes(n);
  w.dram_bytes = w.min_bytes;
  try {
    const LaunchDims dims = launch(n, c, d);
    w.blocks = dims.grid[0] * dims.grid[1] * dims.grid[2];
    w.threads_per_block = static_cast<int>(dims.block[0] * dims.block[1] * dims.block[2]);
    w.smem_per_block = static_cast<int>(dims.shared_memory);
  } catch (const DescriptionError&) {
    // A configuration whose launch does not evaluate fails when it runs; the
    // estimate then knows only the roofline terms.
  }
  return w;
}

LaunchDims UserFamily::launch(const Problem& p, const Config& c, const DeviceSpec& d) const {
  return evaluate_launch(d_.launch, expression_names(d_, normalize(p), d, c));
}

std::string UserFamily::name_expression(const Config& c) const {
  std::string args;
  for (const auto& [name, pass] : d_.passing)
    if (pass == PassAs::template_argument)
      args += (args.empty() ? "" : ", ") + template_argument(c.at(name));
  return args.empty() ? d_.kernel : d_.kernel + "<" + args + ">";
}

KernelSource UserFamily::source(const Problem& p, const Config& c) const {
  (void)p;
  KernelSource s;
  s.program_name = std::filesystem::path(d_.sources.front()).filename().string();
  s.source = read_text(d_.sources.front());
  s.kernels = {name_expression(c)};
  for (const auto& [name, pass] : d_.passing)
    if (pass == PassAs::define)
      s.options.push_back("-D" + name + "=" + template_argument(c.at(name)));
  std::vector<std::string> dirs;
  for (const auto& f : d_.sources) {
    const std::string dir = "-I" + std::filesystem::path(f).parent_path().string();
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  }
  s.options.insert(s.options.end(), dirs.begin(), dirs.end());
  s.options.insert(s.options.end(), d_.extra_options.begin(), d_.extra_options.end());
  return s;
}

KernelSource UserFamily::reference_source(const Problem& p, const DeviceSpec& d) const {
  const Verification& v = d_.verification;
  KernelSource s = source(p, default_config(p, d));
  const std::string file = v.source.empty() ? d_.sources.front() : v.source;
  s.program_name = std::filesystem::path(file).filename().string();
  s.source = read_text(file);
  s.kernels = {v.kernel};
  if (!v.source.empty())
    s.options.push_back("-I" + std::filesystem::path(v.source).parent_path().string());
  return s;
}

}  // namespace ktune::user
