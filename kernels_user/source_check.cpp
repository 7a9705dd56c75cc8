// Description-against-source checks: probe programs (the user's source with
// labelled checks appended), the reading of NVRTC's log, and the comparison
// of the kernel's demangled signature with the description's arguments.
//
// The compiler, not a parser of ours, reads the source: a kernel may come
// from a macro, an included header, a namespace-level using, or a template
// whose parameter list a regular expression would misread. NVRTC resolves all
// of them as the real compile will, and the lowered name of a __global__
// probe instantiated with the kernel's type spells that type in the Itanium
// ABI, which the C++ runtime's demangler turns into text, extern "C" kernels
// included.
#include "kernels_user/source_check.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "kernels_user/user_family.hpp"
#include "space/name_list.hpp"

namespace ktune::user {
namespace {

// Each check is appended under its own #line file name, so NVRTC's log says
// which one failed: "ktune-check:name(1): error: identifier "transpos" is undefined".
constexpr const char* kRegion = "ktune-check:";

[[noreturn]] void fail(const KernelDescription& d, const std::string& field,
                       const std::string& what) {
  throw DescriptionError("kernel description " + d.path + ": " + field + ": " + what);
}

/// NVRTC's errors, sorted by where they are.
struct Errors {
  std::map<std::string, std::string> region;  ///< a check's region: its first error
  bool name_map = false;  ///< a name expression failed (a function that is not __global__)
  std::string own;        ///< the first error in the user's files: "file(line): message"
};

Errors read_errors(const std::string& log) {
  static const std::regex error_re(
      R"(^(.*)\((\d+)\): (?:catastrophic )?error(?: #[\w-]+)?: (.*)$)");
  Errors e;
  std::istringstream in(log);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (!std::regex_match(line, m, error_re)) continue;
    const std::string file = m[1];
    if (file.rfind(kRegion, 0) == 0)
      e.region.emplace(file.substr(std::strlen(kRegion)), m[3]);
    else if (file == "__nv_name_map")
      e.name_map = true;
    else if (e.own.empty())
      e.own = file + "(" + m[2].str() + "): " + m[3].str();
  }
  return e;
}

std::string first_line(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) return line;
  return "no log";
}

std::string region(const std::string& name) {
  return "\n#line 1 \"" + std::string(kRegion) + name + "\"\n";
}

/// A function of the source that the description names.
struct Target {
  std::string field;         ///< the description's field naming it
  std::string source_field;  ///< the field naming the file it is in
  std::string name;
  std::string instance;  ///< "name<32, 8>": at the default template arguments
  std::vector<std::string> template_parameters;  ///< the description's, in order
  std::string role;                              ///< "the kernel", "the reference kernel"
};

/// What most often makes a source fail under its description's defaults: a
/// #define parameter that is also a template parameter's name (the macro
/// breaks the template's declaration), or a name the description lacks.
std::string likely_cause(const KernelDescription& d, const std::string& error,
                         const std::string& source) {
  for (const auto& [name, pass] : d.passing)
    if (pass == PassAs::define &&
        std::regex_search(source, std::regex("template\\s*<[^>]*\\b" + name + "\\b")))
      return "; '" + name +
             "' is also a template parameter of the source: give it \"pass\": \"template\"";
  static const std::regex undefined_re(R"re(identifier "(\w+)" is undefined)re");
  std::smatch m;
  if (std::regex_search(error, m, undefined_re))
    return "; if '" + m[1].str() +
           "' is a parameter, add it to \"parameters\" with \"pass\": \"define\"";
  return "";
}

/// The kernel's parameter types, or a DescriptionError saying why NVRTC finds
/// no kernel of that name and template arguments.
std::vector<std::string> probe_signature(const KernelDescription& d, const Target& t,
                                         KernelSource source, const Config& defaults,
                                         const FrontEnd& front_end) {
  const std::string file = source.program_name;
  const KernelSource plain = source;
  source.source += region("name") + "namespace ktune_check_name { using ::" + t.name + "; }";
  source.source += region("instance") + "using ktune_check_type = decltype(&" + t.instance +
                   ");\ntemplate <class F> __global__ void ktune_check_signature() {}\n";
  source.kernels = {"ktune_check_signature<ktune_check_type>", t.instance};
  const FrontEndOutput out = front_end(source);
  const Errors e = read_errors(out.log);
  if (!e.own.empty())
    fail(d, t.source_field,
         file + " does not compile with the default configuration (" + defaults.key() +
             "): " + e.own + likely_cause(d, e.own, plain.source));
  if (e.region.count("name"))
    fail(d, t.field,
         file + " declares no '" + t.name + "': name " + t.role + " (a __global__ function of " +
             file + ")");
  if (const auto it = e.region.find("instance"); it != e.region.end()) {
    if (t.template_parameters.empty())
      fail(d, t.field,
           "'" + t.name + "' is a template or overloaded (NVRTC: " + it->second + "): " +
               (t.field == "kernel" ? "list its template parameters in \"parameters\", in order, "
                                      "with \"pass\": \"template\""
                                    : "the reference must be one non-template __global__ "
                                      "function"));
    KernelSource address = plain;
    address.source += region("plain") + "using ktune_check_plain = decltype(&" + t.name + ");\n";
    address.kernels.clear();
    if (!read_errors(front_end(address).log).region.count("plain"))
      fail(d, t.field,
           "'" + t.name + "' is not a template, yet the parameters " +
               name_list(t.template_parameters) +
               " pass as template arguments: give them \"pass\": \"define\"");
    fail(d, t.field,
         "'" + t.instance + "' (the parameters " + name_list(t.template_parameters) +
             " at their defaults) instantiates no '" + t.name + "' of " + file +
             " (NVRTC: " + it->second + "): list every template parameter of '" + t.name +
             "' in \"parameters\", in order, with \"pass\": \"template\", and no other");
  }
  if (!out.ok && e.name_map) fail(d, t.field, "'" + t.name + "' is not a __global__ function");
  if (!out.ok || out.lowered_names.empty())
    fail(d, t.field, "NVRTC could not check '" + t.name + "': " + first_line(out.log));
  const std::optional<std::vector<std::string>> params =
      signature_parameters(out.lowered_names.front());
  if (!params) fail(d, t.field, "'" + t.name + "' is not a function");
  return *params;
}

// ---- signatures -------------------------------------------------------

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(' ');
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(' ') - a + 1);
}

/// The type without its cv and restrict qualifiers: "float const" -> "float".
std::string bare(const std::string& type) {
  std::istringstream in(type);
  std::string out;
  for (std::string word; in >> word;)
    if (word != "const" && word != "volatile" && word != "__restrict__" && word != "__restrict")
      out += (out.empty() ? "" : " ") + word;
  return out;
}

/// The element type a pointer parameter points to ("float const*" -> "float"); empty when
/// the parameter is no pointer.
std::string pointee(const std::string& type) {
  const std::string t = bare(type);
  if (t.empty() || t.back() != '*') return "";
  return bare(t.substr(0, t.size() - 1));
}

/// The C++ types a dtype's elements may have in a kernel's parameters: its own
/// and those of the same width and kind (the harness passes the bytes), and
/// the CUDA vector types of them for buffers.
struct DtypeTypes {
  std::string dtype;
  std::vector<std::string> scalars;       ///< the first is the dtype's own type
  std::vector<std::string> vector_bases;  ///< float -> float1 .. float4
};

const std::vector<DtypeTypes>& dtype_types() {
  static const std::vector<DtypeTypes> all = {
      {"float32", {"float"}, {"float"}},
      {"float64", {"double"}, {"double"}},
      {"int32", {"int", "unsigned int"}, {"int", "uint"}},
      {"uint32", {"unsigned int", "int"}, {"uint", "int"}},
      {"int64",
       {"long", "long long", "unsigned long", "unsigned long long"},
       {"long", "ulong", "longlong", "ulonglong"}},
  };
  return all;
}

const DtypeTypes& types_of(const std::string& dtype) {
  for (const auto& t : dtype_types())
    if (t.dtype == dtype) return t;
  throw std::invalid_argument("unknown dtype '" + dtype + "'");
}

bool is_scalar_of(const std::string& type, const DtypeTypes& t) {
  return std::find(t.scalars.begin(), t.scalars.end(), type) != t.scalars.end();
}

bool is_element_of(const std::string& type, const DtypeTypes& t) {
  if (type == "void" || is_scalar_of(type, t)) return true;
  for (const auto& base : t.vector_bases)
    for (char n = '1'; n <= '4'; ++n)
      if (type == base + n) return true;
  return false;
}

/// The dtype whose own type `type` is (or one of whose types it is); empty if none.
std::string dtype_for(const std::string& type) {
  for (const auto& t : dtype_types())
    if (t.scalars.front() == type) return t.dtype;
  for (const auto& t : dtype_types())
    if (is_element_of(type, t) && type != "void") return t.dtype;
  return "";
}

void compare_arguments(const KernelDescription& d, const Target& t,
                       const std::vector<std::string>& params) {
  if (params.size() != d.arguments.size())
    fail(d, "arguments",
         "'" + t.name + "' (" + t.role + ") takes " + std::to_string(params.size()) +
             " parameters (" + name_list(params) + "), the description lists " +
             std::to_string(d.arguments.size()) + " arguments: give one per parameter, in order");
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Argument& a = d.arguments[i];
    const DtypeTypes& want = types_of(a.dtype);
    const std::string field = "arguments[" + std::to_string(i) + "]";
    const std::string what =
        "'" + a.name + "' is " + (a.dtype == "int32" || a.dtype == "int64" ? "an " : "a ") +
        a.dtype + (a.is_buffer ? " buffer" : " scalar") + ", but parameter " +
        std::to_string(i + 1) + " of '" + t.name + "' (" + t.role + ") is '" + params[i] + "': ";
    const std::string element = pointee(params[i]);
    if (a.is_buffer && element.empty()) {
      const std::string dtype = dtype_for(bare(params[i]));
      fail(d, field,
           what + (dtype.empty()
                       ? "give the parameter a pointer type"
                       : "make the argument {\"scalar\": \"" + dtype + "\", \"value\": ...}"));
    }
    if (a.is_buffer && !is_element_of(element, want)) {
      const std::string dtype = dtype_for(element);
      fail(d, field,
           what + (dtype.empty() ? "point the parameter to " + want.scalars.front() +
                                       " (or a vector of it, or void)"
                                 : "make it \"buffer\": \"" + dtype + "\""));
    }
    if (!a.is_buffer && !element.empty())
      fail(d, field, what + "make it a buffer (\"buffer\": DTYPE with a \"count\")");
    if (!a.is_buffer && !is_scalar_of(bare(params[i]), want)) {
      const std::string dtype = dtype_for(bare(params[i]));
      fail(d, field,
           what + (dtype.empty() ? "give the parameter type " + want.scalars.front()
                                 : "make it \"scalar\": \"" + dtype + "\""));
    }
  }
}

// ---- #define parameters -----------------------------------------------

bool names_word(const std::string& text, const std::string& word) {
  auto part_of_name = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  for (auto pos = text.find(word); pos != std::string::npos; pos = text.find(word, pos + 1)) {
    const std::size_t end = pos + word.size();
    if ((pos == 0 || !part_of_name(text[pos - 1])) &&
        (end == text.size() || !part_of_name(text[end])))
      return true;
  }
  return false;
}

/// Every launch and argument expression of the description, one a line.
std::string expressions_text(const KernelDescription& d) {
  std::string text;
  auto add_launch = [&text](const LaunchShape& l) {
    for (const auto& e : l.grid) text += e + "\n";
    for (const auto& e : l.block) text += e + "\n";
    text += l.shared_memory + "\n";
  };
  add_launch(d.launch);
  if (d.verification.launch) add_launch(*d.verification.launch);
  for (const Argument& a : d.arguments) text += a.count + "\n" + a.expression + "\n";
  return text;
}

/// A #define parameter that no listed file names and no expression reads may
/// still reach the code through an unlisted header or token pasting: defined
/// as a token that is an error wherever it is expanded, the source then fails
/// to compile. If it still compiles, the parameter changes nothing.
void check_defines(const UserFamily& family, const Problem& sizes, const Config& defaults,
                   const FrontEnd& front_end) {
  const KernelDescription& d = family.spec();
  std::string files;
  for (const auto& s : d.sources) files += read_text(s) + "\n";
  if (!d.verification.source.empty()) files += read_text(d.verification.source);
  const std::string expressions = expressions_text(d);
  for (std::size_t i = 0; i < d.passing.size(); ++i) {
    const auto& [name, pass] = d.passing[i];
    if (pass != PassAs::define || names_word(files, name) || names_word(expressions, name))
      continue;
    KernelSource s = family.source(sizes, defaults);
    s.kernels.clear();
    for (auto& option : s.options)
      if (option.rfind("-D" + name + "=", 0) == 0) option = "-D" + name + "=@";
    if (!front_end(s).ok) continue;
    fail(d, "parameters[" + std::to_string(i) + "]",
         "'" + name +
             "' (\"pass\": \"define\") is read by nothing: no source file names it, no launch or "
             "argument expression reads it, and NVRTC never expands it; remove it or correct "
             "its name");
  }
}

}  // namespace

std::optional<std::vector<std::string>> signature_parameters(const std::string& lowered_name) {
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(lowered_name.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !text) return std::nullopt;
  const std::string s = text.get();
  const std::string head = "ktune_check_signature<void (*)(";
  const std::size_t start = s.find(head);
  if (start == std::string::npos) return std::nullopt;
  std::vector<std::string> params;
  std::string current;
  int depth = 0;
  for (std::size_t i = start + head.size(); i < s.size(); ++i) {
    const char c = s[i];
    if (depth == 0 && (c == ')' || c == ',')) {
      if (!trim(current).empty()) params.push_back(trim(current));
      if (c == ')') return params;
      current.clear();
      continue;
    }
    if (c == '(' || c == '<' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == ']') --depth;
    current += c;
  }
  return std::nullopt;
}

void check_against_source(const UserFamily& family, const Problem& sizes, const DeviceSpec& device,
                          const FrontEnd& front_end) {
  const KernelDescription& d = family.spec();
  const Config defaults = family.default_config(sizes, device);
  std::vector<std::string> templates;
  for (const auto& [name, pass] : d.passing)
    if (pass == PassAs::template_argument) templates.push_back(name);
  const Target kernel{.field = "kernel",
                      .source_field = "source",
                      .name = d.kernel,
                      .instance = family.name_expression(defaults),
                      .template_parameters = templates,
                      .role = "the kernel"};
  compare_arguments(
      d, kernel, probe_signature(d, kernel, family.source(sizes, defaults), defaults, front_end));
  if (d.verification.by == VerifyBy::reference_kernel) {
    const Target reference{.field = "verification.reference_kernel.name",
                           .source_field = d.verification.source.empty()
                                               ? "source"
                                               : "verification.reference_kernel.source",
                           .name = d.verification.kernel,
                           .instance = d.verification.kernel,
                           .template_parameters = {},
                           .role = "the reference kernel"};
    compare_arguments(
        d, reference,
        probe_signature(d, reference, family.reference_source(sizes, device), defaults, front_end));
  }
  check_defines(family, sizes, defaults, front_end);
}

}  // namespace ktune::user
