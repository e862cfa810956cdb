/*! \file
    \brief What a result row records about where it ran: device, clocks, driver, commit, date.
*/
#pragma once

#include "json_writer.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace gemmkit::bench {

struct GpuInfo {
  int index = 0;
  std::string name;               ///< e.g. "NVIDIA H100 80GB HBM3"
  int compute_capability = 0;     ///< major*10+minor
  int sm_count = 0;
  std::size_t memory_bytes = 0;
  int sm_clock_max_mhz = 0;       ///< cudaDevAttrClockRate (peak)
  int mem_clock_max_mhz = 0;      ///< cudaDevAttrMemoryClockRate (peak)
  std::string pci_bus_id;
};

struct MachineInfo {
  std::string cpu_model;          ///< /proc/cpuinfo "model name"
  double cpu_mhz = 0;             ///< /proc/cpuinfo "cpu MHz" of the first CPU, 0 if absent
  int cpu_threads = 0;
  int cpu_cores = 0;              ///< physical cores (distinct physical id / core id pairs), else cpu_threads
  std::string cpu_isa;            ///< widest vector ISA in the CPU flags: "avx512", "avx2", "avx", "sse", "neon", "sve"
  std::string cpu_short;          ///< results folder of CPU rows: model slug, ISA, cores ("xeon-avx512-2c")
  /// The CPU BLAS behind gemmkit's CPU path: OpenBLAS's core (a DYNAMIC_ARCH build picks it from the
  /// CPU id, and falls back to a generic one on a CPU model it does not know) and build.
  std::string cpu_blas;
  std::string cpu_tuning_key;     ///< cpu::this_cpu_tuning_key: whose rows of the CPU tuning tables run
  bool cuda_built = false;        ///< gemmkit was compiled with CUDA
  std::optional<GpuInfo> gpu;     ///< the device the GPU rows run on, when one is usable
  std::string no_gpu_reason;      ///< why gpu is empty
  std::string driver = "none";    ///< CUDA driver version, "none" without a usable GPU
  std::string runtime = "none";   ///< CUDA runtime version gemmkit-bench was built against
  std::string commit = "unknown";
  std::string commit_source;      ///< "git", "env GEMMKIT_COMMIT", "configure" or "none"
};

/// Gathers the machine description; looks at GPU `device` unless `use_gpu` is false.
MachineInfo collect_machine_info(int device, bool use_gpu);

/// Short device name for result paths and plots: "h100", "h200", or a slug of a CPU model.
std::string short_device_name(std::string const& name);

/// "xeon-avx512-2c": the model's slug without vendor and marketing words, the vector ISA, the cores.
/// `generation` ("zen5": what a virtual machine's bare "AMD EPYC" leaves out) follows the slug
/// unless the model names it already.
std::string short_cpu_name(std::string const& model, std::string const& isa, int cores,
                           std::string const& generation = "");


/// The keys of a row that ran on the CPU: device (the model), device_short, clocks, driver "none".
void add_cpu_device_keys(JsonObject& row, MachineInfo const& machine);

/// The keys of a row that ran on the GPU: device, device_short, clocks (maxima and the SM clock read
/// after the run, null when unread), driver, cuda_runtime, compute_capability, sm_count.
void add_gpu_device_keys(JsonObject& row, MachineInfo const& machine, std::optional<int> sm_mhz_after_run);

/// The keys every row ends with: host_cpu, host_isa, host_threads, cpu_blas, cpu_tuning_key, commit,
/// commit_source, date.
void add_run_keys(JsonObject& row, MachineInfo const& machine);

/// Current time, ISO 8601 UTC ("2026-11-21T16:13:00Z").
std::string iso_utc_now();

/// The GPU's current SM clock in MHz (gk_gpu_sm_clock_mhz: NVML), or none.
std::optional<int> sm_clock_mhz(std::string const& pci_bus_id);

}  // namespace gemmkit::bench
