// Test support: a synthetic gemm recording (not a measurement) on the
// built-in H200 in which the family's default configuration is recorded, for
// the tests that a tune starts from what a user gets without tuning.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "kernels_templated/family.hpp"
#include "search/recorded_space.hpp"
#include "tests/support/recording.hpp"

namespace ktune::testing {

/// The recording's contents, for the tests' expectations.
struct DefaultRecording {
  Problem problem;
  DeviceSpec device;
  Config default_config;
  std::vector<Config> others;  ///< recorded besides the default, none equal to it
};

/// The default's synthetic time.
inline constexpr double kDefaultTimeS = 1e-3;

/// Writes a recording of gemm m=512,n=512,k=512,dtype=bf16,layout=nt on the
/// H200: the default at kDefaultTimeS and 8 other configurations of the
/// space, the first `faster` of them faster than the default (0.5 ms +
/// 0.05 ms * i), the rest slower (1.5 ms + 0.1 ms * i). Synthetic times.
inline DefaultRecording write_default_recording(const std::filesystem::path& path,
                                                std::size_t faster) {
  const KernelFamily& gemm = find_family("gemm");
  DefaultRecording out;
  out.device = *find_builtin_device("h200");
  out.problem = parse_problem(gemm, "m=512,n=512,k=512,dtype=bf16,layout=nt");
  out.default_config = gemm.default_config(out.problem, out.device);
  const Space space = gemm.space(out.problem, out.device);
  for (const Config& c : space.sample(9, /*seed=*/11))
    if (!(c == out.default_config) && out.others.size() < 8) out.others.push_back(c);

  RecordedSpace rec;
  rec.family = "gemm";
  rec.problem = out.problem;
  rec.device = out.device;
  rec.device_name = out.device.name;
  rec.provenance = {{"synthetic", true}, {"note", "SYNTHETIC test fixture, not measured"}};
  std::vector<Result> results;
  auto add = [&](const Config& c, double time_s) {
    Result r;
    r.config = c;
    r.status = Status::ok;
    r.time.median_s = time_s;
    r.time.repetitions = 1;
    results.push_back(r);
  };
  add(out.default_config, kDefaultTimeS);
  for (std::size_t i = 0; i < out.others.size(); ++i)
    add(out.others[i], i < faster ? 0.5e-3 + 0.05e-3 * static_cast<double>(i)
                                  : 1.5e-3 + 0.1e-3 * static_cast<double>(i));
  write_recording(rec, std::move(results), path);
  return out;
}

/// A --require expression the default breaks and the first other recorded
/// configuration keeps: an integer knob on which the two differ ("" if none).
inline std::string requirement_excluding_the_default(const DefaultRecording& rec) {
  for (const auto& [name, value] : rec.others[0])
    if (std::holds_alternative<std::int64_t>(value) && !(rec.default_config.at(name) == value))
      return name + " == " + to_text(value);
  return "";
}

}  // namespace ktune::testing
