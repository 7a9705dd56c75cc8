// KernelDescription: a user's kernel as its JSON description states it
// (sources, parameters, constraints, sizes, launch, arguments, verification),
// read and checked before anything compiles. Pure C++: no CUDA header.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "space/device_spec.hpp"
#include "space/space.hpp"
#include "space/value_map.hpp"

namespace ktune::user {

/// A description that cannot be used; the message names the file and the
/// field ("arguments[2].count: column 3: unknown name 'k'"). Bad input: exit 2.
struct DescriptionError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Grid and block dimensions (x, y, z) and dynamic shared memory bytes, each
/// an integer expression of the sizes, the parameters and the device constants.
struct LaunchShape {
  std::array<std::string, 3> grid{"1", "1", "1"};
  std::array<std::string, 3> block{"1", "1", "1"};
  std::string shared_memory = "0";
};

enum class Fill { random, constant, index };

struct Argument {
  std::string name;
  bool is_buffer = false;
  std::string dtype;  ///< float32, float64, int32, int64, uint32 (buffers and scalars)
  // buffers
  std::string count;  ///< element count: an expression
  Fill fill = Fill::random;
  std::uint64_t seed = 1;  ///< random
  double lo = -1, hi = 1;  ///< random: uniform in [lo, hi)
  double value = 0;        ///< constant
  bool output = false;
  double atol = 1e-5, rtol = 1e-5;  ///< outputs: |out - ref| <= atol + rtol |ref|
  // scalars
  std::string expression;  ///< the scalar's value
};

enum class VerifyBy { reference_kernel, reference_file, first_valid };

struct Verification {
  VerifyBy by = VerifyBy::first_valid;
  std::string kernel;  ///< reference_kernel: its name (no template arguments)
  std::string source;  ///< reference_kernel: absolute path of its file
  std::optional<LaunchShape>
      launch;  ///< reference_kernel: its launch (empty: the kernel's own, with default parameters)
  std::string file;  ///< reference_file: absolute path (raw little-endian outputs, in order)
};

/// How a parameter reaches the kernel: a template argument (in the order of
/// the parameters so passed) or a -DNAME=value.
enum class PassAs { template_argument, define };

struct KernelDescription {
  std::string path;                  ///< absolute path of the description
  std::string name;                  ///< the family name (keys the database)
  std::string description;           ///< one line for humans
  std::vector<std::string> sources;  ///< absolute paths; the first defines the kernel
  std::string kernel;                ///< the __global__ function's name
  nlohmann::json space;  ///< {"parameters": [...], "constraints": [...]} in the Space JSON form
  std::vector<std::pair<std::string, PassAs>> passing;  ///< every parameter, in order
  std::vector<std::string> sizes;                       ///< problem size names, in order
  ValueMap size_defaults;  ///< the sizes a description gives defaults for
  LaunchShape launch;
  std::vector<Argument> arguments;
  Verification verification;
  std::string flops = "0", bytes = "0";
  int min_cc = 0;                          ///< required compute capability x10 (90 for 9.0); 0: any
  std::vector<std::string> extra_options;  ///< more NVRTC options ("-use_fast_math")
};

/// Reads and checks the description at `path`: JSON well-formed, required
/// fields present and typed, the sources readable, parameters and
/// constraints a valid space, every expression naming only sizes,
/// parameters and device constants. Throws DescriptionError naming the field.
KernelDescription load_description(const std::string& path);

/// The constants a user space and its expressions read besides the
/// parameters: the problem sizes and max_threads, smem_max, sm_count, cc
/// (compute capability x10) of the device.
ValueMap space_constants(const KernelDescription& d, const Problem& sizes,
                         const DeviceSpec& device);

/// The space of the description for `sizes` on `device`; throws SpaceError.
Space build_space(const KernelDescription& d, const Problem& sizes, const DeviceSpec& device);

/// Evaluates an integer expression over `names`; throws DescriptionError
/// naming `field` for a non-integer result or a division by zero.
std::int64_t evaluate_integer(const std::string& expression, const ValueMap& names,
                              const std::string& field);

/// A launch shape evaluated for one configuration.
struct LaunchDims {
  std::array<std::int64_t, 3> grid{1, 1, 1};
  std::array<std::int64_t, 3> block{1, 1, 1};
  std::int64_t shared_memory = 0;
};
/// Evaluates `shape` over `names` (space_constants plus the configuration);
/// throws DescriptionError naming the dimension for a value below 1 (below 0
/// for shared memory) or a division by zero.
LaunchDims evaluate_launch(const LaunchShape& shape, const ValueMap& names);

/// space_constants(d, sizes, device) with the configuration's values added:
/// what every launch, count and scalar expression reads.
ValueMap expression_names(const KernelDescription& d, const Problem& sizes,
                          const DeviceSpec& device, const Config& config);

}  // namespace ktune::user
