// Recording export: latest stored measurement per configuration -> RecordedSpace.
#include "cli/recording_export.hpp"

#include <map>
#include <set>
#include <stdexcept>

#include "compile/version.hpp"
#include "space/name_list.hpp"

namespace ktune {
namespace {

bool device_matches(const DeviceSpec& d, const std::string& wanted) {
  return wanted.empty() || d.name == wanted || d.arch() == wanted;
}

}  // namespace

RecordedSpace recording_from_store(const Store& store, const RecordingSelection& sel) {
  struct Latest {
    Result result;
    std::string measured_at;
  };
  std::map<std::string, Latest> latest;  // by config key
  std::set<std::string> devices;
  DeviceSpec device;
  std::string hash;  // of the measurements kept (one device: one kernel path, one version)
  store.for_each([&](const Measurement& m) {
    if (m.key.family != sel.family || m.key.problem != sel.problem) return true;
    if (!sel.family_hash.empty() && m.key.family_hash != sel.family_hash) return true;
    if (!device_matches(m.key.device, sel.device)) return true;
    if (sel.family_hash.empty() && sel.current &&
        m.key.family_hash !=
            sel.current(m.key.family, m.key.problem, m.key.device.name, m.key.device.arch()))
      return true;
    devices.insert(m.key.device.name);
    hash = m.key.family_hash;
    device = m.key.device;
    auto& slot = latest[m.result.config.key()];
    if (slot.measured_at.empty() || m.provenance.measured_at >= slot.measured_at)
      slot = {m.result, m.provenance.measured_at};
    return true;
  });
  const std::string what = sel.family + " " + sel.problem.key();
  if (latest.empty())
    throw std::invalid_argument("the database holds no current measurement of " + what +
                                (sel.device.empty() ? "" : " on " + sel.device));
  if (devices.size() > 1) {
    throw std::invalid_argument(what + " was measured on several GPUs (" + name_list(devices) +
                                "): choose one with --device");
  }

  std::vector<Result> results;
  results.reserve(latest.size());
  for (auto& [key, entry] : latest) results.push_back(std::move(entry.result));

  RecordedSpace r;
  r.family = sel.family;
  r.problem = sel.problem;
  r.device_name = device.name;
  r.device = device;
  r.format = RecordingFormat::ktune;
  r.source = "tuning database";
  r.provenance = {{"tool", tool_version()},
                  {"family_hash", sel.family_hash.empty() ? hash : sel.family_hash},
                  {"measurements", results.size()},
                  {"space", "exactly the recorded configurations"}};
  // space_from_recorded normalises configurations in place, so the result
  // map is keyed by the normalised configurations.
  r.space = space_from_recorded(results);
  for (Result& res : results) r.results.emplace(res.config.key(), std::move(res));
  r.restricted_to_recorded = true;
  return r;
}

}  // namespace ktune
