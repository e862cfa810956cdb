/*! \file
    \brief NVML (the driver's management library), loaded at run time with dlopen so nothing links
    against it: the SM clock, the board's energy counter and its enforced power limit of the GPU at
    a PCI bus id. Every query answers nothing where the library or the counter is missing.
*/
#pragma once

#include <optional>
#include <string>

namespace gemmkit::nvml {

/// The SM clock right now, MHz.
std::optional<int> sm_clock_mhz(std::string const& pci_bus_id);

/// Joules the board has used since the driver loaded (NVML's counter is in millijoules).
std::optional<double> total_energy_joules(std::string const& pci_bus_id);

/// The power limit the board enforces now, watts.
std::optional<double> power_limit_watts(std::string const& pci_bus_id);

}  // namespace gemmkit::nvml
