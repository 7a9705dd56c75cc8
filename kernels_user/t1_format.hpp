// The community's T1 tuning format (odgaard/TuningSchema: ConfigurationSpace
// + KernelSpecification), translated into a ktune kernel description where
// it maps: parameters, conditions, launch sizes, arguments, compiler options.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ktune::user {

/// Whether `j` is a T1 file (it has ConfigurationSpace and KernelSpecification).
bool is_t1(const nlohmann::json& j);

/// The kernel description `t1` maps onto. Parameters are passed as #defines
/// (as T1 tools do); conditions become constraints (`and`/`or`/`not` as
/// `&&`/`||`/`!`); GlobalSize is divided by LocalSize unless GlobalSizeType is
/// CUDA; Vector arguments become buffers (WriteOnly/ReadWrite ones outputs),
/// Scalar ones scalars; the first valid configuration is the reference. The
/// sizes are fixed, so the problem is one size `t1` = 1. Throws
/// DescriptionError naming the T1 field (`file` in the message) for what does
/// not map (another Language, a Values list that is not a list, a FillType
/// other than Constant or Random, a vector type).
nlohmann::json t1_to_description(const nlohmann::json& t1, const std::string& file);

}  // namespace ktune::user
