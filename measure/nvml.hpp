// Nvml: the few NVML calls ktune needs, reached through dlopen so that no
// binary links libnvidia-ml (absent on machines without a driver).
#pragma once

#include <optional>
#include <string>

namespace ktune {

class Nvml {
 public:
  /// The process-wide instance; loads the library on first use.
  static Nvml& instance();
  bool available() const { return available_; }
  std::optional<std::string> driver_version() const;
  /// Current SM clock in MHz of the device with this PCI bus id ("0000:3b:00.0").
  std::optional<unsigned> sm_clock_mhz(const std::string& pci_bus_id) const;
  std::optional<unsigned> max_sm_clock_mhz(const std::string& pci_bus_id) const;
  std::optional<unsigned> temperature_c(const std::string& pci_bus_id) const;
  /// Board power draw in milliwatts.
  std::optional<unsigned> power_mw(const std::string& pci_bus_id) const;
  /// The power limit the board enforces now, in milliwatts.
  std::optional<unsigned> power_limit_mw(const std::string& pci_bus_id) const;
  /// Why the clocks are below their maximum now: NVML's clock-event bit mask
  /// (0x4 software power cap, 0x8 hardware slowdown, 0x20/0x40 thermal, ...).
  std::optional<unsigned long long> clock_event_reasons(const std::string& pci_bus_id) const;
  /// The board's energy since the driver was loaded, in millijoules
  /// (nvmlDeviceGetTotalEnergyConsumption, Volta and later). The driver
  /// refreshes it periodically, not per call: measure/energy.hpp measures
  /// between two refreshes.
  std::optional<unsigned long long> total_energy_mj(const std::string& pci_bus_id) const;

 private:
  Nvml();
  void* device(const std::string& pci_bus_id) const;
  bool available_ = false;
  void* library_ = nullptr;
  struct Functions;
  Functions* fn_ = nullptr;
};

}  // namespace ktune
