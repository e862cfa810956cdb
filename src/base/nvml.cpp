/*! \file
    \brief The NVML entry points, resolved once with dlopen.
*/
#include "base/nvml.hpp"

#include <dlfcn.h>

namespace gemmkit::nvml {

namespace {

struct Library {
  using Init = int (*)();
  using HandleByBusId = int (*)(char const*, void**);
  using ClockInfo = int (*)(void*, int, unsigned int*);
  using TotalEnergy = int (*)(void*, unsigned long long*);
  using PowerLimit = int (*)(void*, unsigned int*);
  HandleByBusId handle_by_bus_id = nullptr;
  ClockInfo clock_info = nullptr;
  TotalEnergy total_energy = nullptr;  // Volta and later
  PowerLimit power_limit = nullptr;
  bool ok = false;

  static Library const& instance() {
    static Library const library = [] {
      Library l;
      void* so = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
      if (so == nullptr) return l;
      auto init = reinterpret_cast<Init>(dlsym(so, "nvmlInit_v2"));
      l.handle_by_bus_id = reinterpret_cast<HandleByBusId>(dlsym(so, "nvmlDeviceGetHandleByPciBusId_v2"));
      l.clock_info = reinterpret_cast<ClockInfo>(dlsym(so, "nvmlDeviceGetClockInfo"));
      l.total_energy = reinterpret_cast<TotalEnergy>(dlsym(so, "nvmlDeviceGetTotalEnergyConsumption"));
      l.power_limit = reinterpret_cast<PowerLimit>(dlsym(so, "nvmlDeviceGetEnforcedPowerLimit"));
      l.ok = init != nullptr && l.handle_by_bus_id != nullptr && init() == 0;
      return l;
    }();
    return library;
  }

  /// The device handle, or nullptr.
  void* device(std::string const& pci_bus_id) const {
    void* handle = nullptr;
    if (!ok || pci_bus_id.empty() || handle_by_bus_id(pci_bus_id.c_str(), &handle) != 0) return nullptr;
    return handle;
  }
};

}  // namespace

std::optional<int> sm_clock_mhz(std::string const& pci_bus_id) {
  Library const& nvml = Library::instance();
  void* device = nvml.device(pci_bus_id);
  unsigned int mhz = 0;
  constexpr int kClockSm = 1;  // NVML_CLOCK_SM
  if (device == nullptr || nvml.clock_info == nullptr || nvml.clock_info(device, kClockSm, &mhz) != 0) {
    return std::nullopt;
  }
  return int(mhz);
}

std::optional<double> total_energy_joules(std::string const& pci_bus_id) {
  Library const& nvml = Library::instance();
  void* device = nvml.device(pci_bus_id);
  unsigned long long millijoules = 0;
  if (device == nullptr || nvml.total_energy == nullptr || nvml.total_energy(device, &millijoules) != 0) {
    return std::nullopt;
  }
  return double(millijoules) * 1e-3;
}

std::optional<double> power_limit_watts(std::string const& pci_bus_id) {
  Library const& nvml = Library::instance();
  void* device = nvml.device(pci_bus_id);
  unsigned int milliwatts = 0;
  if (device == nullptr || nvml.power_limit == nullptr || nvml.power_limit(device, &milliwatts) != 0) {
    return std::nullopt;
  }
  return double(milliwatts) * 1e-3;
}

}  // namespace gemmkit::nvml
