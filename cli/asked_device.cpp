// resolve_asked_device: arch, device table, driver, databases, else one line.
#include "cli/asked_device.hpp"

#include <set>
#include <stdexcept>
#include <vector>

#include "space/name_list.hpp"

namespace ktune {
namespace {

std::string known_devices_line() {
  std::vector<std::string> names;
  std::set<std::string> archs;
  for (const DeviceSpec& d : builtin_devices()) {
    names.push_back(d.name);
    archs.insert(d.arch());
  }
  return "known GPUs: " + name_list(names) + "; archs: " + name_list(archs);
}

}  // namespace

AskedDevice resolve_asked_device(const std::string& device, const Lookup& lookup,
                                 const std::function<DeviceQuery()>& query) {
  AskedDevice asked;
  if (device.empty()) {
    const DeviceQuery q = query();
    if (q.devices.empty())
      throw std::invalid_argument("no GPU here (" + q.none_reason +
                                  "): pass --device NAME or ARCH, e.g. --device sm_90");
    asked.spec = q.devices.front().spec;
    asked.name = asked.spec.name;
    asked.arch = asked.spec.arch();
    asked.from_driver = true;
    return asked;
  }
  if (device.rfind("sm_", 0) == 0) {
    asked.arch = device;
    if (auto b = find_builtin_device(device)) asked.spec = *b;
    return asked;
  }
  // A known GPU's short name ('h200') asks for what its full name measured.
  if (auto b = find_builtin_device(device)) {
    asked.spec = *b;
    asked.name = b->name;
    asked.arch = b->arch();
    return asked;
  }
  DeviceQuery q;
  try {
    q = query();
  } catch (const std::exception&) {
    // a driver that fails names no GPU
  }
  for (const LiveDevice& live : q.devices)
    if (live.spec.name == device) {
      asked.spec = live.spec;
      asked.name = device;
      asked.arch = live.spec.arch();
      asked.from_driver = true;
      return asked;
    }
  if (std::string arch = lookup.arch_of(device); !arch.empty()) {
    asked.name = device;
    asked.arch = arch;
    return asked;
  }
  throw std::invalid_argument("unknown GPU '" + device +
                              "': not in the device table, the databases or this machine's GPUs (" +
                              known_devices_line() + "); pass one of them or an arch");
}

}  // namespace ktune
