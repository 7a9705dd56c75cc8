// Checks of a kernel description that need the expression language: the
// space builds, and every expression names only sizes, parameters and device
// constants and has the right type. Run once at load, on nominal sizes.
#include <cctype>
#include <set>

#include "kernels_templated/family.hpp"
#include "kernels_user/description.hpp"
#include "space/expression.hpp"

namespace ktune::user {
namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

[[noreturn]] void fail(const KernelDescription& d, const std::string& field,
                       const std::string& what) {
  throw DescriptionError("kernel description " + d.path + ": " + field + ": " + what);
}

enum class Want { integer, number };

void check_expression(const KernelDescription& d, const std::string& text, const ValueMap& names,
                      const std::string& field, Want want) {
  try {
    const Expression e = Expression::compile(text, names);
    const bool ok =
        e.type() == ExprType::integer || (want == Want::number && e.type() == ExprType::real);
    if (!ok)
      fail(d, field,
           "'" + text + "' is " + std::string(to_string(e.type())) + ", not " +
               (want == Want::integer ? "an integer" : "a number"));
  } catch (const ExpressionError& e) {
    fail(d, field, "'" + text + "': " + e.what());
  }
}

void check_launch(const KernelDescription& d, const LaunchShape& l, const ValueMap& names,
                  const std::string& field) {
  for (int i = 0; i < 3; ++i) {
    check_expression(d, l.grid[i], names, field + ".grid[" + std::to_string(i) + "]",
                     Want::integer);
    check_expression(d, l.block[i], names, field + ".block[" + std::to_string(i) + "]",
                     Want::integer);
  }
  check_expression(d, l.shared_memory, names, field + ".shared_memory", Want::integer);
}

}  // namespace

ValueMap space_constants(const KernelDescription& d, const Problem& sizes,
                         const DeviceSpec& device) {
  ValueMap c;
  for (const auto& name : d.sizes) c.set(name, sizes.at(name));
  c.set("max_threads", static_cast<std::int64_t>(device.max_threads_per_block));
  c.set("smem_max", static_cast<std::int64_t>(device.smem_per_block_optin));
  c.set("sm_count", static_cast<std::int64_t>(device.sm_count));
  c.set("cc", static_cast<std::int64_t>(device.cc_major * 10 + device.cc_minor));
  return c;
}

Space build_space(const KernelDescription& d, const Problem& sizes, const DeviceSpec& device) {
  return Space::from_json(d.space, space_constants(d, sizes, device));
}

std::int64_t evaluate_integer(const std::string& expression, const ValueMap& names,
                              const std::string& field) {
  const std::optional<Value> v = Expression::compile(expression, names).evaluate();
  if (!v) throw DescriptionError(field + ": '" + expression + "' divides by zero");
  if (const auto* i = std::get_if<std::int64_t>(&*v)) return *i;
  throw DescriptionError(field + ": '" + expression + "' is not an integer");
}

LaunchDims evaluate_launch(const LaunchShape& shape, const ValueMap& names) {
  LaunchDims dims;
  for (int i = 0; i < 3; ++i) {
    const std::string axis = std::string(1, "xyz"[i]);
    dims.grid[i] = evaluate_integer(shape.grid[i], names, "grid." + axis);
    dims.block[i] = evaluate_integer(shape.block[i], names, "block." + axis);
    if (dims.grid[i] < 1 || dims.block[i] < 1)
      throw DescriptionError("launch: grid and block dimensions must be >= 1 (grid." + axis +
                             " = " + std::to_string(dims.grid[i]) + ", block." + axis + " = " +
                             std::to_string(dims.block[i]) + ")");
  }
  dims.shared_memory = evaluate_integer(shape.shared_memory, names, "shared_memory");
  if (dims.shared_memory < 0) throw DescriptionError("launch: shared_memory is negative");
  return dims;
}

ValueMap expression_names(const KernelDescription& d, const Problem& sizes,
                          const DeviceSpec& device, const Config& config) {
  ValueMap names = space_constants(d, sizes, device);
  for (const auto& [k, v] : config) names.set(k, v);
  return names;
}

void check_description(KernelDescription& d) {
  if (!is_identifier(d.name))
    fail(d, "name", "'" + d.name + "' must be an identifier (letters, digits, _)");
  for (const auto& builtin : family_names())
    if (builtin == d.name) fail(d, "name", "'" + d.name + "' is a built-in kernel family");
  if (!is_identifier(d.kernel)) fail(d, "kernel", "'" + d.kernel + "' must be a function name");

  // Nominal sizes (the defaults, else 1) on a nominal device: names and types.
  Problem nominal;
  for (const auto& s : d.sizes) {
    if (!is_identifier(s)) fail(d, "sizes." + s, "must be an identifier");
    nominal.set(s, d.size_defaults.contains(s) ? d.size_defaults.at(s) : Value(std::int64_t{1}));
  }
  const DeviceSpec device = *find_builtin_device("sm_90");
  const ValueMap constants = space_constants(d, nominal, device);
  for (const auto& [name, pass] : d.passing)
    if (constants.contains(name))
      fail(d, "parameters", "'" + name + "' is also a size or a device constant");

  Space space;
  try {
    nlohmann::json only_parameters = {{"parameters", d.space["parameters"]}};
    Space::from_json(only_parameters, constants);
  } catch (const SpaceError& e) {
    fail(d, "parameters", e.what());
  }
  try {
    space = build_space(d, nominal, device);
  } catch (const SpaceError& e) {
    fail(d, "constraints", e.what());
  }

  ValueMap names = constants;
  for (const auto& p : space.parameters()) names.set(p.name(), p.default_value());
  check_launch(d, d.launch, names, "launch");

  std::set<std::string> seen;
  bool has_output = false;
  for (std::size_t i = 0; i < d.arguments.size(); ++i) {
    const Argument& a = d.arguments[i];
    const std::string field = "arguments[" + std::to_string(i) + "]";
    if (!seen.insert(a.name).second) fail(d, field + ".name", "'" + a.name + "' is given twice");
    if (a.is_buffer) {
      // Buffers are allocated once per problem: their sizes read no parameter.
      check_expression(d, a.count, constants, field + ".count", Want::integer);
      has_output |= a.output;
    } else {
      const bool integral = a.dtype.rfind("float", 0) != 0;
      check_expression(d, a.expression, names, field + ".value",
                       integral ? Want::integer : Want::number);
    }
  }
  if (!has_output)
    fail(d, "arguments", "no buffer is an output (\"output\": true): nothing could be verified");
  // Flops and bytes describe the problem, not a configuration: sizes only.
  check_expression(d, d.flops, constants, "flops", Want::number);
  check_expression(d, d.bytes, constants, "bytes", Want::number);
  if (d.verification.by == VerifyBy::reference_kernel) {
    if (!is_identifier(d.verification.kernel))
      fail(d, "verification.reference_kernel.name",
           "'" + d.verification.kernel + "' must be a function name");
    if (d.verification.launch)
      check_launch(d, *d.verification.launch, names, "verification.reference_kernel.launch");
  }
}

}  // namespace ktune::user
