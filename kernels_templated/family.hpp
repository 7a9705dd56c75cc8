// KernelFamily: the descriptor of one kernel family (its space, work, source
// and defaults). Pure C++: no CUDA header, so searchers and tools use it anywhere.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "space/device_spec.hpp"
#include "space/space.hpp"
#include "space/value_map.hpp"
#include "space/work.hpp"

namespace ktune {

/// What NVRTC compiles for one configuration.
struct KernelSource {
  std::string program_name;              ///< shows in compiler logs, e.g. "gemm_tc.cu"
  std::string source;                    ///< text that #includes our templates
  std::vector<std::string> kernels;      ///< name expressions, in launch order
  std::vector<std::string> options;      ///< extra NVRTC options (-D...); the engine adds arch, std, includes
  bool needs_arch_specific = false;      ///< needs sm_90a (wgmma, setmaxnreg)
};

/// Thrown for a malformed or unsupported problem; the message names the key.
struct ProblemError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

class KernelFamily {
 public:
  virtual ~KernelFamily() = default;

  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  /// Template files (relative to kernels_templated/) whose text, hashed, is the
  /// family's version: results measured with other text are stale.
  virtual std::vector<std::string> template_files() const = 0;
  /// The template files the kernel path chosen for this (normalized) problem
  /// on this device includes, in template_files() order: the version key of
  /// that path's results (family_source_hash(family, problem, device)), so an
  /// edit to another path leaves them fresh. Default: every template file.
  /// template_files() stays the whole family (compile cache, tools).
  virtual std::vector<std::string> template_files_for(const Problem& normalized, const DeviceSpec& d) const {
    (void)normalized;
    (void)d;
    return template_files();
  }

  /// Checks a problem and fills defaulted keys (e.g. lda from the layout).
  /// Throws ProblemError naming the bad key (zero or negative sizes included).
  virtual Problem normalize(const Problem& p) const = 0;
  /// Human help for the problem keys, e.g. "m,n,k>=1; dtype=fp32|tf32|bf16|fp16; layout=nn|nt|tn|tt".
  virtual std::string_view problem_help() const = 0;
  /// Numeric keys that measure the shape (the nearest-shape lookup uses log-space
  /// distance over them) ...
  virtual std::vector<std::string> shape_keys() const = 0;
  /// ... and the class that must match for a configuration to transfer
  /// (dtype, layout, alignment class).
  virtual std::string shape_class(const Problem& p) const = 0;
  /// The group an emitted library keys a (normalized) problem by: the shapes
  /// of one group share a specialized configuration. Default: the shape class.
  virtual std::string shape_group(const Problem& p) const { return shape_class(p); }

  /// The space for a (normalized) problem on a device, constraints included.
  virtual Space space(const Problem& p, const DeviceSpec& d) const = 0;
  /// A safe configuration for any problem (the lookup's last resort).
  virtual Config default_config(const Problem& p, const DeviceSpec& d) const = 0;
  /// Problems of p's shape class that cover its variety where the safe
  /// default can differ (an ahead-of-time library compiles each one's default
  /// so that every problem of the class has a fallback). Default: p alone.
  virtual std::vector<Problem> class_probes(const Problem& p) const { return {p}; }
  /// For the emitted dispatch header: a C++ boolean expression over the shape
  /// keys (identifiers of type double) under which `c`, valid for `measured`
  /// on a device, is valid for a problem of the same shape class there; it may
  /// be stricter than the space, never looser. Default: the measured shape only.
  virtual std::string dispatch_condition(const Problem& measured, const Config& c) const {
    (void)c;
    std::string out;
    for (const auto& key : shape_keys())
      out += (out.empty() ? "" : " && ") + key + " == " + to_text(measured.at(key));
    return out.empty() ? "false" : out;
  }

  virtual double flops(const Problem& p) const = 0;
  virtual double min_bytes(const Problem& p) const = 0;
  /// Inputs of the roofline model for this configuration.
  virtual WorkEstimate estimate(const Problem& p, const Config& c, const DeviceSpec& d) const = 0;

  /// Source and kernel names to compile for (problem, configuration).
  virtual KernelSource source(const Problem& p, const Config& c) const = 0;
};

/// Set to 1, this environment variable also registers the test families of
/// families.def (test_faulty, a kernel with deliberate faults; test_center,
/// the template of a row-wise family): the test suites set
/// it, and the processes they start inherit it. Users never need it, so
/// `ktune tune --help` lists only the real families.
inline constexpr const char* kTestFamiliesEnv = "KTUNE_TEST_FAMILIES";

/// The family named `name`. Throws std::invalid_argument listing the known ones.
const KernelFamily& find_family(std::string_view name);
/// The registered families' names (the test families only where kTestFamiliesEnv is 1).
std::vector<std::string> family_names();
/// The same, comma-separated, for help texts ("reduce, softmax, ...").
std::string family_names_text();

/// Parses "m=4096,n=4096,..." and normalizes it for the family.
Problem parse_problem(const KernelFamily& family, std::string_view text);

}  // namespace ktune
