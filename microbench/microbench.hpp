/*! \file
    \brief Device micro-benchmarks (seeds 000/001 measured again on the present GPU): peak FMA and
    FP64 tensor-core rates, launch latency, global-memory bandwidth vs offset and width, copy rates
    (device, host<->device), shared-memory latency and bank conflicts, instruction latencies, and
    the energy of DMMA flops, L2 bytes and shared-memory bytes (the board's energy counter). Each
    family returns rows; describe_machine turns them into the description the model reads.

    Method: rates come from many independent chains over one wave of blocks, timed by CUDA events;
    latencies from one warp's dependent chain timed by clock64. Every kernel writes its result
    under a condition the compiler cannot decide, so no work is eliminated.
*/
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "model/machine.hpp"

namespace gemmkit::microbench {

/// One measured quantity: a sample per timed repetition.
struct Measurement {
  std::string name;  ///< the row's `case`: "fp64_mma_m16n8k16", "copy_w64_o3", ...
  std::string unit;  ///< of the samples: "TFLOP/s", "GB/s", "us", "cycles", "MHz", "B/clk/SM"
  std::string what;  ///< the method in a few words, for people
  std::vector<double> samples;
  std::string error;                                       ///< "" when measured
  std::vector<std::pair<std::string, double>> parameters;  ///< extra keys of the row (width_bits, offset)
};

struct Settings {
  int device = 0;
  int reps = 5;                                       ///< timed repetitions per measurement, after one untimed
  double target_ms = 20;                              ///< length of one timed rate kernel
  std::size_t device_bytes = std::size_t(512) << 20;  ///< each copy buffer on the device (>> L2)
  std::size_t host_bytes = std::size_t(512) << 20;    ///< each host<->device buffer
  /// Seconds of each energy row's sustained run (NVML's energy counter: picojoules per DMMA flop,
  /// per L2 byte, per shared-memory byte); 0 leaves those rows out.
  double energy_seconds = 1.5;
};

// The families, one source file each. Each needs a GPU and returns its rows (failed rows carry
// `error`); none throws.
std::vector<Measurement> measure_peak_rates(Settings const& settings);           ///< peak_rates.cu
std::vector<Measurement> measure_launch_latency(Settings const& settings);       ///< launch_latency.cu
std::vector<Measurement> measure_global_memory(Settings const& settings);        ///< global_memory.cu
std::vector<Measurement> measure_host_copy(Settings const& settings);            ///< host_copy.cpp
std::vector<Measurement> measure_shared_memory(Settings const& settings);        ///< shared_memory.cu
std::vector<Measurement> measure_instruction_latency(Settings const& settings);  ///< instruction_latency.cu

/// Where a measured row goes in the machine description.
struct ModelField {
  char const* case_name;
  double model::MachineDescription::*field;
  double to_field_unit;  ///< the row's value (median) times this is the field's value
  bool design_anchor;    ///< an independently measured H100 value exists for it (in model::h100_sxm())
};

/// Every row the machine description reads.
std::span<ModelField const> model_fields();

/// The description of device `device`: its limits from the runtime (SMs, registers, shared memory,
/// threads, blocks), and every rate and latency from the medians of `rows` (0 where a row is
/// missing or failed). "" or an error.
std::string describe_machine(int device, std::vector<Measurement> const& rows, std::string const& source,
                             model::MachineDescription* out);

/// Median of the samples (NaN when there are none).
double median(std::vector<double> samples);

}  // namespace gemmkit::microbench
