// Nvml: dlopen-based access to NVML's clock, temperature, power, energy and driver queries.
#include "measure/nvml.hpp"

#include <dlfcn.h>

namespace ktune {
namespace {

// NVML's ABI, declared here because this machine has no nvml.h: opaque device
// handles, int return codes (0 = success), and the enum values we pass.
using nvmlDevice = void*;
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlTemperatureGpu = 0;

/// One value of a device query: `call(device, &value)`'s NVML status, nothing
/// when there is no device or the query fails.
template <typename T, typename Call>
std::optional<T> query(void* device, Call call) {
  T v{};
  if (!device || call(device, &v) != kNvmlSuccess) return std::nullopt;
  return v;
}

/// A query through an optional entry point: fails as NVML would when it is missing.
template <typename T, typename Fn>
std::optional<T> optional_query(void* device, Fn* fn) {
  if (!fn) return std::nullopt;
  return query<T>(device, fn);
}

}  // namespace

struct Nvml::Functions {
  int (*init)() = nullptr;
  int (*system_driver_version)(char*, unsigned) = nullptr;
  int (*handle_by_pci)(const char*, nvmlDevice*) = nullptr;
  int (*clock_info)(nvmlDevice, int, unsigned*) = nullptr;
  int (*max_clock_info)(nvmlDevice, int, unsigned*) = nullptr;
  int (*temperature)(nvmlDevice, int, unsigned*) = nullptr;
  // Optional: a driver without them still serves the queries above.
  int (*power_usage)(nvmlDevice, unsigned*) = nullptr;
  int (*power_limit)(nvmlDevice, unsigned*) = nullptr;
  int (*clock_reasons)(nvmlDevice, unsigned long long*) = nullptr;
  int (*total_energy)(nvmlDevice, unsigned long long*) = nullptr;
};

Nvml& Nvml::instance() {
  static Nvml nvml;
  return nvml;
}

Nvml::Nvml() {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library_) return;
  fn_ = new Functions;
  auto load = [this](auto& fp, const char* symbol) {
    fp = reinterpret_cast<std::remove_reference_t<decltype(fp)>>(dlsym(library_, symbol));
    return fp != nullptr;
  };
  bool ok = load(fn_->init, "nvmlInit_v2") &&
            load(fn_->system_driver_version, "nvmlSystemGetDriverVersion") &&
            load(fn_->handle_by_pci, "nvmlDeviceGetHandleByPciBusId_v2") &&
            load(fn_->clock_info, "nvmlDeviceGetClockInfo") &&
            load(fn_->max_clock_info, "nvmlDeviceGetMaxClockInfo") &&
            load(fn_->temperature, "nvmlDeviceGetTemperature");
  available_ = ok && fn_->init() == kNvmlSuccess;
  load(fn_->power_usage, "nvmlDeviceGetPowerUsage");
  load(fn_->power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  load(fn_->total_energy, "nvmlDeviceGetTotalEnergyConsumption");
  // Renamed in newer drivers; the older name is still exported.
  if (!load(fn_->clock_reasons, "nvmlDeviceGetCurrentClocksEventReasons"))
    load(fn_->clock_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
}

void* Nvml::device(const std::string& pci_bus_id) const {
  if (!available_) return nullptr;
  nvmlDevice handle = nullptr;
  return fn_->handle_by_pci(pci_bus_id.c_str(), &handle) == kNvmlSuccess ? handle : nullptr;
}

std::optional<std::string> Nvml::driver_version() const {
  if (!available_) return std::nullopt;
  char buf[96] = {};
  if (fn_->system_driver_version(buf, sizeof buf) != kNvmlSuccess) return std::nullopt;
  return std::string(buf);
}

std::optional<unsigned> Nvml::sm_clock_mhz(const std::string& pci_bus_id) const {
  return query<unsigned>(device(pci_bus_id), [this](nvmlDevice d, unsigned* v) {
    return fn_->clock_info(d, kNvmlClockSm, v);
  });
}

std::optional<unsigned> Nvml::max_sm_clock_mhz(const std::string& pci_bus_id) const {
  return query<unsigned>(device(pci_bus_id), [this](nvmlDevice d, unsigned* v) {
    return fn_->max_clock_info(d, kNvmlClockSm, v);
  });
}

std::optional<unsigned> Nvml::temperature_c(const std::string& pci_bus_id) const {
  return query<unsigned>(device(pci_bus_id), [this](nvmlDevice d, unsigned* v) {
    return fn_->temperature(d, kNvmlTemperatureGpu, v);
  });
}

std::optional<unsigned> Nvml::power_mw(const std::string& pci_bus_id) const {
  return optional_query<unsigned>(device(pci_bus_id), fn_ ? fn_->power_usage : nullptr);
}

std::optional<unsigned> Nvml::power_limit_mw(const std::string& pci_bus_id) const {
  return optional_query<unsigned>(device(pci_bus_id), fn_ ? fn_->power_limit : nullptr);
}

std::optional<unsigned long long> Nvml::clock_event_reasons(const std::string& pci_bus_id) const {
  return optional_query<unsigned long long>(device(pci_bus_id), fn_ ? fn_->clock_reasons : nullptr);
}

std::optional<unsigned long long> Nvml::total_energy_mj(const std::string& pci_bus_id) const {
  return optional_query<unsigned long long>(device(pci_bus_id), fn_ ? fn_->total_energy : nullptr);
}

}  // namespace ktune
