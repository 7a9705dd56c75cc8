// `ktune devices`: every visible GPU with its identity, resources and clocks.
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "measure/device_query.hpp"

namespace ktune::cli {
namespace {

int run_devices(bool as_json) {
  DeviceQuery query = query_devices();
  if (query.devices.empty()) {
    if (as_json)
      std::cout << nlohmann::json{{"devices", nlohmann::json::array()},
                                  {"reason", query.none_reason}}
                       .dump(2)
                << "\n";
    else
      std::cout << "No GPU: " << query.none_reason << ".\n";
    return 0;
  }
  if (as_json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& d : query.devices) {
      nlohmann::json j = d.spec.to_json();
      j["ordinal"] = d.ordinal;
      j["pci_bus_id"] = d.pci_bus_id;
      j["memory_clock_mhz"] = d.memory_clock_mhz;
      j["current_sm_clock_mhz"] = d.current_sm_clock_mhz;
      out.push_back(j);
    }
    std::cout << nlohmann::json{{"devices", out}}.dump(2) << "\n";
    return 0;
  }
  for (const auto& d : query.devices) {
    const DeviceSpec& s = d.spec;
    std::printf("GPU %d  %s  (%s, cc %d.%d, PCI %s)\n", d.ordinal, s.name.c_str(), s.arch().c_str(),
                s.cc_major, s.cc_minor, d.pci_bus_id.c_str());
    std::printf(
        "  SMs %d, memory %.1f GiB, L2 %.1f MiB, shared memory %d KiB/SM (%d KiB/block opt-in)\n",
        s.sm_count, s.global_memory_bytes / 1073741824.0, s.l2_bytes / 1048576.0,
        s.smem_per_sm / 1024, s.smem_per_block_optin / 1024);
    std::printf("  clocks: SM %.0f MHz max", s.sm_clock_mhz);
    if (d.current_sm_clock_mhz > 0) std::printf(" (%.0f MHz now)", d.current_sm_clock_mhz);
    std::printf(", memory %.0f MHz\n", d.memory_clock_mhz);
    std::printf("  driver %s, CUDA runtime %s\n", s.driver.empty() ? "unknown" : s.driver.c_str(),
                s.cuda_runtime.c_str());
  }
  return 0;
}

const CommandRegistrar registrar(10, [](CLI::App& app) {
  auto* cmd = app.add_subcommand("devices",
                                 "List every visible GPU: name, compute capability, SMs, "
                                 "memory, clocks, driver and CUDA versions");
  auto as_json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *as_json, "Print JSON instead of text");
  cmd->callback([as_json] { set_exit_code(run_devices(*as_json)); });
});

}  // namespace
}  // namespace ktune::cli
