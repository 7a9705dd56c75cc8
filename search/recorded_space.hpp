// RecordedSpace: a search space with a measured Result for (some or all of)
// its configurations, read from ktune's own recording format or from other
// tuners' files; ReplayOracle answers configurations from it without a GPU.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "space/device_spec.hpp"
#include "space/result.hpp"
#include "space/space.hpp"

namespace ktune {

/// Where a recording came from (what reader parsed it).
enum class RecordingFormat { ktune, kernel_tuner_cache, t4 };
std::string_view to_string(RecordingFormat f);

/// A space plus what was measured in it.
struct RecordedSpace {
  std::string family;        ///< ktune family, or the kernel name of a foreign file
  Problem problem;           ///< shape keys (foreign files: problem_size as size0, size1, ...)
  std::string device_name;   ///< e.g. "NVIDIA H200"
  std::optional<DeviceSpec> device;  ///< full spec when the recording has one
  RecordingFormat format = RecordingFormat::ktune;
  std::string source;        ///< file it was read from, or a description
  nlohmann::json provenance = nlohmann::json::object();  ///< tool, revision, date, notes
  Space space;
  /// Recorded outcome per configuration, keyed by Config::key().
  std::unordered_map<std::string, Result> results;
  /// True when the space admits exactly the recorded configurations (always
  /// so for foreign files: their space is rebuilt from the recorded values).
  bool restricted_to_recorded = false;

  const Result* find(const Config& c) const;
  /// The fastest `ok` result; nullopt when nothing was measured ok.
  std::optional<Result> optimum() const;
  /// Recorded configurations a searcher may propose (every status but
  /// invalid_config), in key order.
  std::vector<Config> proposable() const;
  /// Counts by status name, for summaries.
  std::map<std::string, std::size_t> status_counts() const;
};

/// A space admitting exactly the configurations of `results` whose status is
/// not invalid_config: one parameter per name with the recorded values
/// (numbers sorted, text as categories) and a membership constraint (plus
/// prefix constraints, so enumeration prunes early). Configurations are
/// normalised so that a parameter holding integers and reals uses reals.
Space space_from_recorded(std::vector<Result>& results, const std::vector<std::string>& parameter_order = {});

/// Reads any supported file, telling the format from its content.
/// Throws std::invalid_argument naming the file and what is wrong.
RecordedSpace read_recorded_space(const std::filesystem::path& path);
/// Same, from parsed JSON; `source` names it in messages.
RecordedSpace recorded_space_from_json(const nlohmann::json& j, const std::string& source);

/// The three readers (see search/README.md for what each field becomes).
RecordedSpace read_ktune_recording(const nlohmann::json& j, const std::string& source);
RecordedSpace read_kernel_tuner_cache(const nlohmann::json& j, const std::string& source);
RecordedSpace read_t4_results(const nlohmann::json& j, const std::string& source);

/// ktune's recording format, version 1 (search/README.md documents it).
nlohmann::json to_json(const RecordedSpace& r);
/// Writes to_json(r) to path (pretty, one result per line). Throws
/// std::runtime_error if the file cannot be written.
void write_recorded_space(const RecordedSpace& r, const std::filesystem::path& path);

/// Answers configurations with their recorded Result. An unrecorded
/// configuration gets status invalid_config with message "not recorded":
/// callers must not count it against a budget.
class ReplayOracle {
 public:
  explicit ReplayOracle(std::shared_ptr<const RecordedSpace> recording);
  Result evaluate(const Config& c) const;
  std::vector<Result> evaluate(std::span<const Config> configs) const;
  bool recorded(const Config& c) const;
  const RecordedSpace& recording() const { return *recording_; }

  static constexpr std::string_view kNotRecorded = "not recorded";

 private:
  std::shared_ptr<const RecordedSpace> recording_;
};

}  // namespace ktune
